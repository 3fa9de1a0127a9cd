package load

import (
	"context"
	"fmt"
	"runtime"
	"sync"
	"time"

	"ttftlab/internal/stream"
)

// run is the state of one Loop.Run.
type run struct {
	l       *Loop
	h       Hooks
	ctx     context.Context // the requests' own: cancelled when the run stops
	begin   time.Time
	results chan Result

	arrivals *arrivals       // an open loop's: when each call is due
	free     []time.Duration // a capped loop's free places: when each came free (a closed loop's ramp: opens)
	nextCall int             // the number of the next call to start: the shard's next (Plan.Shard)
	places   int             // the cap on calls in progress (the shard's share of Concurrency); -1 none
	thinking []nextTurn      // the next turns of calls in progress

	index    int
	inFlight int
	started  int
	held     bool // Next said Wait: ask again once a request ends
	ended    bool // no more starts
	err      error

	gate chan struct{} // see gateHold
}

// nextTurn is a turn the plan has fixed a due time for; history is the
// turns before it that a call starting in steady state holds as history.
type nextTurn struct {
	call, turn, prev, history int
	due                       time.Duration
}

func (r *run) now() time.Duration { return time.Since(r.begin) }

// closedCap: a closed loop with a cap on calls at once, whose new calls
// are due when a place comes free.
func (r *run) closedCap() bool { return r.arrivals == nil && r.l.plan.Concurrency > 0 }

// The start gate: at most gateSize requests between their launch and their
// first write, each for at most gateHold. Starting a request (connecting,
// registering the socket, writing) takes CPU; with hundreds due at once (a
// closed loop's first moment) as many goroutines would be runnable
// together, and the stream reader, back from its wait, would queue behind
// them for Go's processors for tens of milliseconds: long enough for a
// stream's first chunks to be read together with the next and carry its
// stamp. A few at a time keep that queue short. gateHold lets the next
// start in when a connection waits on the network (a remote server's round
// trip), so the gate never holds starts to a few per round trip.
var gateHold = time.Millisecond // a variable for the tests

func gateSize() int { return max(2, 2*runtime.GOMAXPROCS(0)) }

func (r *run) loop(ctx context.Context) error {
	var tick <-chan time.Time
	if r.l.plan.TickEvery > 0 && r.h.Tick != nil {
		t := time.NewTicker(r.l.plan.TickEvery)
		defer t.Stop()
		tick = t.C
	}
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for {
		if r.l.plan.Duration > 0 && r.now() >= r.l.plan.Duration {
			r.stopStarting()
		}
		var next nextTurn
		at, due := -1, false
		if !r.ended && !r.held {
			next, at, due = r.nextDue()
			if due && r.now() >= next.due {
				r.build(next, at)
				continue
			}
			if !due && r.inFlight == 0 {
				r.stopStarting() // every call is over
			}
		}
		if r.ended && r.inFlight == 0 {
			if r.err == nil && r.started == 0 && ctx.Err() == nil {
				return ErrNoRequests
			}
			return r.err
		}
		wake := r.armTimer(timer, next, due)
		select {
		case res := <-r.results:
			r.finished(res)
		case c := <-r.l.calls:
			c.f()
			close(c.done)
		case <-wake:
		case <-tick:
			r.h.Tick(r.now(), r.inFlight)
		case <-ctx.Done():
			r.stopStarting()
			ctx = context.Background() // from now on only the requests' ends wake the loop
		}
	}
}

// nextDue returns the turn due first: a call's next turn (at is its place
// in r.thinking) or a new call's first (at -1), when the plan has one.
func (r *run) nextDue() (next nextTurn, at int, ok bool) {
	at = -1
	for i, n := range r.thinking {
		if !ok || n.due < next.due {
			next, at, ok = n, i, true
		}
	}
	if due, can := r.newCallDue(); can && (!ok || due < next.due) {
		turn := r.l.plan.SteadyTurn(r.nextCall, due)
		next, at, ok = nextTurn{call: r.nextCall, turn: turn, history: turn - 1, due: due}, -1, true
	}
	return next, at, ok
}

// newCallDue is when the next call is due, if it may start: at its
// arrival (an open loop, when the cap leaves room), when a place came free
// (a capped closed loop) or at the start (no cap).
func (r *run) newCallDue() (time.Duration, bool) {
	p := r.l.plan
	switch {
	case p.Calls > 0 && r.nextCall > p.Calls:
		return 0, false
	case r.arrivals != nil:
		if r.places >= 0 && len(r.free) == 0 {
			return 0, false
		}
		return r.arrivals.peek(), true
	case r.closedCap():
		if len(r.free) == 0 {
			return 0, false
		}
		return r.free[firstFree(r.free)], true
	}
	return 0, true
}

// skipForeign moves nextCall past the calls of other shards; an open
// loop's arrivals skip their due times with them, so each call keeps the
// due time the whole schedule gives it.
func (r *run) skipForeign() {
	for !r.l.plan.Shard.ours(r.nextCall) {
		if r.arrivals != nil {
			r.arrivals.next()
		}
		r.nextCall++
	}
}

func firstFree(free []time.Duration) int {
	first := 0
	for i, t := range free {
		if t < free[first] {
			first = i
		}
	}
	return first
}

// build asks Next for a due turn's request and launches it at once.
func (r *run) build(next nextTurn, at int) {
	t := Turn{Index: r.index + 1, Call: next.call, Turn: next.turn, Prev: next.prev, Due: next.due,
		Draw: r.l.plan.CallDraw(next.call), History: next.history}
	job, st, err := r.h.Next(t)
	switch {
	case err != nil:
		r.fail(err)
		return
	case st == Wait:
		r.held = r.inFlight > 0
		if !r.held {
			r.stopStarting() // nothing runs that could change its mind
		}
		return
	case st == Done:
		r.stopStarting()
		return
	}
	r.index++
	admitted := t.Due
	if at >= 0 {
		r.thinking = append(r.thinking[:at], r.thinking[at+1:]...)
	} else {
		if r.arrivals != nil {
			r.arrivals.next()
		}
		if r.places >= 0 {
			// The call takes the place that came free first: when the cap
			// was full at its due time, it could begin only then.
			admitted = max(admitted, r.takePlace())
		}
		r.nextCall++
		r.skipForeign()
	}
	r.inFlight++
	r.started++
	go r.do(t, job, admitted)
}

// takePlace takes the place that came free first (r.free) and returns
// when it came free.
func (r *run) takePlace() time.Duration {
	i := firstFree(r.free)
	at := r.free[i]
	r.free = append(r.free[:i], r.free[i+1:]...)
	return at
}

// steadyStart puts the first requests of a closed loop's calls that start
// in steady state (Plan.SteadyStart) among the due turns, each on its
// place, due at the place's opening plus its draw (Plan.SteadyDue), at its
// staggered turn (Plan.SteadyTurn): their due times do not follow their
// numbers, so they wait as later turns do rather than in the order of
// new calls.
func (r *run) steadyStart() {
	p := r.l.plan
	n := p.steadyCalls()
	for r.nextCall <= n && (r.places < 0 || len(r.free) > 0) {
		var opens time.Duration
		if r.places >= 0 {
			opens = r.takePlace()
		}
		turn := p.SteadyTurn(r.nextCall, 0)
		r.thinking = append(r.thinking, nextTurn{call: r.nextCall, turn: turn, history: turn - 1, due: opens + p.SteadyDue(r.nextCall)})
		r.nextCall++
		r.skipForeign()
	}
}

// do runs one request: Job.Before first, when set (the turn began then),
// then the stream once the start gate lets it in; its start is that
// moment, so a wait at the gate is part of its queue_ms (without Before)
// or of the turn's hand-off (with it).
func (r *run) do(t Turn, job Job, admitted time.Duration) {
	req := job.Request
	began := r.now()
	ramp := t.Due < r.l.plan.Ramp.Duration
	if job.Session != nil {
		r.session(t, job, admitted, ramp)
		return
	}
	if job.Before != nil {
		if err := job.Before(r.ctx, &req); err != nil {
			end := r.now()
			r.results <- Result{Index: t.Index, Call: t.Call, Turn: t.Turn, Scheduled: t.Due, Admitted: admitted, Ramp: ramp, Began: began,
				Start: end, End: end, BeforeErr: err}
			return
		}
	}
	r.gate <- struct{}{}
	start := r.now()
	if job.Before == nil {
		began = start
	}
	var once sync.Once
	release := func() { once.Do(func() { <-r.gate }) }
	hold := time.AfterFunc(gateHold, release)
	if sent := req.Sent; sent != nil {
		req.Sent = func() { sent(); release() }
	} else {
		req.Sent = release
	}
	res, err := stream.Do(r.ctx, req)
	hold.Stop()
	release()
	var afterErr error
	if job.After != nil {
		if e := job.After(res, err); err == nil {
			afterErr = e
		}
	}
	// The turn is over only now: with After (the answer's speech) the call
	// still held its place, and its next turn or call was not yet due.
	// Stamped before, the wait for After would be counted as the next
	// request's queue.
	end := r.now()
	r.results <- Result{Index: t.Index, Call: t.Call, Turn: t.Turn, Scheduled: t.Due, Admitted: admitted, Ramp: ramp, Began: began, Start: start,
		End: end, Result: res, Err: err, AfterErr: afterErr}
}

// session runs a job's Session once the start gate lets it in: its start
// is that moment, its end when it returned.
func (r *run) session(t Turn, job Job, admitted time.Duration, ramp bool) {
	r.gate <- struct{}{}
	start := r.now()
	var once sync.Once
	release := func() { once.Do(func() { <-r.gate }) }
	hold := time.AfterFunc(gateHold, release)
	err := job.Session(r.ctx)
	hold.Stop()
	release()
	end := r.now()
	r.results <- Result{Index: t.Index, Call: t.Call, Turn: t.Turn, Scheduled: t.Due, Admitted: admitted, Ramp: ramp, Began: start, Start: start,
		End: end, Err: err}
}

// armTimer points the timer at the due time of next (when due) or the
// end of Plan.Duration, whichever comes first; the returned channel is nil
// when there is neither.
func (r *run) armTimer(t *time.Timer, next nextTurn, due bool) <-chan time.Time {
	t.Stop()
	select {
	case <-t.C:
	default:
	}
	until := time.Duration(-1)
	if r.l.plan.Duration > 0 && !r.ended {
		until = r.l.plan.Duration - r.now()
	}
	if due {
		if d := next.due - r.now(); until < 0 || d < until {
			until = max(d, 0)
		}
	}
	if until < 0 {
		return nil
	}
	t.Reset(until)
	return t.C
}

// finished takes a request's result, then schedules what follows it.
func (r *run) finished(res Result) {
	r.inFlight--
	r.held = false
	if r.h.Finished != nil {
		more, err := r.h.Finished(res)
		switch {
		case err != nil:
			r.fail(err)
		case !more:
			r.stopStarting()
		}
	}
	r.follow(res)
}

// follow schedules the call's next turn, due when this one ended plus the
// think time; when the call is over (its last turn, or a failed one), its
// place comes free at that end.
func (r *run) follow(res Result) {
	p := r.l.plan
	if !res.Failed() && res.Turn < p.turnsOf(res.Call) && !r.ended {
		think, err := p.ThinkTime(res.Call, res.Turn+1)
		if err == nil && think < 0 {
			err = fmt.Errorf("the think time before turn %d of call %d is negative (%v)", res.Turn+1, res.Call, think)
		}
		if err == nil {
			r.thinking = append(r.thinking, nextTurn{call: res.Call, turn: res.Turn + 1, prev: res.Index, due: res.End + think})
			return
		}
		r.fail(err)
	}
	if r.places >= 0 {
		r.free = append(r.free, res.End)
	}
}

func (r *run) stopStarting() {
	r.ended = true
	r.thinking = nil
}

// fail keeps the first hook error and stops new starts; the requests in
// flight still end on their own.
func (r *run) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.stopStarting()
}
