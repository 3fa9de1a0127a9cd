package load

import (
	"context"
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
	sched   *schedule
	results chan Result

	index    int
	inFlight int
	started  int
	freedAt  time.Duration // when a request last ended (closed loop)
	waiting  bool          // Next said Wait
	ended    bool          // no more starts
	err      error

	pending *pendingJob
	gate    chan struct{} // see gateHold
}

type pendingJob struct {
	index int
	job   Job
	due   time.Duration
}

func (r *run) now() time.Duration { return time.Since(r.begin) }

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
		r.fetch()
		if r.l.plan.Duration > 0 && r.now() >= r.l.plan.Duration {
			r.stopStarting()
		}
		if r.startIfDue() {
			continue
		}
		if r.ended && r.pending == nil && r.inFlight == 0 {
			if r.err == nil && r.started == 0 && ctx.Err() == nil {
				return ErrNoRequests
			}
			return r.err
		}
		wake := r.armTimer(timer)
		select {
		case res := <-r.results:
			r.finished(res)
		case c := <-r.l.calls:
			c.f()
			close(c.done)
		case <-wake:
		case t := <-tick:
			_ = t
			r.h.Tick(r.now(), r.inFlight)
		case <-ctx.Done():
			r.stopStarting()
			ctx = context.Background() // from now on only the requests' ends wake the loop
		}
	}
}

// fetch asks Next for a job when there is room for one.
func (r *run) fetch() {
	if r.pending != nil || r.ended || r.waiting || r.err != nil {
		return
	}
	job, st, err := r.h.Next(r.index + 1)
	switch {
	case err != nil:
		r.fail(err)
	case st == Wait:
		r.waiting = r.inFlight > 0
		if !r.waiting {
			r.stopStarting() // nothing runs that could change its mind
		}
	case st == Done:
		r.stopStarting()
	default:
		r.index++
		r.pending = &pendingJob{index: r.index, job: job, due: r.due(job)}
	}
}

// due is when a job may start: its slot in an open loop's schedule, or
// now (a closed loop; when the cap holds it back, when a request ends),
// and not before the job's own NotBefore.
func (r *run) due(job Job) time.Duration {
	var d time.Duration
	if r.sched != nil {
		d = r.sched.due()
	} else {
		d = r.now()
	}
	return max(d, job.NotBefore)
}

func (r *run) hasRoom() bool {
	return r.l.plan.Concurrency == 0 || r.inFlight < r.l.plan.Concurrency
}

// startIfDue launches the pending job when it is due and there is room.
func (r *run) startIfDue() bool {
	p := r.pending
	if p == nil || !r.hasRoom() || r.now() < p.due {
		return false
	}
	r.pending = nil
	scheduled := p.due
	if r.sched == nil && r.freedAt > scheduled {
		scheduled = r.freedAt // it was due when a slot came free
	}
	r.inFlight++
	r.started++
	go r.do(p, scheduled)
	return true
}

// do runs one request once the start gate lets it in; its start is that
// moment, so a wait at the gate is part of its queue_ms.
func (r *run) do(p *pendingJob, scheduled time.Duration) {
	r.gate <- struct{}{}
	start := r.now()
	var once sync.Once
	release := func() { once.Do(func() { <-r.gate }) }
	hold := time.AfterFunc(gateHold, release)
	req := p.job.Request
	if sent := req.Sent; sent != nil {
		req.Sent = func() { sent(); release() }
	} else {
		req.Sent = release
	}
	res, err := stream.Do(r.ctx, req)
	hold.Stop()
	release()
	r.results <- Result{Index: p.index, Scheduled: scheduled, Start: start, Result: res, Err: err}
}

// armTimer points the timer at the pending job's due time, when only time
// stands in its way; the returned channel is nil otherwise.
func (r *run) armTimer(t *time.Timer) <-chan time.Time {
	t.Stop()
	select {
	case <-t.C:
	default:
	}
	until := r.l.plan.Duration - r.now()
	if r.l.plan.Duration == 0 || r.ended {
		until = -1
	}
	if p := r.pending; p != nil && r.hasRoom() {
		if d := p.due - r.now(); until < 0 || d < until {
			until = d
		}
	}
	if until < 0 {
		return nil
	}
	t.Reset(until)
	return t.C
}

func (r *run) finished(res Result) {
	r.inFlight--
	r.freedAt = r.now()
	r.waiting = false
	if r.h.Finished == nil {
		return
	}
	more, err := r.h.Finished(res)
	switch {
	case err != nil:
		r.fail(err)
	case !more:
		r.stopStarting()
	}
}

func (r *run) stopStarting() {
	r.ended = true
	r.pending = nil
}

// fail keeps the first hook error and stops new starts; the requests in
// flight still end on their own.
func (r *run) fail(err error) {
	if r.err == nil {
		r.err = err
	}
	r.stopStarting()
}
