// Package request is the bindings that send requests to the LLM server:
// stream() (the request built from a script's messages and opts, shaped
// for its API and for the kind of server, the result table, the hints
// after a failure), get, post, health, props, slots, server_info,
// server_caps and running_requests. What it needs of the Lua host comes
// in a Host; it imports nothing of the host. stream_many
// (runtime/streammany) builds and streams each of its requests through
// the same Binder.
package request

import (
	"context"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
	"ttftlab/internal/voice"
	"ttftlab/runtime/luajson"
)

// Host is what the bindings take from the Lua host: the command's
// settings and the host's functions. Every function is called on the Lua
// state's goroutine.
type Host struct {
	// Server is SERVER; Endpoint is the server and how to reach it (API
	// key, headers, TLS, model name). ServerFrom names how the user set
	// SERVER ("--server", or the global), for the hints in errors.
	Server     string
	Endpoint   *endpoint.Endpoint
	ServerFrom string
	// RequestTimeout, Wire, NoKernelStamps and API are the defaults of a
	// request whose opts do not set them (see runtime.Config).
	RequestTimeout time.Duration
	Wire           stream.Wire
	NoKernelStamps bool
	API            stream.API
	// Kind is the kind of server the command line detected (zero: detect
	// it when a script asks); NotLLM what it found at Server when that is
	// not an LLM server (nil otherwise).
	Kind   servers.Detection
	NotLLM error
	// JSON is the state's Lua <-> JSON codec.
	JSON *luajson.Codec
	// Ctx is the context of a call on L: done when the run is stopped.
	Ctx func(L *lua.LState) context.Context
	// Fail raises a failure that is not the Lua code's (no traceback).
	Fail func(L *lua.LState, format string, args ...any)
	// OutPath is a file name of a script resolved against OUT.
	OutPath func(name string) string
	// Speech reads stream()'s opts.tts (argument 2 of the call on L): nil
	// without one.
	Speech func(L *lua.LState) *voice.Speech
	// SinceStart places an instant on now_ms()'s clock (info.t0_ms).
	SinceStart func(t time.Time) float64
	// STT is the caller's side of listen() and opts.stt (--stt); nil:
	// none.
	STT *Caller
}

// Binder is the bindings over one Lua state, with what they remember
// between calls: the kind of server once detected, the completions
// prompts rendered, the stream() call a cancel stopped.
type Binder struct {
	h Host
	// apis remembers how completions prompts are rendered per server.
	apis apiState
	// detected is the kind of server at SERVER once known.
	detected *servers.Detection
	// interrupted is the stream() call a cancelled context stopped during
	// the current run, if any.
	interrupted *InterruptedStream
	// turns counts the caller's turns spoken from text: turn k takes the
	// caller's audio folder's file (k-1) mod n.
	turns int
}

// New is the bindings over h.
func New(h Host) *Binder { return &Binder{h: h} }

// StartRun forgets the stream() call that a cancel stopped in an earlier
// run.
func (rq *Binder) StartRun() { rq.interrupted = nil }
