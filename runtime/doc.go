// Package runtime hosts the Lua scripts of the lab: one gopher-lua state per
// run, the bindings scripts use to talk to the server and write results
// (stream, get, slots, write_json, ...), and a module loader for the Lua
// library embedded in the binary. What does not need the VM lives in
// packages below it, which never import it: luajson (Lua <-> JSON),
// luaerror (Lua 5.1's errors, the guard of bindings), suggest (the name a
// typo meant), luatable (the stream bindings' option values and result
// tables), runs (the runs and ab bindings), request (stream(), get, post
// and the other requests to the server), speak (speak(), speak_start(),
// tts_info(), the tts option) and streammany (stream_many and the load's
// runner over it, its requests built and read by request). A binding
// package takes what it needs of the VM through a Host value the VM
// builds (runsHost, request.Host and speak.Host in New, manyHost).
//
// The README's "Lua bindings" section is the reference for script authors.
package runtime
