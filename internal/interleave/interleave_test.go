package interleave

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// step is what a simulated run does in one step: take n turns, each one a
// repetition (skip: n = 0, no turn asked).
type step struct {
	name string
	n    int
}

// play runs A and B on goroutines of their own through one Turns, each
// doing its steps, and returns the order of the repetitions ("s:A") as
// they ran. It fails the test when two repetitions run at once or the
// runs do not end within a few seconds (a deadlock).
func play(t *testing.T, order []string, a, b []step) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	turns := New(order)
	var mu sync.Mutex
	var log []string
	var running atomic.Int32
	var wg sync.WaitGroup
	errs := make(chan error, 2)
	// begin marks side as running its script; another run running then
	// is the fault.
	begin := func(side Side) {
		if !running.CompareAndSwap(0, int32(side)+1) {
			errs <- errors.New(side.String() + " runs while the other does")
		}
	}
	side := func(s Side, steps []step) {
		defer wg.Done()
		if err := turns.Start(ctx, s); err != nil {
			errs <- err
			return
		}
		begin(s)
		for _, st := range steps {
			for k := 0; k < st.n; k++ {
				running.Store(0)
				if err := turns.Take(ctx, s, st.name); err != nil {
					errs <- err
					turns.End(s)
					return
				}
				begin(s)
				mu.Lock()
				log = append(log, st.name+":"+s.String())
				mu.Unlock()
				// Give the other goroutine every chance to run now, were
				// the token not held.
				time.Sleep(time.Millisecond)
			}
		}
		running.Store(0)
		turns.End(s)
	}
	wg.Add(2)
	go side(B, b)
	go side(A, a)
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	return strings.Join(log, " ")
}

func TestRepetitionsAlternateABBA(t *testing.T) {
	got := play(t, []string{"ttft"}, []step{{"ttft", 6}}, []step{{"ttft", 6}})
	want := "ttft:A ttft:B ttft:B ttft:A ttft:A ttft:B ttft:B ttft:A ttft:A ttft:B ttft:B ttft:A"
	if got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}

// TestEachStepStartsThePatternAgain: the second step starts with A again,
// not where the first left off; A, holding the token after its last turn
// in cache, runs its first in sentence before B's last in cache.
func TestEachStepStartsThePatternAgain(t *testing.T) {
	got := play(t, []string{"cache", "sentence"},
		[]step{{"cache", 3}, {"sentence", 2}}, []step{{"cache", 3}, {"sentence", 2}})
	want := "cache:A cache:B cache:B cache:A cache:A sentence:A cache:B sentence:B sentence:B sentence:A"
	if got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}

// TestSkippedStepIsForfeited: B skips cache (the server lacks what it
// needs), so A takes all its turns in it, and both meet again in sentence.
func TestSkippedStepIsForfeited(t *testing.T) {
	for _, order := range [][]string{{"cache", "sentence"}, nil} {
		got := play(t, order, []step{{"cache", 3}, {"sentence", 2}}, []step{{"cache", 0}, {"sentence", 2}})
		want := "cache:A cache:A cache:A sentence:A sentence:B sentence:B sentence:A"
		if got != want {
			t.Fatalf("order %v\n got %s\nwant %s", order, got, want)
		}
	}
}

// TestSkipAfterTheOtherWaits: A skips cache while B waits for A's first
// turn there; B goes once A is in sentence, which the order puts later.
func TestSkipAfterTheOtherWaits(t *testing.T) {
	got := play(t, []string{"ttft", "cache", "sentence"},
		[]step{{"ttft", 2}, {"cache", 0}, {"sentence", 2}}, []step{{"ttft", 2}, {"cache", 2}, {"sentence", 2}})
	want := "ttft:A ttft:B ttft:B ttft:A sentence:A cache:B cache:B sentence:B sentence:B sentence:A"
	if got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}

// TestFailedStepForfeitsItsTurns: A fails cache after its second
// repetition; B takes its turns left there alone, and sentence alternates.
func TestFailedStepForfeitsItsTurns(t *testing.T) {
	got := play(t, []string{"cache", "sentence"},
		[]step{{"cache", 2}, {"sentence", 2}}, []step{{"cache", 4}, {"sentence", 2}})
	want := "cache:A cache:B cache:B cache:A sentence:A cache:B cache:B sentence:B sentence:B sentence:A"
	if got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}

// TestOneSideEndsEarly: B's script ends after cache; A runs sentence alone.
func TestOneSideEndsEarly(t *testing.T) {
	got := play(t, nil, []step{{"cache", 2}, {"sentence", 3}}, []step{{"cache", 2}})
	want := "cache:A cache:B cache:B cache:A sentence:A sentence:A sentence:A"
	if got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
	got = play(t, nil, []step{{"cache", 1}}, []step{{"cache", 4}})
	want = "cache:A cache:B cache:B cache:B cache:B"
	if got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}

func TestPlaces(t *testing.T) {
	var got []string
	for p := 0; p < 8; p++ {
		got = append(got, Owner(p).String())
	}
	if s := strings.Join(got, ""); s != "ABBAABBA" {
		t.Fatalf("owners %s", s)
	}
	for k := 0; k < 6; k++ {
		for _, s := range []Side{A, B} {
			if p := Place(s, k); Owner(p) != s || placesBefore(s, p) != k {
				t.Fatalf("%s's turn %d at place %d, owned by %s, after %d of its own", s, k, p, Owner(p), placesBefore(s, p))
			}
		}
	}
}

// TestCancelUnblocks: a run waiting for the token or for a turn returns
// once the context ends.
func TestCancelUnblocks(t *testing.T) {
	turns := New(nil)
	ctx, cancel := context.WithCancel(context.Background())
	errs := make(chan error, 2)
	// B waits for the token, which A holds and never lets go.
	go func() { errs <- turns.Start(ctx, B) }()
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-errs:
		t.Fatalf("B started while A holds the token: %v", err)
	default:
	}
	cancel()
	select {
	case err := <-errs:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("B's start: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("B's start still waits after the cancel")
	}

	// A takes its first turn and waits for B's two, which never come.
	turns = New(nil)
	ctx, cancel = context.WithCancel(context.Background())
	if err := turns.Take(ctx, A, "ttft"); err != nil {
		t.Fatal(err)
	}
	go func() { errs <- turns.Take(ctx, A, "ttft") }()
	time.Sleep(20 * time.Millisecond)
	select {
	case err := <-errs:
		t.Fatalf("A's second turn came before B's: %v", err)
	default:
	}
	cancel()
	select {
	case err := <-errs:
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("A's turn: %v", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("A's turn still waits after the cancel")
	}
}

// TestNamesWithinAStep: a name the order does not list whose first word
// is a step of the order ranks right after that step: B, which skipped
// prefix and waits in audio, has not left audio behind A, whose names
// within prefix come before it.
func TestNamesWithinAStep(t *testing.T) {
	got := play(t, []string{"prefix", "audio"},
		[]step{{"prefix front", 2}, {"prefix end", 2}, {"audio", 2}}, []step{{"audio", 2}})
	want := "prefix front:A prefix front:A prefix end:A prefix end:A audio:A audio:B audio:B audio:A"
	if got != want {
		t.Fatalf("order\n got %s\nwant %s", got, want)
	}
}
