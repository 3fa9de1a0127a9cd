package load

import (
	"math"
	"sort"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interval"
)

// A run until decided (settings.until_decided) gives each level further
// rounds, of the level's calls with the same pacing, until the verdicts
// of its record (Level, over every round) are decided or its budget is
// spent; MoreToDecide then says what would decide each one left.

// What ended a level run until decided (artifact.LevelDecision.Ended).
const (
	EndedDecided       = "decided"
	EndedFailed        = "failed"
	EndedOverSaturated = "over-saturated"
	EndedBudget        = "budget"
	EndedInterrupted   = "interrupted"
	// EndedRunning is a level whose rounds go on, in a load.json saved
	// between them.
	EndedRunning = "running"
)

// settled says whether a level's record needs no further round, and why
// (an Ended constant; "" when it does): a request that failed or an
// over-saturation settle it (it cannot hold whatever more rounds show);
// else every SLO verdict decided, its interval wholly on one side of its
// limit, or, in a search (level), one decided above its limit, which
// settles the level's verdict.
func settled(l artifact.LoadLevel, level bool) string {
	switch {
	case l.OverSaturated != nil:
		return EndedOverSaturated
	case l.Summary.Failed > 0:
		return EndedFailed
	}
	all, above := true, false
	for _, v := range l.SLO {
		all = all && v.Side != string(Straddles)
		above = above || v.Side == string(Above)
	}
	if all || level && above {
		return EndedDecided
	}
	return ""
}

// undecided are a level's SLO verdicts whose interval holds the limit,
// each with MoreToDecide's count.
func undecided(l artifact.LoadLevel) []artifact.UndecidedSLO {
	out := []artifact.UndecidedSLO{}
	for _, v := range l.SLO {
		if v.Side == string(Straddles) {
			out = append(out, MoreToDecide(v))
		}
	}
	return out
}

// mostRequests caps MoreToDecide's count: past it the value is so close
// to its limit that no run would decide it.
const mostRequests = 1 << 30

// MoreToDecide is how many more requests would decide an SLO verdict
// whose interval holds its limit (Side "straddles"), by this rule: the
// interval's half-width on the limit's side of the value (hi - value when
// the value is within the limit, value - lo when it is above) shrinks as
// 1/sqrt(n), so it clears the limit at n' = n x (half-width / |value -
// limit|)^2 requests; the count is n' - n, rounded up, at least 1. When
// that side has no bound yet (too few requests for the percentile: a p95
// needs 72 for an upper one), the count is the fewest requests that give
// it one, less n, AtLeast. No count (null, Why) when the value falls on
// a failed or missing request, sits exactly at the limit, when the bound
// needed falls on one, or when the count would pass mostRequests.
func MoreToDecide(v artifact.SLOVerdict) artifact.UndecidedSLO {
	u := artifact.UndecidedSLO{Metric: v.Metric, Percentile: v.Percentile, LimitMs: v.LimitMs, N: v.N}
	var lo, hi *float64
	if v.CIMs != nil {
		lo, hi = v.CIMs[0], v.CIMs[1]
	}
	loRank, hiRank, _ := interval.PercentileRanks(v.N, v.Percentile, interval.Level)
	count := func(n float64) {
		if n > mostRequests {
			u.Why = "the value is too close to the limit for any run to decide it"
			return
		}
		more := max(1, int(math.Ceil(n-float64(v.N)-1e-9)))
		u.MoreRequests = &more
	}
	switch {
	case v.ValueMs == nil:
		u.Why = "the percentile falls on a failed or missing request"
	case *v.ValueMs == v.LimitMs:
		u.Why = "the value sits at the limit: no number of requests moves its interval off it"
	case *v.ValueMs < v.LimitMs && hiRank == 0, *v.ValueMs > v.LimitMs && loRank == 0:
		n := boundedFrom(v.N, v.Percentile, *v.ValueMs < v.LimitMs)
		more := n - v.N
		u.MoreRequests, u.AtLeast = &more, true
	case *v.ValueMs < v.LimitMs && hi == nil:
		u.Why = "the interval's upper bound falls on a failed or missing request"
	case *v.ValueMs < v.LimitMs:
		count(float64(v.N) * math.Pow((*hi-*v.ValueMs)/(v.LimitMs-*v.ValueMs), 2))
	case lo == nil:
		u.Why = "the interval has no lower bound" // not reached: a rank gives a finite one
	default:
		count(float64(v.N) * math.Pow((*v.ValueMs-*lo)/(*v.ValueMs-v.LimitMs), 2))
	}
	return u
}

// boundedFrom is the fewest requests, more than n, at which the p-th
// percentile's interval (interval.PercentileRanks) has an upper bound
// (upper) or a lower one.
func boundedFrom(n int, p float64, upper bool) int {
	has := func(m int) bool {
		lo, hi, _ := interval.PercentileRanks(m, p, interval.Level)
		if upper {
			return hi > 0
		}
		return lo > 0
	}
	most := max(2*n, 64)
	for !has(most) && most < mostRequests {
		most *= 2
	}
	// The first m in (n, most] that has it: a side once bounded stays so
	// as m grows.
	return n + 1 + sort.Search(most-n, func(i int) bool { return has(n + 1 + i) })
}

// rounds are the rounds a level run until decided has run so far: their
// rows in order and what each round's extras add up to.
type rounds struct {
	// at is the level's record's place in the record's levels.
	at   int
	n    int
	rows []artifact.LoadRequest
	// calls is the highest call number of rows.
	calls int
	// spentMs is the rounds' time so far, lastMs the last one's.
	spentMs, lastMs float64
	first           LevelExtras
	cpuMs, readerMs float64
	waitMs, runs    float64
	clientKnown     bool
	waitKnown       bool
	ttsMs, sttMs    *float64
	over            *artifact.LevelTrend
}

// add takes a round's result.
func (a *rounds) add(res RoundResult) {
	x := res.Extras
	span := 0.0
	if x.DurationMs != nil {
		span = *x.DurationMs
	} else {
		for _, r := range res.Rows {
			if r.StartMs != nil && r.TotalMs != nil {
				span = max(span, *r.StartMs+*r.TotalMs)
			}
		}
	}
	a.n++
	if a.n == 1 {
		a.first, a.clientKnown, a.waitKnown = x, x.Client != nil, true
	}
	// Each round numbers its calls from 1: after the first, a round's
	// calls are numbered on from the rounds' before it, so the level's
	// record counts (and tells apart) every call of every round.
	base := a.calls
	for _, r := range res.Rows {
		r.Call += base
		a.calls = max(a.calls, r.Call)
		a.rows = append(a.rows, r)
	}
	a.spentMs += span
	a.lastMs = span
	if c := x.Client; c != nil && a.clientKnown {
		a.cpuMs += c.CPUMs
		a.readerMs += c.ReaderCPUMs
		if c.ReaderWaitMs != nil && c.ReaderRuns != nil {
			a.waitMs += *c.ReaderWaitMs
			a.runs += *c.ReaderRuns
		} else {
			a.waitKnown = false
		}
	} else {
		a.clientKnown = false
	}
	if x.TTSCPUMs != nil {
		a.ttsMs = addCPU(a.ttsMs, *x.TTSCPUMs)
	}
	if x.STTCPUMs != nil {
		a.sttMs = addCPU(a.sttMs, *x.STTCPUMs)
	}
	if x.OverSaturated != nil {
		a.over = x.OverSaturated
	}
}

// extras are the level's extras over its rounds: the first round's
// start; the rounds' time, client CPU and speech CPU summed (the client
// on one machine: its cores, its share of them over that time); the
// over-saturation of the round that found it; the rows ordered by their
// start in the run (run_ms), as each round numbers its own from 1. One
// round's are its own.
func (a *rounds) extras() LevelExtras {
	if a.n == 1 {
		return a.first
	}
	x := LevelExtras{StartedUnixMs: a.first.StartedUnixMs, DurationMs: &a.spentMs, OverSaturated: a.over, TTSCPUMs: a.ttsMs, STTCPUMs: a.sttMs}
	if c := a.first.Client; a.clientKnown && c != nil {
		x.Client = &artifact.ClientUse{Cores: c.Cores, CPUMs: a.cpuMs, ReaderCPUMs: a.readerMs}
		if a.waitKnown {
			x.Client.ReaderWaitMs, x.Client.ReaderRuns = artifact.Num(a.waitMs), artifact.Num(a.runs)
		}
		if a.spentMs > 0 && c.Cores > 0 {
			x.Client.Busy = a.cpuMs / (a.spentMs * float64(c.Cores))
		}
	}
	x.Starts = make([]float64, len(a.rows))
	for i, r := range a.rows {
		x.Starts[i] = math.NaN()
		if r.RunMs != nil {
			x.Starts[i] = *r.RunMs
		}
	}
	return x
}
