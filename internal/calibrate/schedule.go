package calibrate

import (
	"fmt"
	"time"
)

// Schedule is when the server sends content chunks.
type Schedule struct {
	// Rate is content chunks per second; 0 sends as fast as the socket
	// takes them.
	Rate float64 `json:"rate"`
	// Chunks is the number of content chunks.
	Chunks int `json:"chunks"`
	// Burst is how many chunks share one write (and so one TCP segment
	// while they fit in one); 1 is a steady stream.
	Burst int `json:"burst"`
}

// Name labels the schedule in tables, e.g. "steady 1000/s" or
// "burst 50 x 100/s".
func (s Schedule) Name() string {
	switch {
	case s.Rate == 0 && s.Burst <= 1:
		return "unpaced"
	case s.Rate == 0:
		return fmt.Sprintf("burst %d unpaced", s.Burst)
	case s.Burst <= 1:
		return fmt.Sprintf("steady %g/s", s.Rate)
	}
	return fmt.Sprintf("burst %d x %g/s", s.Burst, s.Rate/float64(s.Burst))
}

// Writes is the number of writes that carry content chunks.
func (s Schedule) Writes() int {
	b := s.burstSize()
	return (s.Chunks + b - 1) / b
}

// Gap is the time between two writes (0 when unpaced).
func (s Schedule) Gap() time.Duration {
	if s.Rate <= 0 {
		return 0
	}
	return time.Duration(float64(s.burstSize()) / s.Rate * float64(time.Second))
}

// Duration is how long the content takes to send on schedule.
func (s Schedule) Duration() time.Duration { return time.Duration(s.Writes()) * s.Gap() }

func (s Schedule) burstSize() int { return max(s.Burst, 1) }

// Validate rejects schedules the server cannot send.
func (s Schedule) Validate() error {
	switch {
	case s.Chunks < 1:
		return fmt.Errorf("a schedule needs at least 1 chunk, got %d", s.Chunks)
	case s.Rate < 0:
		return fmt.Errorf("the rate must be 0 (unpaced) or positive, got %g", s.Rate)
	case s.Burst < 1:
		return fmt.Errorf("a burst needs at least 1 chunk per write, got %d", s.Burst)
	case s.Burst > maxBurst:
		return fmt.Errorf("a burst of %d chunks per write is more than the %d that fit one write buffer", s.Burst, maxBurst)
	}
	return nil
}

// Steady sends one chunk per write, rate chunks per second, for about
// seconds.
func Steady(rate float64, seconds float64) Schedule {
	return Schedule{Rate: rate, Chunks: max(int(rate*seconds), 10), Burst: 1}
}

// Defaults are the schedules `ttftlab calibrate` runs: steady streams from
// far slower than any server to far faster, and bursts in which many
// chunks share one write, as when a client falls behind or a proxy
// buffers. About 17 s in all.
func Defaults() []Schedule {
	return []Schedule{
		Steady(10, 3),
		Steady(100, 3),
		Steady(1000, 3),
		Steady(5000, 2),
		Steady(20000, 2),
		{Rate: 5000, Chunks: 10000, Burst: 50},
		{Rate: 10000, Chunks: 10000, Burst: 200},
	}
}
