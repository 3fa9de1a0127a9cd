package report

import (
	"fmt"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"

	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// chunkTicks puts one tick per chunk on row.
func chunkTicks(row float64, at []float64) []chart.Tick {
	out := make([]chart.Tick, len(at))
	for i, t := range at {
		out[i] = chart.Tick{Row: row, At: t}
	}
	return out
}

func chunkTimes(cs []rundir.Chunk) []float64 {
	out := make([]float64, len(cs))
	for i, c := range cs {
		out[i] = c.TMs
	}
	return out
}

// chunkList is every chunk with its arrival and text, for the disclosure
// under a timeline.
func chunkList(cs []rundir.Chunk) *table {
	t := &table{Caption: fmt.Sprintf("all %d chunks", len(cs)), Head: []string{"#", "t_ms", "text"}, Numeric: map[int]bool{0: true, 1: true}}
	for i, c := range cs {
		t.add(strconv.Itoa(i+1), num(c.TMs), strconv.Quote(c.Text))
	}
	return t
}

// timeline is a chart with named rows over time since the request, with
// legendEntries lines of legend beside it, and its
// height.
func timeline(title string, rows []string, legendEntries int) (*plot.Plot, vg.Length) {
	p := chart.New(title, "time since the request was sent (ms)", "")
	h := rowsLayout(p, rows, legendEntries)
	p.X.Min = 0
	return p, h
}

// rowHeight is one row of a timeline or bar chart, in points.
const rowHeight = 26

// rowsLayout names the rows of p and returns the chart's height.
func rowsLayout(p *plot.Plot, rows []string, legendEntries int) vg.Length {
	// The legend stands beside the plot (chart.SVG): no room above the
	// rows, only enough height for its entries.
	chart.Rows(p, rows, 0)
	return vg.Length(max(75+rowHeight*float64(len(rows)), 40+float64(legendEntries)*float64(chart.LegendLine)))
}

// sentenceFigure: the sentence step's answer as it streamed and when its
// first sentence was complete, on an axis that ends with the answer, so
// a 10 ms answer and a 10 s one both fill it; the speech that follows is
// its own chart (speechFigure), whose axis runs to the end of speaking.
func sentenceFigure(s *rundir.Sentence) (figure, error) {
	rows := []string{"answer"}
	if len(s.Chunks) > 0 {
		rows = append(rows, "chunks")
	}
	textRow := float64(len(rows))
	rows = append(rows, "first sentence")
	p, h := timeline("First sentence: the answer as it streamed", rows, 5)
	chart.AddSpans(p, "streaming (ttft to end)", []chart.Span{{Row: 0, From: s.TTFTMs, To: s.TotalMs}}, chart.Cached, 10)
	tab := table{Head: []string{"moment", "t_ms"}}
	tab.add("first token (ttft_ms)", num(s.TTFTMs))
	tab.add("first sentence complete (first_sentence_ms)", num(s.FirstSentenceMs))
	tab.add("last chunk (total_ms)", num(s.TotalMs))
	if len(s.Chunks) > 0 {
		chart.AddTicks(p, "chunk", chunkTicks(1, chunkTimes(s.Chunks)), chart.Chunk, 14, 1)
		tab.add("chunks", strconv.Itoa(len(s.Chunks)))
	}
	chart.AddRule(p, "ttft", s.TTFTMs, true, chart.TTFT, true)
	r := chart.AddRule(p, "first sentence", s.FirstSentenceMs, true, chart.FirstSentence, false)
	r.Label, r.LabelY = excerpt(s.FirstSentence, 60), &textRow
	chart.AddRule(p, "end", s.TotalMs, true, chart.Total, true)
	p.X.Min, p.X.Max = 0, s.TotalMs
	f, err := draw(p, h, *tab.numericFrom(1))
	if len(s.Chunks) > 0 {
		f.More = chunkList(s.Chunks)
	}
	return f, err
}

// speechFigure: the answer played back at a speaking rate: each sentence
// from when it was spoken, the stalls where the speaker waited, against
// the answer's streaming on its own row.
func speechFigure(s *rundir.Sentence) (figure, error) {
	p, h := timeline("First sentence: the answer spoken", []string{"answer streamed", "spoken"}, 5)
	chart.AddSpans(p, "streaming (ttft to end)", []chart.Span{{Row: 0, From: s.TTFTMs, To: s.TotalMs}}, chart.Cached, 10)
	tab := table{Head: []string{"moment", "t_ms"}}
	addPacing(p, 1, s.Pacing, &tab)
	chart.AddRule(p, "first sentence", s.FirstSentenceMs, true, chart.FirstSentence, false)
	return draw(p, h, *tab.numericFrom(1))
}

// addPacing draws each sentence as spoken (start to end) and each stall
// (the speaker done, the next sentence not ready) on row.
func addPacing(p *plot.Plot, row float64, pc *rundir.Pacing, tab *table) {
	var spoken, stalls []chart.Span
	for i, s := range pc.Sentences {
		spoken = append(spoken, chart.Span{Row: row, From: s.StartMs, To: s.EndMs})
		if i > 0 && s.StartMs > pc.Sentences[i-1].EndMs {
			stalls = append(stalls, chart.Span{Row: row, From: pc.Sentences[i-1].EndMs, To: s.StartMs})
		}
	}
	chart.AddSpans(p, "spoken", spoken, chart.Spoken, 14)
	if len(stalls) > 0 {
		chart.AddSpans(p, "stall", stalls, chart.Stall, 14)
	}
	tab.add("speech starts (pacing.start_ms)", num(pc.StartMs))
	tab.add("first clause (pacing.first_clause_ms)", numP(pc.FirstClauseMs))
	tab.add("speech ends (pacing.end_ms)", num(pc.EndMs))
	tab.add("stalls (pacing.stalls)", num(pc.Stalls))
	tab.add("stalled (pacing.stall_ms)", num(pc.StallMs))
	for i, s := range pc.Sentences {
		tab.add(fmt.Sprintf("sentence %d ready / spoken", i+1), num(s.ReadyMs)+" / "+num(s.StartMs)+"–"+num(s.EndMs))
	}
}

// streamFigure: the stream step's chunks (chunks.jsonl), one tick each.
func streamFigure(cs []rundir.Chunk) (figure, error) {
	p, h := timeline("Stream step: one tick per chunk", []string{"chunks"}, 2)
	times := chunkTimes(cs)
	chart.AddTicks(p, "chunk", chunkTicks(0, times), chart.Chunk, 18, 1)
	chart.AddRule(p, "first chunk (ttft)", times[0], true, chart.TTFT, true)
	tab := table{Head: []string{"", "value"}}
	tab.add("chunks", strconv.Itoa(len(cs)))
	tab.add("first chunk (ms)", num(times[0]))
	tab.add("last chunk (ms)", num(times[len(times)-1]))
	gap := 0.0
	for i := 1; i < len(times); i++ {
		gap = max(gap, times[i]-times[i-1])
	}
	tab.add("longest gap between chunks (ms)", num(gap))
	f, err := draw(p, h, *tab.numericFrom(1))
	f.More = chunkList(cs)
	return f, err
}

// cancelFigure: each attempt's stream until it finished or was cut.
func cancelFigure(c *rundir.Cancel) (figure, error) {
	var rows []string
	for i, a := range c.Attempts {
		state := "finished"
		if a.Cut {
			state = "cut"
		}
		rows = append(rows, fmt.Sprintf("attempt %d: %s", i+1, state))
	}
	if len(rows) == 0 {
		rows = []string{"the cut request"}
	}
	p, h := timeline("Cancellation: each attempt until it finished or was cut", rows, 3)
	tab := table{Head: []string{"attempt", "max_tokens", "cut_after_ms", "received", "ms"}}
	var streamed, finished []chart.Span
	for i, a := range c.Attempts {
		span := chart.Span{Row: float64(i), From: 0, To: a.TotalMs}
		if a.Cut {
			streamed = append(streamed, span)
		} else {
			finished = append(finished, span)
		}
		tab.add(rows[i], num(a.MaxTokens), num(a.CutAfterMs), num(a.ReceivedTokens), num(a.TotalMs))
	}
	if len(c.Attempts) == 0 {
		streamed = []chart.Span{{Row: 0, From: 0, To: c.ClosedAtMs}}
	}
	if len(finished) > 0 {
		chart.AddSpans(p, "finished before the cut", finished, chart.Total, 10)
	}
	chart.AddSpans(p, "streamed until the cut", streamed, chart.Cached, 10)
	chart.AddRule(p, "connection closed", c.ClosedAtMs, true, chart.Cut, false)
	return draw(p, h, *tab.numericFrom(1))
}

// cancelCloseFigure zooms on the cut: the last chunks before it, the
// close, and the slot still processing until /slots showed it idle.
func cancelCloseFigure(c *rundir.Cancel) (figure, error) {
	idle := 0.0 // client-side evidence only: no idle time to draw
	if c.SlotIdleAfterMs != nil {
		idle = *c.SlotIdleAfterMs
	}
	idleAt := c.ClosedAtMs + idle
	margin := max(5, 2*idle)
	from, to := max(0, c.ClosedAtMs-margin), idleAt+margin/2
	p, h := timeline("Cancellation: the close and the slot going idle", []string{"chunks", "slot busy"}, 4)
	p.X.Min, p.X.Max = from, to
	var recent []float64
	for _, t := range c.ChunkMs {
		if t >= from {
			recent = append(recent, t)
		}
	}
	if len(recent) > 0 {
		chart.AddTicks(p, "chunk", chunkTicks(0, recent), chart.Chunk, 14, 1)
	}
	if c.SlotIdleAfterMs != nil {
		chart.AddSpans(p, "slot still processing", []chart.Span{{Row: 1, From: c.ClosedAtMs, To: idleAt}}, chart.Idle, 10)
	}
	chart.AddRule(p, "connection closed", c.ClosedAtMs, true, chart.Cut, false)
	if c.SlotIdleAfterMs != nil {
		chart.AddRule(p, "slot idle", idleAt, true, chart.Idle, false)
	}
	tab := table{Head: []string{"", "value"}}
	// A cut planned by time is shown when the run planned one; a cut by
	// chunk count (cut_after_ms absent or 0) has no planned moment.
	if c.CutAfterMs != nil && *c.CutAfterMs > 0 {
		tab.add("cut planned (cut_after_ms)", num(*c.CutAfterMs))
	}
	tab.add("connection closed (closed_at_ms)", num(c.ClosedAtMs))
	if c.MaxTokens > 0 {
		tab.add("tokens received of max_tokens", num(c.ReceivedTokens)+" of "+num(c.MaxTokens))
	} else {
		tab.add("tokens received (received_tokens)", num(c.ReceivedTokens))
	}
	if len(c.ChunkMs) > 0 {
		tab.add("last chunk before the close (ms)", num(c.ChunkMs[len(c.ChunkMs)-1]))
		tab.add("chunks in this view", strconv.Itoa(len(recent)))
	}
	tab.add("slot idle after the close (slot_idle_after_ms)", numP(c.SlotIdleAfterMs))
	if c.Evidence != "" {
		tab.add("evidence the server stopped", c.Evidence)
	}
	if c.LogCancelTask != nil {
		tab.add("server logged cancel task", value(*c.LogCancelTask))
	}
	return draw(p, h, *tab.numericFrom(1))
}

// excerpt is s cut to n characters, with an ellipsis when cut.
func excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
