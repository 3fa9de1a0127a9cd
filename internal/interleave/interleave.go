// Package interleave lets two runs of one script, A and B, take turns:
// they never run at once, and each step's repetitions alternate
// A B B A A B B A ..., so what drifts while they run falls on both alike.
//
// There is one token. A holds it from the start; B waits for it before its
// script starts. A run holds the token from the moment it gets it until it
// waits for a turn that is not due, or ends (then it lets it go for good).
// Each step's turns follow the pattern A B B A A B B A ..., which starts
// again at every new step name: a run's k-th turn in a step is its k-th
// place in the pattern, and it is due once every earlier place of that step
// was taken, or forfeited: the other run has moved on to a later step, or
// ended. So a run that skips or fails a step forfeits its turns left in it,
// and the other goes on alone.
package interleave

import (
	"context"
	"fmt"
	"strings"
	"sync"
)

// Side is one of the two runs.
type Side int

const (
	A Side = iota
	B
)

func (s Side) String() string {
	if s == B {
		return "B"
	}
	return "A"
}

func (s Side) other() Side { return 1 - s }

// nobody holds the token: the next run whose turn is due takes it.
const nobody Side = -1

// Turns is the token the two runs pass between them. Its methods may be
// called from the runs' goroutines at once.
type Turns struct {
	mu sync.Mutex
	// changed is closed and replaced whenever the state changes, which
	// wakes every waiter to look again.
	changed chan struct{}
	holder  Side
	sides   [2]run
	// rank orders the step names: a step with a higher rank comes later
	// in the script. A step of the order has a multiple of stride, a name
	// within it the ranks after; last is the next rank after the order.
	rank map[string]int
	last int
}

// stride leaves room, after each step of the order, for the names within it.
const stride = 1 << 16

// run is what one side has done.
type run struct {
	ended bool
	// step is the step of the run's last turn ("" before its first).
	step string
	// entered are the steps the run has asked a turn in.
	entered map[string]bool
	// taken counts the turns the run has had in each step.
	taken map[string]int
}

// New returns the token, held by A. order names the steps in the order the
// script runs them. A name it does not list ranks right after the step
// its first word names ("prefix front" after "prefix"), else after every
// step it lists; such names rank among themselves in the order the two
// runs first ask a turn in them.
func New(order []string) *Turns {
	t := &Turns{changed: make(chan struct{}), holder: A, rank: map[string]int{}}
	for i, name := range order {
		if _, ok := t.rank[name]; !ok {
			t.rank[name] = i * stride
		}
	}
	t.last = len(order) * stride
	for i := range t.sides {
		t.sides[i] = run{entered: map[string]bool{}, taken: map[string]int{}}
	}
	return t
}

// Start returns once side may start its script: at once for A, which holds
// the token; for B once A waits for a turn that is not due, or ends.
func (t *Turns) Start(ctx context.Context, side Side) error {
	t.mu.Lock()
	for {
		if t.holder == side || t.holder == nobody {
			t.holder = side
			t.mu.Unlock()
			return nil
		}
		if err := t.wait(ctx); err != nil {
			return fmt.Errorf("waiting for %s's turn to start: %w", side, err)
		}
	}
}

// Take returns once side may run its next repetition of step: its place in
// the step's pattern is due and it holds the token. A run that holds the
// token and is not due lets it go while it waits. It returns ctx's error
// when ctx ends first.
func (t *Turns) Take(ctx context.Context, side Side, step string) error {
	t.mu.Lock()
	r := &t.sides[side]
	if r.step != step {
		r.step, r.entered[step] = step, true
		if _, ok := t.rank[step]; !ok {
			t.rank[step] = t.rankNew(step)
		}
		t.signal()
	}
	for {
		due := t.due(side, step)
		if due && (t.holder == side || t.holder == nobody) {
			t.holder = side
			r.taken[step]++
			t.signal()
			t.mu.Unlock()
			return nil
		}
		if !due && t.holder == side {
			t.holder = nobody
			t.signal()
		}
		if err := t.wait(ctx); err != nil {
			return fmt.Errorf("waiting for %s's turn in %s: %w", side, step, err)
		}
	}
}

// rankNew ranks a name the order does not list, the first time a run asks
// a turn in it: after the step its first word names and the names within
// that step seen so far, else after everything seen so far.
func (t *Turns) rankNew(step string) int {
	word, _, _ := strings.Cut(step, " ")
	if base, ok := t.rank[word]; ok && base%stride == 0 {
		r := base
		for _, v := range t.rank {
			if v > r && v < base+stride {
				r = v
			}
		}
		return r + 1
	}
	t.last += stride
	return t.last
}

// End says side's script has ended: it lets the token go for good, and
// forfeits every turn it has not taken.
func (t *Turns) End(side Side) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.sides[side].ended = true
	if t.holder == side {
		t.holder = nobody
	}
	t.signal()
}

// due says whether side's next turn in step may come: every earlier place
// of the step's pattern was taken, or the other run forfeited its own.
func (t *Turns) due(side Side, step string) bool {
	place := Place(side, t.sides[side].taken[step])
	other := side.other()
	if t.movedOn(other, step) {
		return true
	}
	return t.sides[other].taken[step] >= placesBefore(other, place)
}

// movedOn says whether side has left step for good: it ended, or it is in
// a later step (one it entered after step, or one the order puts later).
func (t *Turns) movedOn(side Side, step string) bool {
	r := &t.sides[side]
	if r.ended {
		return true
	}
	if r.step == "" || r.step == step {
		return false
	}
	return r.entered[step] || t.rank[r.step] > t.rank[step]
}

// Place is where side's turn k (0 for its first) of a step stands in the
// pattern A B B A A B B A ...: A's are 0, 3, 4, 7, 8, ...; B's 1, 2, 5, 6, ...
func Place(side Side, k int) int {
	odd := k%2 == 1
	if side == A && odd || side == B && !odd {
		return 2*k + 1
	}
	return 2 * k
}

// Owner is the side whose turn place p of a step's pattern is.
func Owner(p int) Side {
	if p%4 == 1 || p%4 == 2 {
		return B
	}
	return A
}

// placesBefore counts side's places before place p.
func placesBefore(side Side, p int) int {
	n := 0
	for i := 0; i < p; i++ {
		if Owner(i) == side {
			n++
		}
	}
	return n
}

// signal wakes every waiter. The caller holds mu.
func (t *Turns) signal() {
	close(t.changed)
	t.changed = make(chan struct{})
}

// wait lets mu go until the state changes or ctx ends, and holds it again
// on return unless ctx ended (then it returns ctx's error, mu let go).
func (t *Turns) wait(ctx context.Context) error {
	ch := t.changed
	t.mu.Unlock()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-ch:
	}
	t.mu.Lock()
	return nil
}
