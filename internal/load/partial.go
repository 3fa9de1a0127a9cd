package load

import (
	"math"
	"sort"

	"ttftlab/internal/artifact"
)

// FinishInterrupted completes the load.json of a run that was stopped
// (Ctrl-C) in the middle of a level: scripts/load.lua writes a level's
// record once the level ends, so the level that was running has only its
// rows in requests.jsonl. The rows of the first level of the settings
// that doc has no record of become that level's record, marked
// Interrupted, computed as load.lua computes a level's (summary, SLO
// verdicts, goodput); the requests the stop canceled count as failed, of
// kind canceled. The capacity is then the highest level whose SLOs held,
// an interrupted level never. It reports whether it added a level; with
// no row of a missing level there is nothing to add and doc keeps its
// levels (its capacity is still set).
func FinishInterrupted(doc *artifact.Load, rows []artifact.LoadRequest) bool {
	done := map[float64]bool{}
	for _, l := range doc.Levels {
		done[l.Level] = true
	}
	added := false
	for _, level := range doc.Settings.Levels {
		if done[level] {
			continue
		}
		var mine []artifact.LoadRequest
		for _, r := range rows {
			if r.Level == level {
				mine = append(mine, r)
			}
		}
		if len(mine) > 0 {
			doc.Levels = append(doc.Levels, LevelOf(doc.Settings, level, mine, true))
			added = true
		}
		break
	}
	doc.Capacity = capacityOf(doc.Levels)
	return added
}

// capacityOf is load.lua's capacity: the highest level whose SLOs hold,
// with the level after it.
func capacityOf(levels []artifact.LoadLevel) *artifact.Capacity {
	var c *artifact.Capacity
	for i, l := range levels {
		if !l.SLOMet || l.Interrupted {
			continue
		}
		c = &artifact.Capacity{Level: l.Level}
		if i+1 < len(levels) {
			c.Next = &artifact.CapacityNext{Level: levels[i+1].Level, SLO: levels[i+1].SLO}
		}
	}
	return c
}

// LevelOf is the record of one level computed from its rows as load.lua
// computes it (summary, SLO verdicts, goodput, slo_met: every SLO met
// and no request failed); an interrupted level never meets its SLOs.
// What a row does not keep is left out (rowSummary); the lateness trends
// (steady, over_saturated) are not computed here.
func LevelOf(set artifact.LoadSettings, level float64, rows []artifact.LoadRequest, interrupted bool) artifact.LoadLevel {
	l := artifact.LoadLevel{Level: level, Interrupted: interrupted, SLO: []artifact.SLOVerdict{}}
	lv := level
	if set.Mode == "rate" {
		l.Rate = &lv
	} else {
		l.Concurrency = &lv
	}
	l.Summary = rowSummary(rows, set.Turns, set.TTS != nil)
	good, counted := 0, 0
	for _, r := range rows {
		if r.Warmup {
			continue
		}
		counted++
		if meets(r, set.SLO) {
			good++
		}
	}
	if counted > 0 {
		l.Goodput = artifact.Num(float64(good) / float64(counted))
	}
	met := true
	for _, s := range set.SLO {
		v := verdict(s, rows)
		met = met && v.Met
		l.SLO = append(l.SLO, v)
	}
	l.SLOMet = met && l.Summary.Failed == 0 && !interrupted
	return l
}

// value is a row's figure for an SLO; ok false when it failed or never
// reached it (late: true when it failed).
func value(r artifact.LoadRequest, metric string) (v float64, ok, failed bool) {
	if r.ErrorKind != nil {
		return 0, false, true
	}
	p := r.Metric(metric)
	if p == nil {
		return 0, false, false
	}
	return *p, true, false
}

// meets says whether a row meets every SLO limit (goodput), as
// load.lua's meets does.
func meets(r artifact.LoadRequest, slos []artifact.SLO) bool {
	if r.ErrorKind != nil {
		return false // a failed request is good under no SLO, also under none
	}
	for _, s := range slos {
		if v, ok, _ := value(r, s.Metric); !ok || v > s.LimitMs {
			return false
		}
	}
	return true
}

// verdict checks one SLO on the rows as load.lua's level_slo does: the
// percentile over every request (warm-up left out), a failed or missing
// figure infinitely late, no value when the percentile falls on one.
func verdict(s artifact.SLO, rows []artifact.LoadRequest) artifact.SLOVerdict {
	out := artifact.SLOVerdict{Metric: s.Metric, Percentile: s.Percentile, LimitMs: s.LimitMs}
	var xs []float64
	for _, r := range rows {
		if r.Warmup {
			continue
		}
		out.N++
		switch v, ok, failed := value(r, s.Metric); {
		case ok:
			xs = append(xs, v)
		case failed:
			out.Failed++
		default:
			out.Missing++
		}
	}
	if v, ok := latePercentile(xs, out.Failed+out.Missing, s.Percentile); ok {
		out.ValueMs = artifact.Ms(v)
		out.Met = v <= s.LimitMs
	}
	return out
}

// latePercentile is load.lua's late_percentile: the p-th percentile of xs
// with late more values that are infinitely late, none when it falls on
// or between late ones.
func latePercentile(xs []float64, late int, p float64) (float64, bool) {
	n := len(xs) + late
	if n == 0 {
		return 0, false
	}
	sort.Float64s(xs)
	h := 1 + float64(n-1)*p/100
	lo := int(math.Floor(h))
	frac := h - float64(lo)
	if lo > len(xs) || (frac > 0 && lo+1 > len(xs)) {
		return 0, false
	}
	if frac == 0 {
		return xs[lo-1], true
	}
	return xs[lo-1] + frac*(xs[lo]-xs[lo-1]), true
}

// rowSummary is stream_many's summary and the calls module's additions,
// from recorded rows: what a row does not keep (chunk gaps, cuts, an
// http failure's status) is left out, gap_ms has n = 0. With tts the
// answers were spoken: first_audio_ms and underrun_ms are over the rows
// that have them. The duration runs from the rows' stream_many start to
// the last end (start_ms + total_ms): rows of one stream_many only.
func rowSummary(rows []artifact.LoadRequest, turns int, tts bool) artifact.LevelSummary {
	var s artifact.LevelSummary
	var ttft, first, total, queue, stall, audio, underrun []float64
	var failures []artifact.Failure
	end := 0.0
	calls := map[int]bool{}
	f := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	for _, r := range rows {
		calls[r.Call] = true
		if r.StartMs != nil && r.TotalMs != nil {
			end = max(end, *r.StartMs+*r.TotalMs)
		}
		if r.Warmup {
			s.Warmup++
			continue
		}
		s.Requests++
		if r.ErrorKind == nil {
			s.OK++
			total = append(total, f(r.TotalMs))
		} else {
			s.Failed++
			msg := ""
			if r.Error != nil {
				msg = *r.Error
			}
			failures = append(failures, artifact.Failure{Kind: *r.ErrorKind, N: 1, Example: msg})
		}
		ttft = append(ttft, f(r.TTFTMs))
		first = append(first, f(r.FirstSentenceMs))
		queue = append(queue, f(r.QueueMs))
		stall = append(stall, f(r.StallMs))
		audio = append(audio, f(r.FirstAudioMs))
		underrun = append(underrun, f(r.UnderrunMs))
	}
	s.Failures = artifact.CountFailures(failures)
	setSpan(&s, rows, end)
	s.TTFTMs = Summarize(ttft).Record(artifact.OverTTFT)
	s.FirstSentenceMs = Summarize(first).Record(artifact.OverFirstSentence)
	s.TotalMs = Summarize(total).Record(artifact.OverTotal)
	s.GapMs = Summarize(nil).Record(artifact.OverGap)
	s.QueueMs = Summarize(queue).Record(artifact.OverQueue)
	s.StallMs = Summarize(stall).Record(artifact.OverStall)
	if tts {
		a, u := Summarize(audio).Record(artifact.OverFirstAudio), Summarize(underrun).Record(artifact.OverUnderrun)
		s.FirstAudioMs, s.UnderrunMs = &a, &u
	}
	s.Calls = len(calls)
	s.ByTurn = byTurn(rows, turns)
	return s
}

// setSpan sets the summary's duration to spanMs and its rates over it:
// the requests that ended without an error, and the tokens of every
// request that is not warm-up (predicted_n, else its chunks), per second.
func setSpan(s *artifact.LevelSummary, rows []artifact.LoadRequest, spanMs float64) {
	tokens := 0.0
	for _, r := range rows {
		switch {
		case r.Warmup:
		case r.PredictedN != nil:
			tokens += *r.PredictedN
		default:
			tokens += float64(r.Chunks)
		}
	}
	s.DurationMs, s.RequestsPerS, s.TokensPerS = 0, nil, nil
	if d := artifact.Ms(spanMs); d != nil {
		s.DurationMs = *d
	}
	if secs := s.DurationMs / 1000; secs > 0 {
		s.RequestsPerS = artifact.Num(float64(s.OK) / secs)
		s.TokensPerS = artifact.Num(tokens / secs)
	}
}

// byTurn is calls.by_turn from rows: per turn number, over its requests
// that ended without an error.
func byTurn(rows []artifact.LoadRequest, turns int) []artifact.TurnSummary {
	out := []artifact.TurnSummary{}
	for k := 1; k <= turns; k++ {
		t := artifact.TurnSummary{Turn: k}
		var ttft, first, promptN, cacheN []float64
		for _, r := range rows {
			if r.Turn != k || r.Warmup || r.ErrorKind != nil {
				continue
			}
			t.N++
			for _, c := range []struct {
				p  *float64
				to *[]float64
			}{{r.TTFTMs, &ttft}, {r.FirstSentenceMs, &first}, {r.PromptN, &promptN}, {r.CacheN, &cacheN}} {
				if c.p != nil {
					*c.to = append(*c.to, *c.p)
				}
			}
		}
		t.TTFTMs, t.FirstSentenceMs, t.PromptN, t.CacheN = stats(ttft), stats(first), stats(promptN), stats(cacheN)
		out = append(out, t)
	}
	return out
}

// stats is stats.summary's record of xs, nil when xs is empty.
func stats(xs []float64) *artifact.Stats {
	if len(xs) == 0 {
		return nil
	}
	sort.Float64s(xs)
	sum := 0.0
	for _, x := range xs {
		sum += x
	}
	return &artifact.Stats{N: len(xs), Min: xs[0], P50: Percentile(xs, 50), P90: Percentile(xs, 90), P99: Percentile(xs, 99),
		Max: xs[len(xs)-1], Mean: sum / float64(len(xs))}
}
