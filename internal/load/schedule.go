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
// exponential gaps of mean 1/rate drawn from the seed (Poisson), both on
// the ramp's warped clock when the plan has one (Ramp); a Schedule's
// starts (at most n). The same plan gives the same times on every
// machine. A closed loop has none (nil): its calls are due when a place
// comes free.
func (p Plan) Arrivals(n int) []time.Duration {
	if s := p.Schedule; s != nil {
		return append([]time.Duration(nil), s.Starts[:min(n, len(s.Starts))]...)
	}
	a := p.newArrivals()
	if a == nil {
		return nil
	}
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
	ramp    Ramp            // its warped clock, when its Duration is above 0
	fixed   []time.Duration // a Schedule's starts, instead of a rate's
	i       int             // calls handed out
	base    time.Duration   // the next call's due time on the level's own clock
	at      time.Duration   // and on the ramp's
}

// newArrivals is an open loop's arrivals (nil for a closed loop).
func (p Plan) newArrivals() *arrivals {
	switch {
	case p.Schedule != nil:
		a := &arrivals{fixed: p.Schedule.Starts}
		if len(a.fixed) > 0 {
			a.at = a.fixed[0]
		}
		return a
	case p.Rate <= 0:
		return nil
	}
	return &arrivals{rate: p.Rate, arrival: p.Arrival, ramp: p.Ramp, rng: rand.New(rand.NewPCG(p.Seed, p.Seed^0x9e3779b97f4a7c15))}
}

// peek is the due time of the next call.
func (a *arrivals) peek() time.Duration { return a.at }

// next returns the due time of the next call and advances.
func (a *arrivals) next() time.Duration {
	d := a.at
	a.i++
	switch {
	case a.fixed != nil:
		a.at = a.fixed[min(a.i, len(a.fixed)-1)] // past the last call: never due (Plan.Calls)
		return d
	case a.arrival == Poisson:
		a.base += time.Duration(-math.Log(1-a.rng.Float64()) / a.rate * float64(time.Second))
	default:
		a.base = time.Duration(float64(a.i) / a.rate * float64(time.Second))
	}
	a.at = a.ramp.at(a.base)
	return d
}

// rampExp is a in an exponential ramp's rate R x e^(a(t/D - 1)): 1 % of
// R at its start.
var rampExp = math.Log(100)

// at is when an arrival due at x on the level's own clock (rate R from the
// start) is due under the ramp: the moment t whose expected arrivals
// under the ramp, Λ(t) = ∫ r, are R x x. Linear, r(t) = R t/D: Λ(t) =
// R t²/2D, t = √(2Dx) while x < D/2; exponential, r(t) = R e^(a(t/D-1)):
// Λ(t) = R D/a (e^(a(t/D-1)) - e^-a), t = D (1 + ln(a x/D + e^-a)/a)
// while x < D (1 - e^-a)/a; after the ramp (t >= D) the rate is R, so t is
// D plus x past the ramp's share, Λ(D)/R.
func (r Ramp) at(x time.Duration) time.Duration {
	if r.Duration <= 0 {
		return x
	}
	d, v := float64(r.Duration), float64(x)
	share := d / 2
	if r.Shape == RampExp {
		share = d * (1 - math.Exp(-rampExp)) / rampExp
	}
	if v >= share {
		return r.Duration + time.Duration(v-share)
	}
	if r.Shape == RampExp {
		return time.Duration(max(0, d*(1+math.Log(rampExp*v/d+math.Exp(-rampExp))/rampExp)))
	}
	return time.Duration(math.Sqrt(2 * d * v))
}

// opens is when place k (from 1) of n places of a closed loop opens under
// the ramp: place 1 at once, place k at the moment the shape reaches k/n
// (linear: k/n x D; exponential: D (1 + ln(k/n)/a), at least 0), so the
// last opens at the ramp's end.
func (r Ramp) opens(k, n int) time.Duration {
	if r.Duration <= 0 || k <= 1 {
		return 0
	}
	d, f := float64(r.Duration), float64(k)/float64(n)
	if r.Shape == RampExp {
		return time.Duration(max(0, d*(1+math.Log(f)/rampExp)))
	}
	return time.Duration(d * f)
}

// turnsOf is how many turns call (from 1) makes: the Schedule's, else
// Plan.Turns.
func (p Plan) turnsOf(call int) int {
	if s := p.Schedule; s != nil && call >= 1 && call <= len(s.Turns) {
		return s.Turns[call-1]
	}
	return p.Turns
}

// steadyCalls is how many calls of a closed loop start in steady state
// (Plan.SteadyStart): those in progress at the start, the first
// min(Concurrency, Calls); none in an open loop or with one turn.
func (p Plan) steadyCalls() int {
	if !p.SteadyStart || p.Turns <= 1 || p.Rate > 0 || p.Schedule != nil {
		return 0
	}
	n := p.Calls
	if p.Concurrency > 0 && (n == 0 || p.Concurrency < n) {
		n = p.Concurrency
	}
	return n
}

// SteadyTurn is the turn call (from 1), first due at due, starts at
// (Plan.SteadyStart; 1 otherwise): in a closed loop, call i of the
// first min(Concurrency, Calls) at turn 1 + (i-1) mod Turns; in an open
// loop, a call arriving at a before L = (Turns-1) x Think.Min (one call's
// thinking, its length but for its answers) at turn 1 + floor((1 - a/L)
// x (Turns-1)), as far into its call as a call that began at 0 would be.
func (p Plan) SteadyTurn(call int, due time.Duration) int {
	switch {
	case !p.SteadyStart || p.Turns <= 1 || p.Schedule != nil:
		return 1
	case p.Rate <= 0:
		if call <= p.steadyCalls() {
			return 1 + (call-1)%p.Turns
		}
		return 1
	}
	l := time.Duration(p.Turns-1) * p.Think.Min
	if due >= l {
		return 1
	}
	// floor((1 - a/L)(Turns-1)) = floor((L-a)(Turns-1)/L), in whole ns.
	return 1 + int((l-due)*time.Duration(p.Turns-1)/l)
}

// SteadyDue is when the first request of call (from 1) of a closed loop
// that starts in steady state is due: a draw in [0, Think.Min) that
// depends on the seed and the call alone, so the calls' first requests
// spread over one think time rather than all come at once.
func (p Plan) SteadyDue(call int) time.Duration {
	h := fnv.New64a()
	var b [9]byte
	b[0] = 's'
	binary.LittleEndian.PutUint64(b[1:], uint64(call))
	h.Write(b[:])
	u := rand.New(rand.NewPCG(p.Seed, h.Sum64())).Float64()
	return time.Duration(u * float64(p.Think.Min))
}
