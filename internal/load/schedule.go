package load

import (
	"encoding/binary"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"time"
)

// Arrival is how an open loop spaces its calls.
type Arrival string

// Arrivals.
const (
	// Constant starts call i at (i-1)/rate.
	Constant Arrival = "constant"
	// Poisson draws exponential gaps of mean 1/rate, from a seeded source,
	// as calls arriving independently do.
	Poisson Arrival = "poisson"
)

// ParseArrival reads an arrival name.
func ParseArrival(s string) (Arrival, error) {
	switch Arrival(s) {
	case Constant, Poisson:
		return Arrival(s), nil
	case "":
		return Constant, nil
	}
	return "", fmt.Errorf("unknown arrival %q: want %q or %q", s, Constant, Poisson)
}

// Think is the caller's pause between the end of a turn and the next turn
// of the same call: Min, or, when Max is above Min, a uniform draw in
// [Min, Max) that depends on the plan's seed, the call and the turn alone;
// Func, when set, gives it instead (it runs on the goroutine of Run).
type Think struct {
	Min, Max time.Duration
	Func     func(call, turn int) (time.Duration, error)
}

// Arrivals returns when each of the first n calls of an open loop is due,
// since the run began: call i at (i-1)/rate (Constant), or after
// exponential gaps of mean 1/rate drawn from the seed (Poisson). The same
// rate, arrival and seed give the same times on every machine. A closed
// loop has none (nil): its calls are due when a place comes free.
func (p Plan) Arrivals(n int) []time.Duration {
	if p.Rate <= 0 {
		return nil
	}
	a := newArrivals(p.Rate, p.Arrival, p.Seed)
	out := make([]time.Duration, n)
	for i := range out {
		out[i] = a.next()
	}
	return out
}

// ThinkTime is the pause before turn (from 2) of call (from 1): see
// Think. Drawn from the seed, the call and the turn, it does not depend on
// the order in which the run's turns end.
func (p Plan) ThinkTime(call, turn int) (time.Duration, error) {
	t := p.Think
	switch {
	case t.Func != nil:
		return t.Func(call, turn)
	case t.Max <= t.Min:
		return t.Min, nil
	}
	u := rand.New(rand.NewPCG(p.Seed, thinkStream(call, turn))).Float64()
	return t.Min + time.Duration(u*float64(t.Max-t.Min)), nil
}

// CallDraw is call's (from 1) own uniform draw in [0, 1): it depends on
// the plan's seed and the call alone, so the same seed gives every call
// the same draw on every machine and in every order of events. A script
// uses it to let its callers differ (calls.lua picks each call's lines
// with it) without a random source of its own.
func (p Plan) CallDraw(call int) float64 {
	h := fnv.New64a()
	var b [9]byte
	b[0] = 'c'
	binary.LittleEndian.PutUint64(b[1:], uint64(call))
	h.Write(b[:])
	return rand.New(rand.NewPCG(p.Seed, h.Sum64())).Float64()
}

// thinkStream names the random stream of one call's turn.
func thinkStream(call, turn int) uint64 {
	h := fnv.New64a()
	var b [17]byte
	b[0] = 't'
	binary.LittleEndian.PutUint64(b[1:], uint64(call))
	binary.LittleEndian.PutUint64(b[9:], uint64(turn))
	h.Write(b[:])
	return h.Sum64()
}

// arrivals gives the due time of each call of an open loop in turn.
type arrivals struct {
	rate    float64
	arrival Arrival
	rng     *rand.Rand
	i       int // calls handed out
	at      time.Duration
}

func newArrivals(rate float64, arrival Arrival, seed uint64) *arrivals {
	return &arrivals{rate: rate, arrival: arrival, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// peek is the due time of the next call.
func (a *arrivals) peek() time.Duration { return a.at }

// next returns the due time of the next call and advances.
func (a *arrivals) next() time.Duration {
	d := a.at
	a.i++
	if a.arrival == Poisson {
		a.at = d + time.Duration(-math.Log(1-a.rng.Float64())/a.rate*float64(time.Second))
	} else {
		a.at = time.Duration(float64(a.i) / a.rate * float64(time.Second))
	}
	return d
}
