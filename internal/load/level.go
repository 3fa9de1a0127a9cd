package load

import (
	"math"
	"sort"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interval"
)

// LevelExtras is what a level's record needs that its rows do not hold.
type LevelExtras struct {
	// StartedUnixMs is the wall clock at the level's start (its
	// stream_many's, the earliest shard's in a merge); nil when unknown.
	StartedUnixMs *float64
	// DurationMs is the level's span, over which its rates count; nil:
	// from the rows' start to the last end (start_ms + total_ms), rows of
	// one stream_many.
	DurationMs *float64
	// Client is what the level cost the machine (or, in a merge, the
	// machines) that ran it; nil when unknown.
	Client *artifact.ClientUse
	// OverSaturated is the trend that ended the level early; nil when it
	// ran to its end.
	OverSaturated *artifact.LevelTrend
	// Interrupted: the run was stopped in the level (Ctrl-C, a file that
	// could not be written, a shard that stopped in it).
	Interrupted bool
	// DueUnixMs is when a sharded run's level was due on the wall clock.
	DueUnixMs *float64
	// TTSCPUMs is the CPU the default speech engine's processes used over
	// the level; nil without that engine.
	TTSCPUMs *float64
	// STTCPUMs is the CPU the default speech-to-text engine's decoders
	// used over the level; nil without that engine.
	STTCPUMs *float64
	// Starts are each row's start on the wall clock, in the order of the
	// rows, when they come from several machines (a merge): the order of
	// the steady trend, an unknown start (NaN) last. Nil: the rows' index
	// order, that of one stream_many.
	Starts []float64
}

// Level is the record of one level made from its rows (every request it
// recorded, warm-up included) and x: its steady window (SteadyWindow:
// the transient before it is left out of every figure below, as warm-up
// is), the summary (stream_many's figures, the calls and each turn's),
// each SLO's verdict (the percentile over every request but warm-up and
// transient, a failed or missing figure infinitely late),
// the goodput, slo_met (every SLO met, no request failed, neither
// over-saturated nor interrupted), the steady trend of the first SLO's
// lateness, and the cost of speech per second of audio. Its times are to
// the microsecond, as every artifact writes times (x's too). A normal
// run, a stopped one and a merge all make their levels here.
func Level(set artifact.LoadSettings, level float64, rows []artifact.LoadRequest, x LevelExtras) artifact.LoadLevel {
	l := artifact.LoadLevel{Level: level, Interrupted: x.Interrupted, SLO: []artifact.SLOVerdict{}, DueUnixMs: msOf(x.DueUnixMs)}
	window, transient := SteadyWindow(rows, x.Starts)
	if x.OverSaturated != nil || set.Mode == "trace" {
		// A queue that grew without end has no steady state to find, and
		// a replayed trace's load moves as the trace did, by design: its
		// first requests are part of what was replayed, not a warm-up.
		// Nothing is cut.
		window = artifact.SteadyWindow{Metric: window.Metric, Rule: window.Rule, Batch: window.Batch, Batches: window.Batches, FromRequest: 1}
		transient = make([]bool, len(rows))
	}
	l.SteadyWindow = &window
	calls := map[int]bool{}
	for _, r := range rows {
		calls[r.Call] = true
	}
	all := rows
	if window.LeftOut > 0 {
		// The transient is left out of every figure below, as warm-up
		// is; the calls and the span are the level's whole.
		rows = make([]artifact.LoadRequest, 0, len(all)-window.LeftOut)
		var starts []float64
		for i, r := range all {
			if transient[i] {
				continue
			}
			rows = append(rows, r)
			if x.Starts != nil {
				starts = append(starts, x.Starts[i])
			}
		}
		x.Starts = starts
	}
	lv := level
	switch set.Mode {
	case "rate":
		l.Rate = &lv
	case "trace":
		// The level is the replay's speed: neither calls at once nor a
		// rate.
	default:
		l.Concurrency = &lv
	}
	end := 0.0
	for _, r := range all {
		if r.StartMs != nil && r.TotalMs != nil {
			end = max(end, *r.StartMs+*r.TotalMs)
		}
	}
	span := end
	if x.DurationMs != nil {
		span = *x.DurationMs
	}
	l.Summary = SummaryOf(rows, set.Turns, span)
	l.Summary.Calls = len(calls)
	// Whether the client kept to its schedule is over every request,
	// the transient's too.
	overEvery(&l.Summary.ManySummary, all)
	l.Summary.StartedUnixMs = msOf(x.StartedUnixMs)
	if c := x.Client; c != nil {
		own := *c
		own.CPUMs, own.ReaderCPUMs, own.ReaderWaitMs = toMs(c.CPUMs), toMs(c.ReaderCPUMs), msOf(c.ReaderWaitMs)
		l.Summary.Client = &own
	}
	good, counted := 0, 0
	for _, r := range rows {
		if r.Warmup {
			continue
		}
		counted++
		if meets(r.Request, set.SLO) {
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
	l.SLOMet = met && l.Summary.Failed == 0 && !x.Interrupted && x.OverSaturated == nil
	if len(set.SLO) > 0 {
		t := LatenessTrend(set.SLO[0], rows, x.Starts)
		l.Steady = &t
	}
	l.OverSaturated = x.OverSaturated
	// An engine's CPU is over the whole level: so is its audio.
	l.TTSCPUMsPerAudioS = perAudioS(x.TTSCPUMs, audioMs(all, answerAudio))
	l.STTCPUMsPerAudioS = perAudioS(x.STTCPUMs, audioMs(all, callerAudio))
	return l
}

// answerAudio is the length of a row's answer as spoken (--tts);
// callerAudio that of its caller's audio sent to speech-to-text (--stt).
func answerAudio(r artifact.LoadRequest) *float64 { return r.AudioMs }
func callerAudio(r artifact.LoadRequest) *float64 { return r.CallerAudioMs }

// audioMs sums one audio length of the rows (of, nil where a row has none).
func audioMs(rows []artifact.LoadRequest, of func(artifact.LoadRequest) *float64) float64 {
	sum := 0.0
	for _, r := range rows {
		if a := of(r); a != nil {
			sum += *a
		}
	}
	return sum
}

// perAudioS is an engine's CPU over a level per second of its audio; nil
// without the CPU or without audio.
func perAudioS(cpuMs *float64, audioMs float64) *float64 {
	if cpuMs == nil || !(audioMs > 0) {
		return nil
	}
	return artifact.Num(*cpuMs / (audioMs / 1000))
}

// round is x to places decimals.
func round(x float64, places int) float64 {
	f := math.Pow(10, float64(places))
	return math.Round(x*f) / f
}

// msOf is a time to the microsecond, as every artifact writes times; nil
// for nil or a time that is not finite.
func msOf(x *float64) *float64 {
	if x == nil {
		return nil
	}
	return artifact.Ms(*x)
}

// toMs is a finite time to the microsecond.
func toMs(x float64) float64 {
	if p := artifact.Ms(x); p != nil {
		return *p
	}
	return x
}

// SummaryOf is the summary of a level's (a stream_many's) rows: the
// figures of summary(), the calls that ran and each turn number's
// figures (byTurn) of calls of turns turns (more when a row has a later
// turn: a replayed trace's calls differ).
func SummaryOf(rows []artifact.LoadRequest, turns int, durationMs float64) artifact.LevelSummary {
	calls := map[int]bool{}
	for _, r := range rows {
		calls[r.Call] = true
		turns = max(turns, r.Turn)
	}
	return artifact.LevelSummary{ManySummary: summary(rows, durationMs), Calls: len(calls), ByTurn: byTurn(rows, turns)}
}

// callOf is the call a row's values are grouped by for their intervals:
// its call (the schedule numbers them from 1), or, for a row that names
// none (0), a call of its own.
func callOf(r artifact.LoadRequest, i int) int {
	if r.Call > 0 {
		return r.Call
	}
	return -1 - i
}

// summary is stream_many's figures of its rows, over those that are not
// warm-up, its rates over durationMs. A figure a request does not have
// is left out of that figure's distribution: ttft_ms over requests with a
// first token, first_sentence_ms over those with a complete sentence,
// total_ms and stall_ms over those that ended without an error, gap_ms
// over every gap between two chunks, queue_ms over every request;
// first_audio_ms and underrun_ms only when some answer was spoken,
// mouth_to_ear_ms, stt_final_ms and endpointing_ms only when some caller
// spoke (each over the spoken turns that have it).
// Failures are counted by kind and status with one message each; the
// tokens are predicted_n, else the chunks. Each figure's intervals
// account for the correlation of one call's requests (Summarize).
// late_ms and ramp are over every row (overEvery).
func summary(rows []artifact.LoadRequest, durationMs float64) artifact.ManySummary {
	var ttft, first, total, gaps, queue, stall, audio, under, ear, final, endp []float64
	var ttftC, firstC, totalC, gapsC, queueC, stallC, audioC, underC, heardC []int
	spoke, listened := false, false
	var failures []artifact.Failure
	s := artifact.ManySummary{}
	tokens := 0.0
	f := func(p *float64) float64 {
		if p == nil {
			return math.NaN()
		}
		return *p
	}
	for i, r := range rows {
		if r.Warmup {
			s.Warmup++
			continue
		}
		call := callOf(r, i)
		s.Requests++
		if r.ErrorKind == nil {
			s.OK++
			total, totalC = append(total, f(r.TotalMs)), append(totalC, call)
		} else {
			s.Failed++
			msg := ""
			if r.Error != nil {
				msg = *r.Error
			}
			failures = append(failures, artifact.Failure{Kind: *r.ErrorKind, Status: r.ErrorStatus, N: 1, Example: msg})
		}
		if r.Cut {
			s.Cut++
		}
		ttft, ttftC = append(ttft, f(r.TTFTMs)), append(ttftC, call)
		first, firstC = append(first, f(r.FirstSentenceMs)), append(firstC, call)
		queue, queueC = append(queue, f(r.QueueMs)), append(queueC, call)
		stall, stallC = append(stall, f(r.StallMs)), append(stallC, call)
		if r.Spoken() {
			spoke = true
			audio, under = append(audio, f(r.FirstAudioMs)), append(under, f(r.UnderrunMs))
			audioC, underC = append(audioC, call), append(underC, call)
		}
		if r.Listened() {
			listened = true
			ear, final, endp = append(ear, f(r.MouthToEarMs)), append(final, f(r.SttFinalMs)), append(endp, f(r.EndpointingMs))
			heardC = append(heardC, call)
		}
		gaps = append(gaps, r.GapsMs...)
		for range r.GapsMs {
			gapsC = append(gapsC, call)
		}
		if r.PredictedN != nil {
			tokens += *r.PredictedN
		} else {
			tokens += float64(r.Chunks)
		}
	}
	s.Failures = artifact.CountFailures(failures)
	if d := artifact.Ms(durationMs); d != nil {
		s.DurationMs = *d
	}
	if secs := durationMs / 1000; secs > 0 {
		s.RequestsPerS = artifact.Num(float64(s.OK) / secs)
		s.TokensPerS = artifact.Num(tokens / secs)
	}
	s.TTFTMs = Summarize(ttft, ttftC).Record(artifact.OverTTFT)
	s.FirstSentenceMs = Summarize(first, firstC).Record(artifact.OverFirstSentence)
	s.TotalMs = Summarize(total, totalC).Record(artifact.OverTotal)
	s.GapMs = Summarize(gaps, gapsC).Record(artifact.OverGap)
	s.QueueMs = Summarize(queue, queueC).Record(artifact.OverQueue)
	s.StallMs = Summarize(stall, stallC).Record(artifact.OverStall)
	if spoke {
		a, u := Summarize(audio, audioC).Record(artifact.OverFirstAudio), Summarize(under, underC).Record(artifact.OverUnderrun)
		s.FirstAudioMs, s.UnderrunMs = &a, &u
	}
	if listened {
		e, fi, en := Summarize(ear, heardC).Record(artifact.OverMouthToEar), Summarize(final, heardC).Record(artifact.OverSttFinal),
			Summarize(endp, heardC).Record(artifact.OverEndpointing)
		s.MouthToEarMs, s.SttFinalMs, s.EndpointingMs = &e, &fi, &en
	}
	overEvery(&s, rows)
	return s
}

// overEvery sets the figures of s that are over every row, warm-up and
// ramp included: late_ms over the rows that have it (none: absent, rows
// written before it) and ramp, the rows due during the ramp.
func overEvery(s *artifact.ManySummary, rows []artifact.LoadRequest) {
	var late []float64
	var lateC []int
	s.Ramp = 0
	for i, r := range rows {
		if r.Ramp {
			s.Ramp++
		}
		if r.LateMs != nil {
			late, lateC = append(late, *r.LateMs), append(lateC, callOf(r, i))
		}
	}
	s.LateMs = nil
	if len(late) > 0 {
		d := Summarize(late, lateC).Record(artifact.OverLate)
		s.LateMs = &d
	}
}

// CapacityOf is a sweep's capacity: the highest level whose SLOs hold
// (an interrupted level never does), with the level after it; nil when
// none held.
func CapacityOf(levels []artifact.LoadLevel) *artifact.Capacity {
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

// value is a request's figure for an SLO; ok false when it failed or
// never reached it (failed true when it failed).
func value(r artifact.Request, metric string) (v float64, ok, failed bool) {
	if r.ErrorKind != nil {
		return 0, false, true
	}
	p := r.Metric(metric)
	if p == nil {
		return 0, false, false
	}
	return *p, true, false
}

// meets says whether a request meets every SLO limit (the goodput); a
// failed one never does.
func meets(r artifact.Request, slos []artifact.SLO) bool {
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

// verdict checks one SLO on the rows: the percentile over every request
// (warm-up left out), a failed or missing figure infinitely late, no
// value when the percentile falls on one; its interval accounts for the
// correlation of one call's requests (Estimate), and where it lies
// against the limit.
func verdict(s artifact.SLO, rows []artifact.LoadRequest) artifact.SLOVerdict {
	out := artifact.SLOVerdict{Metric: s.Metric, Percentile: s.Percentile, LimitMs: s.LimitMs}
	var xs []float64
	var calls []int
	for i, r := range rows {
		if r.Warmup {
			continue
		}
		out.N++
		x := math.Inf(1)
		switch v, ok, failed := value(r.Request, s.Metric); {
		case ok:
			x = v
		case failed:
			out.Failed++
		default:
			out.Missing++
		}
		xs, calls = append(xs, x), append(calls, callOf(r, i))
	}
	e := Estimate(xs, calls, SLOLimit{Percentile: s.Percentile, LimitMs: s.LimitMs})
	if e.Value != nil {
		out.ValueMs = artifact.Ms(*e.Value)
		out.Met = *e.Value <= s.LimitMs
	}
	if e.N > 0 {
		out.CIMs = &[2]*float64{msOf(e.Lo), msOf(e.Hi)}
		out.Side = string(e.Side)
	}
	return out
}

// Lateness is a request's lateness under slo: its figure counted from
// when the request was due (queue_ms + the figure), +Inf when it failed
// or never reached the figure.
func Lateness(r artifact.Request, slo artifact.SLO) float64 {
	v, ok, _ := value(r, slo.Metric)
	if !ok {
		return math.Inf(1)
	}
	if r.QueueMs != nil {
		v += *r.QueueMs
	}
	return v
}

// LatenessMetric names the lateness of slo's figure in a trend's record.
func LatenessMetric(slo artifact.SLO) string { return "queue_ms + " + slo.Metric }

// LatenessTrend is the trend of the rows' lateness under slo (the first
// SLO's: the steady state, and over-saturation), over the requests that
// are not warm-up in the order they started (by index, or by starts when
// given: the rows' starts on the wall clock, an unknown one last), its
// least rise RiseShare of the SLO's limit.
func LatenessTrend(slo artifact.SLO, rows []artifact.LoadRequest, starts []float64) artifact.LevelTrend {
	order := startOrder(rows, starts)
	series := make([]float64, len(order))
	for k, i := range order {
		series[k] = Lateness(rows[i].Request, slo)
	}
	return TrendOf(series, RiseShare*slo.LimitMs).Record(LatenessMetric(slo))
}

// Record is the trend as load.json writes it: thirds 1-based, a late or
// unbounded median or bound null, times to the microsecond.
func (t Trend) Record(metric string) artifact.LevelTrend {
	out := artifact.LevelTrend{Metric: metric, Steady: t.Steady, Known: t.Known, Rising: t.Rising, Thirds: []artifact.TrendWindow{}}
	for _, w := range t.Thirds {
		tw := artifact.TrendWindow{From: w.From + 1, N: w.N, P50Ms: artifact.Ms(w.P50)}
		if w.Bounded {
			tw.CIMs = [2]*float64{artifact.Ms(w.Lo), artifact.Ms(w.Hi)}
		}
		out.Thirds = append(out.Thirds, tw)
	}
	d := t.Drift
	out.Drift = &artifact.TrendDrift{Batch: TrendBatch, Batches: d.Batches, Known: d.Rank.Known, Drifting: d.Drifting}
	if d.Rank.Known {
		out.Drift.Rho, out.Drift.P = artifact.Num(round(d.Rank.Rho, 4)), artifact.Num(round(d.Rank.P, 4))
	}
	return out
}

// byTurn summarises each turn number over its requests that are not
// warm-up and ended without an error.
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
		t.TTFTMs, t.FirstSentenceMs, t.PromptN, t.CacheN = msStats(stats(ttft)), msStats(stats(first)), stats(promptN), stats(cacheN)
		out = append(out, t)
	}
	return out
}

// msStats is a record of times, each to the microsecond as every
// artifact writes times; nil for nil.
func msStats(s *artifact.Stats) *artifact.Stats {
	if s == nil {
		return nil
	}
	for _, x := range []*float64{&s.Min, &s.P50, &s.P90, &s.P99, &s.Max, &s.Mean} {
		*x = toMs(*x)
	}
	return s
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
	return &artifact.Stats{N: len(xs), Min: xs[0], P50: interval.PercentileOf(xs, 50), P90: interval.PercentileOf(xs, 90), P99: interval.PercentileOf(xs, 99),
		Max: xs[len(xs)-1], Mean: sum / float64(len(xs))}
}

// OverSaturation is the over-saturation check of an open loop's level,
// fed each request as it ends: once the lateness under SLO of those that
// ended (warm-up left out) keeps rising (LatenessTrend: each third's
// median interval above the one before, by RiseShare of the SLO's limit
// at least), checked at every third request from the 18th on, the level
// is over-saturated and no new call should start.
type OverSaturation struct {
	SLO   artifact.SLO
	ended []artifact.LoadRequest
	// Trend is the trend that found it, nil until then.
	Trend *artifact.LevelTrend
}

// Ended takes one request that ended and says whether the level has just
// been found over-saturated; after that it takes no more.
func (o *OverSaturation) Ended(r artifact.LoadRequest) bool {
	if r.Warmup || o.Trend != nil {
		return false
	}
	o.ended = append(o.ended, r)
	if n := len(o.ended); n < 18 || n%3 != 0 {
		return false
	}
	t := LatenessTrend(o.SLO, o.ended, nil)
	if !t.Rising {
		return false
	}
	o.Trend = &t
	return true
}
