package load

import (
	"context"
	"errors"
	"fmt"
	"time"

	"ttftlab/internal/stream"
)

// Plan says how requests start.
type Plan struct {
	// Concurrency caps the requests in flight: 0 is the default (1 for a
	// closed loop, no cap for an open one), NoLimit none. Without Rate it
	// is a closed loop: a request starts as soon as another one ends.
	Concurrency int
	// Rate is starts per second of an open loop; 0 for a closed loop.
	Rate    float64
	Arrival Arrival
	Seed    uint64
	// Duration stops new starts this long after the run began (0: none).
	Duration time.Duration
	// TickEvery calls Hooks.Tick this often (0: never).
	TickEvery time.Duration
}

// NoLimit is a Plan.Concurrency without a cap.
const NoLimit = -1

// Job is one request to start.
type Job struct {
	Request stream.Request
	// NotBefore holds the start until this time since the run began: a
	// voice call's next turn comes after the caller has spoken.
	NotBefore time.Duration
}

// Status is what Hooks.Next has to offer.
type Status int

// Statuses of Hooks.Next.
const (
	// Ready: here is the next job.
	Ready Status = iota
	// Wait: none to start until a running request ends; ask again then.
	Wait
	// Done: no more requests.
	Done
)

// Result is one finished request.
type Result struct {
	// Index numbers the requests from 1 in the order they were asked for.
	Index int
	// Scheduled is when the request was due, Start when it was launched
	// (past the start gate), both since the run began; Start - Scheduled
	// is the client's own delay (the cap on requests in flight, a slow
	// Next, the start gate, a busy machine).
	Scheduled, Start time.Duration
	Result           *stream.Result
	Err              error
}

// Hooks are called on the goroutine that called Run.
type Hooks struct {
	// Next returns the job with the given index.
	Next func(index int) (Job, Status, error)
	// Finished takes each result as it comes; more false starts no more.
	Finished func(Result) (more bool, err error)
	// Tick is called every Plan.TickEvery with the requests in flight.
	Tick func(elapsed time.Duration, inFlight int)
}

// Loop runs one plan. Make it with New; a Loop runs once.
type Loop struct {
	plan  Plan
	calls chan call
	quit  chan struct{}
}

type call struct {
	f    func()
	done chan struct{}
}

// New prepares a loop for plan.
func New(plan Plan) (*Loop, error) {
	switch {
	case plan.Rate < 0:
		return nil, fmt.Errorf("the rate must not be negative, got %g", plan.Rate)
	case plan.Concurrency < NoLimit:
		return nil, fmt.Errorf("the concurrency must not be negative, got %d", plan.Concurrency)
	}
	switch {
	case plan.Concurrency == NoLimit:
		plan.Concurrency = 0
	case plan.Rate == 0 && plan.Concurrency == 0:
		plan.Concurrency = 1
	}
	if plan.Arrival == "" {
		plan.Arrival = Constant
	}
	return &Loop{plan: plan, calls: make(chan call), quit: make(chan struct{})}, nil
}

// OnLoop runs f on Run's goroutine and waits for it, for a running
// request's callbacks (on_chunk) that touch the caller's state. It
// reports false, without running f, once the loop has stopped.
func (l *Loop) OnLoop(f func()) bool {
	c := call{f: f, done: make(chan struct{})}
	select {
	case l.calls <- c:
	case <-l.quit:
		return false
	}
	<-c.done
	return true
}

// ErrNoRequests is returned when Next offered nothing at all.
var ErrNoRequests = errors.New("no requests")

// Run starts requests as the plan says until Next is Done, Finished says
// no more, Plan.Duration is over or ctx ends, then waits for the requests
// in flight. Cancelling ctx cuts them (their results say so). The first
// error of a hook stops new starts and is returned once all have ended.
func (l *Loop) Run(ctx context.Context, h Hooks) error {
	r := &run{l: l, h: h, begin: time.Now(), gate: make(chan struct{}, gateSize())}
	if l.plan.Rate > 0 {
		r.sched = newSchedule(l.plan.Rate, l.plan.Arrival, l.plan.Seed)
	}
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.ctx = runCtx
	r.results = make(chan Result, 64)
	defer close(l.quit)
	return r.loop(ctx)
}
