// Package runtime hosts the Lua scripts of the lab: one gopher-lua state per
// run, the bindings scripts use to talk to the server and write results
// (stream, get, slots, write_json, ...), and a module loader for the Lua
// library embedded in the binary. What does not need the VM lives in
// packages below it, which never import it: luajson (Lua <-> JSON),
// luaerror (Lua 5.1's errors, the guard of bindings), suggest (the name a
// typo meant) and runs (the runs and ab bindings).
//
// The README's "Lua bindings" section is the reference for script authors.
package runtime
