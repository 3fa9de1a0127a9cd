package load

import (
	"context"
	"errors"
	"fmt"
	"time"

	"ttftlab/internal/stream"
)

// Plan is the call model: how calls start, how many turns each has and
// how long the caller thinks between them. Go computes from it which
// call's which turn is due when; the caller only builds each request.
//
// A call is one or more turns, one request each, one after the other.
// Each is due at a moment the plan fixes, and Hooks.Next builds it only
// then, so whatever delays its start after that moment (building it, the
// start gate, a busy machine) is in Began - Scheduled (Result):
//   - a call's first turn, in a closed loop: when a place came free (a
//     call ended), or the run's start for the first Concurrency calls;
//   - in an open loop: its arrival (Arrivals), whether or not a place is
//     free then;
//   - a later turn: the end of the call's previous turn plus ThinkTime.
//
// A turn begins with Job.Before, when set (the caller speaking it, from
// its due time on), and ends when its stream has ended and Job.After has
// returned (a spoken answer's audio came): its call holds its place
// until then.
type Plan struct {
	// Concurrency caps the calls in progress (a call holds its place from
	// its first turn's start to its last turn's end, think times
	// included): 0 is the default (1 for a closed loop, no cap for an open
	// one), NoLimit none. Without Rate (or a Schedule) it is a closed loop:
	// a call starts as soon as another one ends. In an open loop a call
	// due while the cap is full waits for a place (it is never dropped):
	// Result.Admitted says when one came free.
	Concurrency int
	// Rate is calls arriving per second, an open loop; 0 for a closed loop.
	Rate    float64
	Arrival Arrival
	// Seed draws the Poisson arrivals and the think times.
	Seed uint64
	// Calls is how many calls to run; 0: until Hooks.Next says Done.
	Calls int
	// Turns is the requests of each call (0: 1). A turn that fails ends
	// its call.
	Turns int
	// Think is the pause before each next turn of a call.
	Think Think
	// Duration stops new starts this long after the run began (0: none).
	Duration time.Duration
	// TickEvery calls Hooks.Tick this often (0: never).
	TickEvery time.Duration
	// Shard, when its Count is above 1, runs one part of the plan, as one
	// of Count machines that each run theirs: the whole schedule is
	// computed (the arrivals of every call, each call's draw and think
	// times), and this part takes the calls whose number is Index+1
	// modulo Count, so the union of the parts is exactly the whole. An
	// open loop's arrivals interleave; a capped loop's places are dealt
	// out the same way (part Index gets the places Index, Index+Count,
	// ... of Concurrency).
	Shard Shard
	// Schedule, when set, is a replayed trace's: an open loop whose call
	// i is due at Starts[i-1] and makes Turns[i-1] turns, Think.Func
	// giving its pauses; Rate, Arrival, Turns and Calls are then unused
	// (Calls is len(Starts)), Concurrency is the cap on calls at once (0:
	// none). Neither a Ramp nor SteadyStart goes with it. See Schedule.
	Schedule *Schedule
	// Ramp, when its Duration is above 0, grows the level over its first
	// Duration: an open loop's rate, or a capped closed loop's places
	// (calls at once), from none to the level (see Ramp). Requests due
	// before its end are marked (Result.Ramp).
	Ramp Ramp
	// SteadyStart starts calls in steady state, as if they had been
	// running: the calls in progress at the start begin at staggered turns
	// (SteadyTurn), their first request holding the turns before it as
	// history (Turn.History) and making the call's turns from there to
	// Turns. In a closed loop those are its first min(Concurrency, Calls)
	// calls, call i at turn 1 + (i-1) mod Turns, due at its place's
	// opening (the start, without a ramp) plus a draw in [0, Think.Min)
	// (SteadyDue), so their first requests spread; in an open loop the
	// calls that arrive before (Turns-1) x Think.Min, at their arrival. No
	// effect with one turn; later calls start at turn 1.
	SteadyStart bool
}

// Schedule is a trace's calls, in the order they start: call i (from 1)
// is due Starts[i-1] after the run began (never decreasing) and makes
// Turns[i-1] requests; the pause before each later turn is Plan.Think's.
// A shard takes its calls as from any plan (call i to shard (i-1) mod N),
// each at its time.
type Schedule struct {
	Starts []time.Duration
	Turns  []int
}

// RampShape is how a ramp grows.
type RampShape string

// Ramp shapes.
const (
	// RampLinear grows the rate (or the places) in proportion to the time.
	RampLinear RampShape = "linear"
	// RampExp grows it exponentially, from 1 % of the level at the start
	// to the level at the ramp's end.
	RampExp RampShape = "exp"
)

// Ramp is a level's ramp: an open loop's arrival rate at time t < Duration
// is Rate x shape(t/Duration) (arrivals drawn as for the level, on a
// clock warped by the shape's integral, so Poisson stays Poisson), Rate
// from Duration on; a closed loop's place k (from 1) of Concurrency opens
// at the time the shape reaches k/Concurrency (place 1 at once, the last
// at Duration). The shapes: linear, t/Duration; exponential,
// e^(a(t/Duration - 1)) with a = ln 100. A Shape "" is linear.
type Ramp struct {
	Duration time.Duration
	Shape    RampShape
}

// check says whether the schedule can be played: as many turns as
// starts, starts from 0 on that never go back, a turn at least per call.
func (s *Schedule) check() error {
	switch {
	case len(s.Starts) != len(s.Turns):
		return fmt.Errorf("the schedule has %d starts but %d turn counts: want one of each per call", len(s.Starts), len(s.Turns))
	case len(s.Starts) == 0:
		return fmt.Errorf("the schedule has no call")
	}
	for i, at := range s.Starts {
		switch {
		case at < 0:
			return fmt.Errorf("call %d of the schedule starts before the run (%v)", i+1, at)
		case i > 0 && at < s.Starts[i-1]:
			return fmt.Errorf("call %d of the schedule starts (%v) before call %d (%v): the starts must not go back", i+1, at, i, s.Starts[i-1])
		case s.Turns[i] < 1:
			return fmt.Errorf("call %d of the schedule has %d turns, want 1 or more", i+1, s.Turns[i])
		}
	}
	return nil
}

// Shard is one part of a plan run by several machines: Index from 0,
// Count parts in all.
type Shard struct{ Index, Count int }

// ours says whether call (from 1) is the shard's.
func (s Shard) ours(call int) bool { return s.Count <= 1 || (call-1)%s.Count == s.Index }

// Places is the shard's share of n places: those whose number, from 0,
// is Index modulo Count.
func (s Shard) Places(n int) int {
	if s.Count <= 1 {
		return n
	}
	if n <= s.Index {
		return 0
	}
	return (n-s.Index-1)/s.Count + 1
}

// NoLimit is a Plan.Concurrency without a cap.
const NoLimit = -1

// Turn is one request the plan has made due: Hooks.Next builds it.
type Turn struct {
	// Index numbers the requests from 1 in the order they are built.
	Index int
	// Call numbers the calls from 1 in the order they start; Turn counts a
	// call's requests from 1.
	Call, Turn int
	// Prev is the Index of the call's previous turn (0 for the first).
	Prev int
	// Due is when the turn was due, since the run began.
	Due time.Duration
	// Draw is the call's own uniform draw in [0, 1) (Plan.CallDraw): the
	// same for every turn of the call, e.g. to choose what its caller
	// says.
	Draw float64
	// History is, on the first request of a call that starts in steady
	// state (Plan.SteadyStart), the turns before it (Turn - 1), which the
	// request holds as history without having run them; 0 otherwise.
	History int
}

// Job is one request to start.
type Job struct {
	Request stream.Request
	// Before, when set, runs on the request's goroutine when the turn is
	// launched, before the start gate and the stream: a caller speaking
	// the turn, whose transcript it puts in the request. It may change
	// the request; its error fails the turn without a stream
	// (Result.BeforeErr). The turn began when Before began
	// (Result.Began).
	Before func(ctx context.Context, req *stream.Request) error
	// After, when set, runs on the request's goroutine once its stream
	// has ended, before the result is handed back: a speech pipeline
	// waits there for the answer's audio. Its error fails the request
	// (Result.AfterErr) when the stream itself ended well.
	After func(res *stream.Result, err error) error
	// Session, when set, is run instead of the stream: a whole session of
	// its own (a speech-to-speech session over a WebSocket, whose turns
	// the session paces itself), on the job's goroutine, past the start
	// gate as a stream is (the gate lets the next start in after
	// gateHold, or when the session returns). Its times are the Result's
	// as for any job (Began and Start when it was called, End when it
	// returned), its error the Result's Err; Request, Before and After are
	// unused. The plan makes each session due as a call's first turn:
	// with Plan.Turns 1, one job is one call.
	Session func(ctx context.Context) error
}

// Status is what Hooks.Next has to offer.
type Status int

// Statuses of Hooks.Next.
const (
	// Ready: here is the job.
	Ready Status = iota
	// Wait: nothing to start until a running request ends; ask again then
	// (the turn stays due since the same moment).
	Wait
	// Done: no more requests.
	Done
)

// Result is one finished request.
type Result struct {
	// Index, Call and Turn are the Turn's.
	Index, Call, Turn int
	// Scheduled is when the request was due, Began when its turn began,
	// Start when its stream was launched (past the start gate), End when
	// it was over (its stream ended and Job.After returned: a spoken
	// answer's audio came), all since the run began.
	// Began - Scheduled is the client's own delay (the cap on calls in
	// progress, building the request, the start gate, a busy machine).
	// Without Job.Before, Began is Start; with it, Began is when Before
	// began (the caller began to speak) and Start - Began the time Before
	// took (the caller speaking, the transcript), then the start gate; a
	// turn whose Before failed has Start when it failed, and no stream.
	Scheduled, Began, Start, End time.Duration
	// Admitted is when the turn could begin: Scheduled, or, for a call's
	// first turn that a cap on calls at once held back (an open loop's
	// call due while every place was taken), the moment a place came
	// free: the End of the call that freed it. Began - Admitted is the
	// client's own lateness (load's late_ms).
	Admitted time.Duration
	// Ramp: the turn was due during the plan's ramp (Plan.Ramp).
	Ramp   bool
	Result *stream.Result
	// Err is the stream's error; AfterErr is Job.After's, when the stream
	// ended well but what followed it failed (the answer's speech);
	// BeforeErr is Job.Before's (the caller's speech was not
	// transcribed), when the stream never started. Each fails the turn,
	// which ends its call.
	Err, AfterErr, BeforeErr error
}

// Failed says whether the request failed: Job.Before, its stream, or
// Job.After.
func (r Result) Failed() bool { return r.Err != nil || r.AfterErr != nil || r.BeforeErr != nil }

// Hooks are called on the goroutine that called Run.
type Hooks struct {
	// Next builds the request of a turn, once it is due.
	Next func(Turn) (Job, Status, error)
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
	case plan.Calls < 0 || plan.Turns < 0:
		return nil, fmt.Errorf("the calls and turns must not be negative, got %d and %d", plan.Calls, plan.Turns)
	case plan.Think.Min < 0 || plan.Think.Max < 0:
		return nil, fmt.Errorf("the think time must not be negative")
	case plan.Shard.Count < 0 || plan.Shard.Index < 0 || (plan.Shard.Count > 0 && plan.Shard.Index >= plan.Shard.Count):
		return nil, fmt.Errorf("shard %d of %d: want a shard from 0 to the count less 1", plan.Shard.Index, plan.Shard.Count)
	}
	if plan.Turns == 0 {
		plan.Turns = 1
	}
	if s := plan.Schedule; s != nil {
		if err := s.check(); err != nil {
			return nil, err
		}
		switch {
		case plan.SteadyStart:
			return nil, fmt.Errorf("a schedule's calls start at their first turn: steady start does not apply to it")
		case plan.Ramp.Duration != 0:
			return nil, fmt.Errorf("a schedule's calls come at its own times: a ramp does not apply to it")
		}
		plan.Calls, plan.Rate = len(s.Starts), 0
	}
	switch plan.Ramp.Shape {
	case "":
		plan.Ramp.Shape = RampLinear
	case RampLinear, RampExp:
	default:
		return nil, fmt.Errorf("unknown ramp shape %q: want %q or %q", plan.Ramp.Shape, RampLinear, RampExp)
	}
	switch {
	case plan.Concurrency == NoLimit:
		plan.Concurrency = 0
	case plan.Rate == 0 && plan.Schedule == nil && plan.Concurrency == 0:
		plan.Concurrency = 1
	}
	closed := plan.Rate == 0 && plan.Schedule == nil
	switch {
	case plan.Ramp.Duration < 0:
		return nil, fmt.Errorf("the ramp must not be negative, got %v", plan.Ramp.Duration)
	case plan.Ramp.Duration > 0 && closed && plan.Concurrency == 0:
		return nil, fmt.Errorf("a ramp grows the calls at once to the level: a closed loop without a cap has none to grow")
	case plan.SteadyStart && closed && plan.Concurrency == 0 && plan.Calls == 0:
		return nil, fmt.Errorf("steady start staggers the calls in progress at the start: a closed loop with neither a cap nor a number of calls has no end to them")
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

// WaitUntil returns at the wall-clock time at (at once when it has
// passed), or with ctx's error when ctx ends first: how machines that
// never talk to each other begin a run together.
func WaitUntil(ctx context.Context, at time.Time) error {
	d := time.Until(at)
	if d <= 0 {
		return nil
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ErrNoRequests is returned when Next offered nothing at all.
var ErrNoRequests = errors.New("no requests")

// Run starts requests as the plan says until its calls are over, Next is
// Done, Finished says no more, Plan.Duration is over or ctx ends, then
// waits for the requests in flight. Cancelling ctx cuts them (their
// results say so). The first error of a hook stops new starts and is
// returned once all have ended.
func (l *Loop) Run(ctx context.Context, h Hooks) error {
	r := &run{l: l, h: h, begin: time.Now(), gate: make(chan struct{}, gateSize()), nextCall: 1, places: -1}
	p := l.plan
	r.arrivals = p.newArrivals()
	if p.Concurrency > 0 {
		r.places = p.Shard.Places(p.Concurrency)
		// Every place is free at the start; a closed loop's ramp opens
		// them one by one. The shard's place j is the whole's
		// Index + j x Count.
		r.free = make([]time.Duration, r.places)
		if r.arrivals == nil {
			for j := range r.free {
				r.free[j] = p.Ramp.opens(p.Shard.Index+j*max(p.Shard.Count, 1)+1, p.Concurrency)
			}
		}
	}
	r.skipForeign()
	r.steadyStart()
	runCtx, cancel := context.WithCancel(ctx)
	defer cancel()
	r.ctx = runCtx
	r.results = make(chan Result, 64)
	defer close(l.quit)
	return r.loop(ctx)
}
