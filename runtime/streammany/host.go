// Package streammany is stream_many(requests, opts), many streamed
// requests at once as internal/load's plan makes them due, and the load's
// Runner over the same machinery: each request built by the script when
// it is due and streamed as stream() streams it, each result made a row
// (requests.jsonl, requests.csv), the server watched (server.jsonl), the
// progress line, the answers spoken, the summary. What it needs of the
// Lua host comes in a Host; it imports nothing of the host.
package streammany

import (
	"context"
	"io"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/servers"
	"ttftlab/internal/voice"
	"ttftlab/runtime/luajson"
	"ttftlab/runtime/request"
)

// Host is what stream_many and the Runner take from the Lua host. Every
// function is called on the Lua state's goroutine.
type Host struct {
	// Stderr takes the progress line when it is a terminal.
	Stderr io.Writer
	// JSON is the state's Lua <-> JSON codec: the summary and the tags
	// of a row.
	JSON *luajson.Codec
	// Ctx is the context of a call on L: done when the run is stopped.
	Ctx func(L *lua.LState) context.Context
	// RunBegan is when the current run began (zero: unknown): a row's
	// run_ms counts from it.
	RunBegan func() time.Time
	// Requests builds each request as stream() builds it, and makes its
	// result stream()'s four values, a failure hinted.
	Requests *request.Binder
	// Speech reads a tts option (true: the command's speech server; a
	// table of speak() options; false or nil: none), label naming it in
	// errors.
	Speech func(L *lua.LState, label string, v lua.LValue) *voice.Speech
	// TTSCPU is the CPU the command's speech server has used so far; nil
	// when it cannot say.
	TTSCPU func() time.Duration
	// Caller is the command's caller side (--stt): with it a run's turns
	// are spoken and transcribed before they are asked; nil without.
	Caller *request.Caller
	// OutPath is a file name of a script resolved against OUT.
	OutPath func(name string) string
	// Endpoint is the server's (SERVER); Kind its kind, detected once.
	Endpoint func() *endpoint.Endpoint
	Kind     func(L *lua.LState) servers.Kind
	// FailWrite raises a file that could not be written as the host's
	// failed write (no traceback; the run's error wraps it); Written is
	// that failed write as an error, for a Runner's caller.
	FailWrite func(L *lua.LState, prefix string, err error)
	Written   func(err error) error
	// Protect runs f on the Lua state under ctx as a protected call: what
	// the bindings raise comes back as the host's error (a failed write
	// as Written's).
	Protect func(ctx context.Context, f func(L *lua.LState)) error
}

// writeFailed is a record that could not be written; the binding raises
// it as the host's failed write, the Runner returns it as Written's.
type writeFailed struct{ err error }

func (e *writeFailed) Error() string { return e.err.Error() }
func (e *writeFailed) Unwrap() error { return e.err }

// written is a failed write's error as a *writeFailed, nil as nil.
func written(err error) error {
	if err == nil {
		return nil
	}
	return &writeFailed{err: err}
}
