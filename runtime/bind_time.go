package runtime

import (
	"time"

	lua "github.com/yuin/gopher-lua"
)

// processStart is the base of now_ms. time.Since uses the monotonic clock,
// so wall-clock jumps never show up in measured durations.
var processStart = time.Now()

// ClockStart is the instant now_ms() counts from, and with it
// stream()'s info.t0_ms: a host adds milliseconds to it to place a
// script's times on another clock.
func ClockStart() time.Time { return processStart }

// nowMs is now_ms() -> fractional milliseconds since the process started.
// Only differences between two calls mean something.
func nowMs(L *lua.LState) int {
	L.Push(lua.LNumber(msSinceStart(time.Now())))
	return 1
}

// msSinceStart places an instant on now_ms()'s clock. Both instants carry
// monotonic readings, so the difference is monotonic too.
func msSinceStart(t time.Time) float64 {
	return float64(t.Sub(processStart).Nanoseconds()) / 1e6
}

// sleepMs is sleep_ms(ms): pauses the script; Ctrl-C (a cancelled
// context) ends the pause and the script at once.
func sleepMs(L *lua.LState) int {
	ms := float64(L.CheckNumber(1))
	if ms <= 0 {
		return 0
	}
	timer := time.NewTimer(time.Duration(ms * float64(time.Millisecond)))
	defer timer.Stop()
	select {
	case <-timer.C:
	case <-doneOf(L):
		L.RaiseError("sleep_ms: %v", L.Context().Err())
	}
	return 0
}

// doneOf is the state's cancellation channel; nil (never ready) when the
// state has no context.
func doneOf(L *lua.LState) <-chan struct{} {
	if ctx := L.Context(); ctx != nil {
		return ctx.Done()
	}
	return nil
}
