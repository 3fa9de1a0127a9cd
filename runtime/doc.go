// Package runtime hosts the Lua scripts of the lab: one gopher-lua state per
// run, the bindings scripts use to talk to the server and write results
// (stream, get, slots, write_json, ...), Lua <-> JSON conversion, and a
// module loader for the Lua library embedded in the binary.
//
// The README's "Lua bindings" section is the reference for script authors.
package runtime
