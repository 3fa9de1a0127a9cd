package load

import (
	"fmt"
	"math"
	"math/rand/v2"
	"time"
)

// Arrival is how an open loop spaces its starts.
type Arrival string

// Arrivals.
const (
	// Constant starts request i at i/rate.
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

// schedule gives the due time of each start of an open loop, since the run
// began; the same rate, arrival and seed always give the same times.
type schedule struct {
	rate    float64
	arrival Arrival
	rng     *rand.Rand
	next    time.Duration
	i       int
}

func newSchedule(rate float64, arrival Arrival, seed uint64) *schedule {
	return &schedule{rate: rate, arrival: arrival, rng: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))}
}

// due returns the due time of the next start and advances.
func (s *schedule) due() time.Duration {
	d := s.next
	gap := 1 / s.rate
	if s.arrival == Poisson {
		gap = -math.Log(1-s.rng.Float64()) / s.rate
	}
	s.i++
	s.next = d + time.Duration(gap*float64(time.Second))
	return d
}
