package loadtext

import (
	"fmt"
	"strings"

	"ttftlab/internal/artifact"
)

// Table is one table of levels on the console: Header, then each level's
// lines (Level), then Legend, which explains the "*" only when a level's
// lines used it.
type Table struct {
	// Mode is the run's mode ("rate", "concurrency" or "trace": its level
	// is then named by its speed, "trace x1", whatever label it is given).
	Mode string
	// Ramp is the run's ramp (settings.ramp): whether a level's ramp
	// requests were left out of its figures or kept; nil says neither.
	Ramp *artifact.LoadRamp
	// Engine names the speech engine of a run with --tts default, whose
	// CPU per second of audio a level reports; "" for none.
	Engine string
	// STTEngine names the speech-to-text engine of a run with --stt
	// default, whose CPU per second of the callers' audio a level
	// reports; "" for none.
	STTEngine string
	// Scope is what the percentiles are over beyond their requests ("over
	// every shard's requests"), said in the legend; "" for nothing more.
	Scope string
	// Sessions: the levels are speech-to-speech sessions (load
	// --realtime), whose turns stream no LLM content to time.
	Sessions bool
	// marked says whether a level's lines marked a percentile "*"; late
	// whether they said how late the requests started.
	marked, late bool
}

// NewTable is the table of a run with these settings: its mode, ramp and
// the speech engines whose CPU a level reports.
func NewTable(set artifact.LoadSettings) *Table {
	t := &Table{Mode: set.Mode, Ramp: set.Ramp, Sessions: set.Realtime != nil}
	if set.TTS != nil {
		t.Engine = set.TTS.Engine
	}
	if set.STT != nil {
		t.STTEngine = set.STT.Engine
	}
	return t
}

// percentiles are the percentiles a row and its interval lines give.
var percentiles = [3]float64{50, 95, 99}

// quantile is a distribution's p50, p95 or p99 and its interval.
func quantile(d artifact.Dist, p float64) (*float64, *[2]float64) {
	switch p {
	case 50:
		return d.P50, d.P50CI
	case 95:
		return d.P95, d.P95CI
	}
	return d.P99, d.P99CI
}

// fmt3 is a distribution's p50/p95/p99 and its n, a percentile its n
// cannot bound marked "*": the rule of the interval line below it, so a
// star and "too few samples" never disagree.
func (t *Table) fmt3(d *artifact.Dist) string {
	if d == nil || d.N == 0 {
		return fmt.Sprintf("%-20s %-6s", "      -", "(n=0)")
	}
	var cells [3]string
	for i, p := range percentiles {
		v, _ := quantile(*d, p)
		cell := "-"
		if v != nil {
			cell = fmt.Sprintf("%.0f", *v)
		}
		if d.Unbounded(p) {
			cell += "*"
			t.marked = true
		}
		cells[i] = fmt.Sprintf("%6s", cell)
	}
	return fmt.Sprintf("%s/%s/%s %-6s", cells[0], cells[1], cells[2], "(n="+itoa(d.N)+")")
}

// ciLine is a distribution's p50, p95 and p99 each with its 95 % interval
// over the same requests (docs/statistics.md), "p95 812 [790, 838]", or
// "too few samples" where n cannot bound that percentile; "" for none.
func ciLine(name string, d *artifact.Dist) string {
	if d == nil || d.N == 0 {
		return ""
	}
	var cells [3]string
	for i, p := range percentiles {
		v, ci := quantile(*d, p)
		if ci != nil && v != nil {
			cells[i] = fmt.Sprintf("p%.0f %s [%s, %s]", p, artifact.ShowMs(*v), artifact.ShowMs(ci[0]), artifact.ShowMs(ci[1]))
		} else {
			cells[i] = fmt.Sprintf("p%.0f too few samples", p)
		}
	}
	return fmt.Sprintf("  %-9s %s  (n=%d, 95%% intervals)", name, strings.Join(cells[:], "  "), d.N)
}

// The most failure kinds a level lists, and the longest message shown of
// each (in bytes).
const (
	maxKinds   = 3
	maxMessage = 300
)

// failureLines are the level's top failure kinds, with counts and one
// message each.
func failureLines(s *artifact.LevelSummary) []string {
	if s.Failed == 0 {
		return nil
	}
	lines := []string{fmt.Sprintf("  failed %d of %d requests:", s.Failed, s.Requests)}
	for i, f := range s.Failures {
		if i == maxKinds {
			lines = append(lines, fmt.Sprintf("    ... and %d more kinds (requests.jsonl has every message)", len(s.Failures)-maxKinds))
			break
		}
		msg := f.Example
		if len(msg) > maxMessage {
			msg = msg[:maxMessage] + "..."
		}
		lines = append(lines, fmt.Sprintf("    %-14s %5d  e.g. %s", f.Label(), f.N, msg))
	}
	return lines
}

// clientLine warns when the client's own machine may have set the level's
// figures: its process took most of the machine, or the threads that read
// the sockets waited for a CPU long enough to move stamps (chunks of one
// stream that arrive while they wait are read together and share the
// later one's stamp): over 1 % of the level in all, and 50 µs a time on
// average. "" when neither, or when the summary has no client (a merge:
// each shard's machine is its own).
func clientLine(s *artifact.LevelSummary) string {
	c := s.Client
	if c == nil || !(s.DurationMs > 0) {
		return ""
	}
	wait, runs := deref(c.ReaderWaitMs), deref(c.ReaderRuns)
	share, each := wait/s.DurationMs, 0.0
	if runs > 0 {
		each = wait / runs
	}
	if c.Busy < 0.8 && (share < 0.01 || each < 0.05) {
		return ""
	}
	return fmt.Sprintf("  client busy: %.0f%% of %d cores; its reader waited %.0f ms for a CPU (%.1f%% of the level, %.2f ms a time "+
		"on average): chunks that came meanwhile share a read and its stamp; run the client on another machine or fewer calls",
		c.Busy*100, c.Cores, wait, share*100, each)
}

// Level is a level's lines: its row of the table (label first, e.g. "4"
// or "4 #2" for a search's second round of it), the intervals of its
// percentiles, each SLO's value, what speaking cost, requests that
// streamed no content, its failures, a busy client, and a level whose
// lateness moved (not steady). An over-saturated level's line is the
// caller's, who knows when it stopped.
func (t *Table) Level(label string, l artifact.LoadLevel) []string {
	s := &l.Summary
	verdict := "missed"
	switch {
	case l.Interrupted:
		verdict = "interrupted"
	case l.SLOMet:
		verdict = "met"
	}
	goodput := "-"
	if l.Goodput != nil {
		goodput = fmt.Sprintf("%.0f%%", *l.Goodput*100)
	}
	if t.Mode == "trace" {
		label = LevelName(t.Mode, l.Level)
	}
	lines := []string{fmt.Sprintf("%-*s %6d %12s  %-27s %-27s %9.1f %7s  %s", labelWidth(t.Mode), label, s.Calls, itoa(s.OK)+"/"+itoa(s.Requests),
		t.fmt3(&s.TTFTMs), t.fmt3(&s.FirstSentenceMs), deref(s.TokensPerS), goodput, verdict)}
	for _, f := range []struct {
		name string
		d    *artifact.Dist
	}{{"ttft", &s.TTFTMs}, {"1st sent", &s.FirstSentenceMs}, {"1st audio", s.FirstAudioMs}, {"underrun", s.UnderrunMs},
		{"mouth-ear", s.MouthToEarMs}, {"stt final", s.SttFinalMs}, {"endpoint", s.EndpointingMs}} {
		if line := ciLine(f.name, f.d); line != "" {
			lines = append(lines, line)
		}
	}
	// Each SLO's value, the one its verdict was judged on (failed and
	// missing requests counted as infinitely late), starred as the row
	// above marks the same percentile.
	for _, v := range l.SLO {
		value := "none: the percentile falls on a failed or missing request"
		if v.ValueMs != nil {
			value = artifact.ShowMs(*v.ValueMs) + " ms"
			if s.Unsupported(v) {
				value += "*"
				t.marked = true
			}
		}
		met := "missed"
		if v.Met {
			met = "met"
		}
		// Its interval (one call's requests taken as correlated), when
		// both sides are bounded; one that holds the limit leaves the
		// verdict undecided.
		if ci := v.CIMs; v.ValueMs != nil && ci != nil && ci[0] != nil && ci[1] != nil {
			value += " " + Bounds(v.ValueMs, *ci)
			if v.Side == "straddles" {
				met += " (undecided: the interval holds the limit)"
			}
		}
		lines = append(lines, fmt.Sprintf("  SLO %s p%s %s (limit %s ms, n=%d): %s", v.Metric, g(v.Percentile), value, g(v.LimitMs), v.N, met))
	}
	if heldButFailed(&l) {
		lines = append(lines, fmt.Sprintf("  missed: every SLO held, but %d of %d requests failed; a level holds only when none fails",
			s.Failed, s.Requests))
	}
	if l.TTSCPUMsPerAudioS != nil && t.Engine != "" {
		lines = append(lines, fmt.Sprintf("  speech: %s used %.1f ms of CPU per second of audio (on this machine, beside the client)",
			t.Engine, *l.TTSCPUMsPerAudioS))
	}
	if l.STTCPUMsPerAudioS != nil && t.STTEngine != "" {
		lines = append(lines, fmt.Sprintf("  speech-to-text: %s used %.1f ms of CPU per second of the callers' audio (on this machine, beside the client)",
			t.STTEngine, *l.STTCPUMsPerAudioS))
	}
	// Requests that ended without an error yet streamed no content (a
	// server that sends usage alone): no figure, and no failure either.
	if s.OK > s.TTFTMs.N && !t.Sessions {
		least := ""
		if s.Failed > 0 {
			least = "at least "
		}
		lines = append(lines, fmt.Sprintf("  %s%d of the %d requests that ended without an error streamed no content (no first token): "+
			"the server answered with nothing to time", least, s.OK-s.TTFTMs.N, s.OK))
	}
	lines = append(lines, failureLines(s)...)
	if line := t.rampLine(s); line != "" {
		lines = append(lines, line)
	}
	lines = append(lines, t.lateLines(s)...)
	if line := clientLine(s); line != "" {
		lines = append(lines, line)
	}
	if w := l.SteadyWindow; w != nil && w.LeftOut > 0 {
		lines = append(lines, fmt.Sprintf("  steady from request %d (%s on %s): the %d before it left out of the level's figures as its warm-up",
			w.FromRequest, w.Rule, w.Metric, w.LeftOut))
	}
	if st := l.Steady; l.OverSaturated == nil && st != nil && st.Known && !st.Steady {
		// A third whose median is late (inf) holds mostly failed
		// requests or ones that never reached the figure: a warm-up
		// would not help.
		why := "try --warmup"
		for _, w := range st.Thirds {
			if w.P50Ms == nil {
				why = "a third is mostly requests that failed or never reached the figure (inf)"
			}
		}
		lines = append(lines, fmt.Sprintf("  not steady: %s moved over the level (%s): its first and last thirds disagree; %s",
			st.Metric, ThirdsText(*st), why))
	} else if l.OverSaturated == nil && st != nil && st.Drift != nil && st.Drift.Drifting {
		lines = append(lines, DriftLine(*st))
	}
	return lines
}

// rampLine counts the level's requests due during its ramp (--ramp),
// and says whether its figures left them out; "" without any.
func (t *Table) rampLine(s *artifact.LevelSummary) string {
	if s.Ramp == 0 {
		return ""
	}
	switch {
	case t.Ramp == nil:
		return fmt.Sprintf("  %d requests were due during the ramp (ramp in requests.jsonl)", s.Ramp)
	case t.Ramp.Keep:
		return fmt.Sprintf("  %d ramp requests kept in the figures (--ramp-keep)", s.Ramp)
	}
	return fmt.Sprintf("  %d ramp requests left out of the figures, as warm-up is", s.Ramp)
}

// lateLines say how late the level's requests started past the moment
// each could (summary.late_ms, every request), and warn when the client
// fell behind (artifact's FellBehind: the report's rule too); none when
// the summary has no late_ms.
func (t *Table) lateLines(s *artifact.LevelSummary) []string {
	d := s.LateMs
	if d == nil || d.N == 0 || d.P50 == nil || d.P99 == nil || d.Max == nil {
		return nil
	}
	t.late = true
	lines := []string{fmt.Sprintf("  started late: p50 %s ms, p99 %s ms, max %s ms over %d requests", artifact.ShowMs(*d.P50),
		artifact.ShowMs(*d.P99), artifact.ShowMs(*d.Max), d.N)}
	if s.FellBehind() {
		lines = append(lines, fmt.Sprintf("  late: the client could not keep to the schedule (p99 %s ms above %d ms): the server saw less load "+
			"than asked for; run the client on a machine of its own, or fewer calls", artifact.ShowMs(*d.P99), artifact.BehindLimitMs))
	}
	return lines
}

// Legend explains the table: what its columns count, and the "*" when a
// level's lines used it.
func (t *Table) Legend() []string {
	scope := ""
	if t.Scope != "" {
		scope = ", " + t.Scope
	}
	lines := []string{
		"",
		"calls: the calls that ran; requests ok: of their requests (one per turn), those that ended without an error.",
		"ttft: p50/p95/p99 over the requests with a first token; 1st sent: over those with a complete first",
		"sentence (n: how many)" + scope + ". The SLO and goodput count a failed request as infinitely late.",
	}
	if t.marked {
		lines = append(lines, "*: too few samples to bound this percentile (no 95 % interval: the line below says so); under 20",
			"  requests a p95 (100 a p99) is the largest value or near it, not the tail it names.")
	}
	if t.late {
		lines = append(lines, "started late: each request's start past the moment it could start (late_ms: its due time, or when a cap on",
			fmt.Sprintf("  calls at once let it), over every request, warm-up and ramp included; a p99 above %d ms warns that the", artifact.BehindLimitMs),
			"  client could not keep to the schedule.")
	}
	return lines
}
