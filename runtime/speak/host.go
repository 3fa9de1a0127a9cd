// Package speak is the bindings of the speech server: speak(),
// speak_start() and tts_info(), and the tts option of stream() and
// stream_many() (an answer spoken as it streams). What it needs of the
// Lua host comes in a Host; it imports nothing of the host.
package speak

import (
	"context"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
	"ttftlab/runtime/request"
)

// Host is what the speech bindings take from the Lua host. Every function
// is called on the Lua state's goroutine.
type Host struct {
	// TTS is the command's speech server (--tts); nil: none.
	TTS *TTS
	// RequestTimeout bounds a speech request whose opts do not set
	// timeout_ms; Wire and NoKernelStamps choose how its answer is read
	// (see runtime.Config).
	RequestTimeout time.Duration
	Wire           stream.Wire
	NoKernelStamps bool
	// Ctx is the context of a call on L: done when the run is stopped.
	Ctx func(L *lua.LState) context.Context
	// Fail raises a failure that is not the Lua code's (no traceback).
	Fail func(L *lua.LState, format string, args ...any)
	// Requests reads opts.server as stream() reads it.
	Requests *request.Binder
	// SinceStart places an instant on now_ms()'s clock (info.t0_ms).
	SinceStart func(t time.Time) float64
}

// Binder is the speech bindings over one Lua state.
type Binder struct{ h Host }

// New is the speech bindings over h.
func New(h Host) *Binder { return &Binder{h: h} }
