package report

import (
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// bargeinSection: the caller speaks over the answer (a cut), then asks
// the next question; the resumed turn against a cold one.
func bargeinSection(b *rundir.Bargein) section {
	s := sectionOf("bargein", "Barge-in",
		"The caller interrupts: the answer is cut, the slot goes idle, and the next turn follows with the cache kept (resumed) or without it (cold).",
		func() (figure, error) { return bargeinFigure(b) },
		func() (figure, error) { return bargeinCloseFigure(b) })
	rs := []namedTokens{{"resumed", b.Resumed}, {"cold", b.Cold}}
	if len(rs) > 0 {
		more := sectionOf("", "", "",
			func() (figure, error) { return ttftBarsFigure("Barge-in: TTFT of the next turn", rs) },
			func() (figure, error) { return tokensFigure("Barge-in: the next turn's prompt", rs) })
		s.Figures, s.Quotes = append(s.Figures, more.Figures...), append(s.Quotes, more.Quotes...)
	}
	for _, q := range []quote{{"question", b.Question}, {"what the caller heard before the cut", b.PartialText}, {"follow-up", b.FollowUp}} {
		if q.Text != "" {
			s.Quotes = append(s.Quotes, q)
		}
	}
	return s
}

func bargeinFigure(b *rundir.Bargein) (figure, error) {
	p, h := timeline("Barge-in: the answer until the cut, the slot going idle", []string{"answer", "slot busy"}, 4)
	idleAt := b.ClosedAtMs + b.SlotIdleAfterMs
	chart.AddSpans(p, "streamed until the cut", []chart.Span{{Row: 0, From: 0, To: b.ClosedAtMs}}, chart.Cached, 10)
	chart.AddSpans(p, "slot still processing", []chart.Span{{Row: 1, From: b.ClosedAtMs, To: idleAt}}, chart.Idle, 10)
	chart.AddRule(p, "connection closed", b.ClosedAtMs, true, chart.Cut, false)
	tab := table{Head: []string{"", "value"}}
	if b.CutAfterChunks > 0 {
		tab.add("cut planned after (cut_after_chunks)", num(b.CutAfterChunks)+" chunks")
	}
	tab.add("connection closed (closed_at_ms)", num(b.ClosedAtMs))
	tab.add("tokens received (received_tokens)", num(b.ReceivedTokens))
	tab.add("slot idle after the close (slot_idle_after_ms)", num(b.SlotIdleAfterMs))
	return draw(p, h, *tab.numericFrom(1))
}

// bargeinCloseFigure zooms on the hang-up: the close and the slot busy
// until it went idle, on an axis a few times the idle time wide, so a
// 1 ms wait reads as well as a 1 s one.
func bargeinCloseFigure(b *rundir.Bargein) (figure, error) {
	idle := b.SlotIdleAfterMs
	margin := max(1, 2*idle)
	p, h := timeline("Barge-in: the close and the slot going idle", []string{"slot busy"}, 3)
	p.X.Min, p.X.Max = max(0, b.ClosedAtMs-margin), b.ClosedAtMs+idle+margin/2
	chart.AddSpans(p, "slot still processing", []chart.Span{{Row: 0, From: b.ClosedAtMs, To: b.ClosedAtMs + idle}}, chart.Idle, 10)
	chart.AddRule(p, "connection closed", b.ClosedAtMs, true, chart.Cut, false)
	chart.AddRule(p, "slot idle", b.ClosedAtMs+idle, true, chart.Idle, false)
	tab := table{Head: []string{"", "value"}}
	tab.add("connection closed (closed_at_ms)", num(b.ClosedAtMs))
	tab.add("slot idle after the close (slot_idle_after_ms)", num(idle))
	return draw(p, h, *tab.numericFrom(1))
}

// prefixSection: a changing line moved from the front of the prompt to
// its end; what the cache keeps and what TTFT costs at each position.
func prefixSection(x *rundir.Prefix) section {
	intro := "A line that changes on every call (" + quoteOr(x.ChangingLine) + ") placed at each position of the prompt, front to end: the cache reuses the prompt up to it."
	if len(x.Positions) == 0 {
		return section{ID: "prefix", Title: "Where a changing line costs the cache", Intro: intro + " prefix.json has no positions."}
	}
	return sectionOf("prefix", "Where a changing line costs the cache", intro,
		func() (figure, error) {
			return prefixFigure(x, "cache_n", "Changing line: tokens reused by position", "reused (tokens, cache_n)")
		},
		func() (figure, error) {
			return prefixFigure(x, "ttft_ms", "Changing line: TTFT by position", "time to first token (ms)")
		})
}

func quoteOr(s string) string {
	if s == "" {
		return "not named"
	}
	return fmt.Sprintf("%q", s)
}

func prefixFigure(x *rundir.Prefix, field, title, yLabel string) (figure, error) {
	p := chart.New(title, "position of the changing line (front to end)", yLabel)
	var xys plotter.XYs
	var ticks []plot.Tick
	tab := table{Head: []string{"position", "at_char", "first_difference", field}}
	for i, pos := range x.Positions {
		v := pos.Tokens().Cached()
		if field == "ttft_ms" {
			v = pos.TTFTMs
		}
		xys = append(xys, plotter.XY{X: float64(i), Y: v})
		ticks = append(ticks, plot.Tick{Value: float64(i), Label: pos.Position})
		tab.add(pos.Position, numP(pos.AtChar), numP(pos.FirstDifference), num(v))
	}
	c := chart.Cached
	if field == "ttft_ms" {
		c = chart.TTFT
	}
	if err := chart.LinePoints(p, field, xys, c); err != nil {
		return figure{}, err
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	p.X.Min, p.X.Max = -0.3, float64(len(ticks))-0.7
	chart.FromZero(p)
	// A little room above the highest point, so no marker is cut at the top.
	chart.Headroom(p, 0.06)
	return draw(p, chart.Height, *tab.numericFrom(1))
}

// extraSection shows a JSON file no section knows yet as a table, so a
// new lab step appears on the page before it has a chart.
func extraSection(name string, fields []rundir.Field) section {
	return section{ID: "file-" + anchor(name), Title: name,
		Intro:  "A file of this run that the report has no chart for yet; its values:",
		Tables: []table{fieldTable(name, fields)}}
}

// anchor makes a name usable as an HTML id.
func anchor(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-') {
			b[i] = '-'
		}
	}
	return string(b)
}
