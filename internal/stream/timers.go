package stream

import (
	"context"
	"time"
)

// startTimers arms everything that may close the connection besides the
// stream itself: the idle and overall limits and the caller's context. Each
// closes the connection from its own goroutine, so a slow callback on the
// caller's goroutine cannot delay a close.
func (r *run) startTimers() {
	if r.req.IdleTimeout >= 0 {
		r.idleD = r.req.IdleTimeout
		if r.idleD == 0 {
			r.idleD = DefaultIdleTimeout
		}
		// Created stopped, then started, so checkIdle never sees it nil.
		r.idle = time.AfterFunc(time.Hour, r.checkIdle)
		r.idle.Reset(r.idleD)
		r.stops = append(r.stops, r.idle.Stop)
	}
	if r.req.Timeout > 0 {
		t := time.AfterFunc(r.req.Timeout, func() { r.cl.close(closedTimeout) })
		r.stops = append(r.stops, t.Stop)
	}
	stop := context.AfterFunc(r.ctx, func() { r.cl.close(closedCanceled) })
	r.stops = append(r.stops, stop)
}

// checkIdle runs when the idle limit may have passed. Readers only note
// the time of every read (one atomic store, no timer work on the read
// path); the timer is moved on here when something arrived meanwhile.
// Until the response head is whole the limit bounds the head as one,
// counted from the request's first byte sent (from the call while
// connecting): a server that sends its headers a byte at a time cannot
// hold the request by resetting the limit with every byte.
func (r *run) checkIdle() {
	from := time.Duration(r.lastRead.Load())
	if !r.headDone.Load() {
		from = 0
		if t0, ok := r.cl.t0(); ok {
			from = t0
		}
	}
	quiet := r.clk.now() - from
	if quiet < r.idleD {
		r.idle.Reset(r.idleD - quiet)
		return
	}
	r.cl.close(closedIdle)
}

// armCut starts the CutAfter timer, aimed at t0+CutAfter, once the first
// write of the request has returned (httptrace's WroteRequest comes before
// the buffered request reaches the socket, so it cannot serve). It runs on
// the goroutine that writes the request.
// afterT0 runs once the first request write has returned.
func (r *run) afterT0() {
	r.armCut()
	if r.req.Sent != nil {
		r.req.Sent()
	}
}

func (r *run) armCut() {
	if r.req.CutAfter <= 0 {
		return
	}
	t0, ok := r.cl.t0()
	if !ok {
		return
	}
	wait := t0 + r.req.CutAfter - r.clk.now()
	r.cutTimer.Store(time.AfterFunc(wait, func() { r.cl.close(closedCut) }))
}

// cleanup closes the connection if nothing else did and stops the timers.
// A timer that fires meanwhile finds the connection closed and does nothing.
func (r *run) cleanup() {
	r.cl.close(closedEnd)
	for _, stop := range r.stops {
		stop()
	}
	if t := r.cutTimer.Load(); t != nil {
		t.Stop()
	}
}
