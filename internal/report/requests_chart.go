package report

import (
	"fmt"
	"sort"
	"strconv"

	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

func requestsSection(l *rundir.Load) section {
	var builders []func() (figure, error)
	for _, lv := range requestLevels(l) {
		builders = append(builders, func() (figure, error) { return requestsFigure(l, lv) })
	}
	return sectionOf("requests", "Requests",
		"One bar per request from when it was sent to its end, with the wait for a free call before it, its first token and its first sentence marked.",
		builders...)
}

// requestLevels are the levels that have requests, in order.
func requestLevels(l *rundir.Load) []float64 {
	seen := map[float64]bool{}
	var out []float64
	for _, r := range l.Requests {
		if !seen[r.Level] {
			seen[r.Level] = true
			out = append(out, r.Level)
		}
	}
	sort.Float64s(out)
	return out
}

// startOf is when a request started on the level's clock (0 when the
// row lacks it).
func startOf(r artifact.LoadRequest) float64 {
	if r.StartMs == nil {
		return 0
	}
	return *r.StartMs
}

// at is a request's own time t on the level's clock.
func at(r artifact.LoadRequest, t *float64) (float64, bool) {
	if t == nil {
		return 0, false
	}
	return startOf(r) + *t, true
}

func requestsFigure(l *rundir.Load, level float64) (figure, error) {
	type one struct {
		r         artifact.LoadRequest
		transient bool // before the level's steady window
	}
	var all []one
	skip := l.Transient()
	for i, r := range l.Requests {
		if r.Level == level && !r.Warmup {
			all = append(all, one{r, skip[i]})
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return startOf(all[i].r) < startOf(all[j].r) })
	rs := make([]artifact.LoadRequest, len(all))
	for i, o := range all {
		rs[i] = o.r
	}
	names := make([]string, len(rs))
	every := max(1, len(rs)/20)
	for i, r := range rs {
		if i%every == 0 {
			names[i] = "#" + strconv.Itoa(r.Index)
			if r.Shard != nil {
				names[i] = requestName(r)
			}
		}
	}
	p := chart.New(fmt.Sprintf("Requests at %s", l.LevelName(level)), "time since the level began (ms)", "request")
	rowH := min(18, max(3, 420/float64(len(rs))))
	chart.Rows(p, names, 0)
	p.X.Min = 0
	ramp, rampN := rampBand(l, level)
	if ramp != nil {
		// Added first, so every bar draws over it.
		chart.AddBands(p, []chart.Band{*ramp})
	}
	var queued, sent, failed, transient []chart.Span
	var ttft, sentence []chart.Tick
	tab := table{Head: []string{"request", "start_ms", "queue_ms", "ttft_ms", "first_sentence_ms", "total_ms", "error"}}
	for i, r := range rs {
		row := float64(i)
		if r.QueueMs != nil && *r.QueueMs > 0 {
			queued = append(queued, chart.Span{Row: row, From: startOf(r) - *r.QueueMs, To: startOf(r)})
		}
		end, ok := at(r, r.TotalMs)
		if !ok {
			end = startOf(r)
		}
		name := requestName(r)
		switch {
		case r.Error != nil:
			failed = append(failed, chart.Span{Row: row, From: startOf(r), To: end})
		case all[i].transient:
			transient = append(transient, chart.Span{Row: row, From: startOf(r), To: end})
			name += " (transient)"
		default:
			sent = append(sent, chart.Span{Row: row, From: startOf(r), To: end})
		}
		if t, ok := at(r, r.TTFTMs); ok {
			ttft = append(ttft, chart.Tick{Row: row, At: t})
		}
		if t, ok := at(r, r.FirstSentenceMs); ok {
			sentence = append(sentence, chart.Tick{Row: row, At: t})
		}
		tab.add(name, numP(r.StartMs), numP(r.QueueMs), numP(r.TTFTMs), numP(r.FirstSentenceMs), numP(r.TotalMs), errText(r))
	}
	thick := vg.Length(rowH * 0.7)
	chart.AddSpans(p, "queued (waiting for a call)", queued, chart.Queue, thick)
	chart.AddSpans(p, "sent until its end", sent, chart.Cached, thick)
	chart.AddSpans(p, "failed", failed, chart.Cut, thick)
	if len(transient) > 0 {
		chart.AddSpans(p, "before the steady window (left out of the figures)", transient, chart.Transient, thick)
	}
	chart.AddTicks(p, "first token", ttft, chart.TTFT, thick+2, 1.5)
	chart.AddTicks(p, "first sentence", sentence, chart.FirstSentence, thick+2, 1.5)
	sum := summaryOf(tab)
	if ramp != nil {
		sum.add("due in the ramp", rampN)
	}
	f, err := draw(p, vg.Length(max(75+rowH*float64(len(rs)), 40+6*float64(chart.LegendLine))), sum)
	f.More = &tab
	f.More.Caption = fmt.Sprintf("all %d requests", len(rs))
	f.More.numericFrom(0)
	delete(f.More.Numeric, 6)
	return f, err
}

// requestName names a request in its level's table: its index, and in a
// merged run, whose shards each number their own requests from 1, its
// shard before it ("s1 #4").
func requestName(r artifact.LoadRequest) string {
	if r.Shard != nil {
		return fmt.Sprintf("s%d #%d", *r.Shard, r.Index)
	}
	return strconv.Itoa(r.Index)
}

func errText(r artifact.LoadRequest) string {
	switch {
	case r.ErrorKind != nil && r.Error != nil:
		return *r.ErrorKind + ": " + *r.Error
	case r.Error != nil:
		return *r.Error
	}
	return ""
}

// summaryOf is the count of a request table, beside its chart; the rows
// are behind the disclosure.
func summaryOf(t table) table {
	s := table{Head: []string{"", "value"}}
	failed := 0
	for _, r := range t.Rows {
		if r.Cells[len(r.Cells)-1] != "" {
			failed++
		}
	}
	s.add("requests", strconv.Itoa(len(t.Rows)))
	s.add("failed", strconv.Itoa(failed))
	return *s.numericFrom(1)
}

// serverFigure: slots busy, requests running and deferred over the whole run on
// one clock, each level a shaded band.
func serverFigure(l *rundir.Load) (figure, error) {
	p := chart.New("The server: slots busy, requests running and deferred", "time since the run began (ms)", "count")
	runMs, bands := l.ServerTimeline()
	var shade []chart.Band
	for _, b := range bands {
		shade = append(shade, chart.Band{From: b.From, To: b.To, Label: "level " + num(b.Level)})
	}
	chart.AddBands(p, shade)
	var busy, running, deferred, total plotter.XYs
	tab := table{Head: []string{"level", "from (ms)", "to (ms)", "samples", "max slots busy", "slots", "max running", "max deferred"}}
	// Per level: samples, then the largest of each figure, nil where the
	// server never gave it (a server without /slots, without the gauge):
	// "–" in the table, never a 0 that reads as an idle server.
	type levelMax struct {
		samples                        int
		busy, slots, running, deferred *float64
	}
	grow := func(m **float64, v float64) {
		if *m == nil || v > **m {
			*m = &v
		}
	}
	stats := map[float64]*levelMax{}
	for i, s := range l.Server {
		x := runMs[i]
		st := stats[s.Level]
		if st == nil {
			st = &levelMax{}
			stats[s.Level] = st
		}
		st.samples++
		// A figure the server did not give (null) is no point on its line.
		if s.SlotsProcessing != nil {
			busy = append(busy, plotter.XY{X: x, Y: float64(*s.SlotsProcessing)})
			grow(&st.busy, float64(*s.SlotsProcessing))
		}
		if s.RequestsProcessing != nil {
			running = append(running, plotter.XY{X: x, Y: *s.RequestsProcessing})
			grow(&st.running, *s.RequestsProcessing)
		}
		if s.RequestsDeferred != nil {
			deferred = append(deferred, plotter.XY{X: x, Y: *s.RequestsDeferred})
			grow(&st.deferred, *s.RequestsDeferred)
		}
		if s.SlotsTotal != nil {
			total = append(total, plotter.XY{X: x, Y: float64(*s.SlotsTotal)})
			grow(&st.slots, float64(*s.SlotsTotal))
		}
	}
	disagree := false
	for _, b := range bands {
		st := stats[b.Level] // every band is made from samples of its level
		running := numP(st.running)
		if st.running != nil && st.busy != nil && *st.running < *st.busy {
			// The two figures come from two endpoints of the server:
			// say they disagree rather than show them side by side.
			running += " †"
			disagree = true
		}
		tab.add(num(b.Level), num(b.From), num(b.To), strconv.Itoa(st.samples), numP(st.busy), numP(st.slots), running, numP(st.deferred))
	}
	tab.Caption = "– where the server did not give the figure (no /slots, no running-requests gauge at /metrics)"
	if disagree {
		tab.Caption += "; † the running-requests gauge (/metrics) never read as many as /slots showed busy in this level: " +
			"the server's two figures disagree, and the slots are its own state"
	}
	if err := chart.Steps(p, "slots busy", busy, chart.TTFT, false); err != nil {
		return figure{}, err
	}
	if err := chart.Steps(p, "requests running", running, chart.FirstSentence, false); err != nil {
		return figure{}, err
	}
	if err := chart.Steps(p, "requests deferred", deferred, chart.Cut, false); err != nil {
		return figure{}, err
	}
	if err := chart.Steps(p, "slots in all", total, chart.Idle, true); err != nil {
		return figure{}, err
	}
	chart.FromZero(p)
	// Room above the highest line for the bands' names.
	p.Y.Max *= 1.25
	return draw(p, chart.Height, *tab.numericFrom(1))
}

// rampBand is the level's ramp (settings.ramp) as a band over its first
// duration_ms on the level's clock, and the requests due in it
// (summary.ramp) with whether they were left out of the figures; nil
// without a ramp.
func rampBand(l *rundir.Load, level float64) (*chart.Band, string) {
	r := l.Settings.Ramp
	if r == nil || !(r.DurationMs > 0) {
		return nil, ""
	}
	n := 0
	for _, lv := range l.Levels {
		if lv.Level == level {
			n = lv.Summary.Ramp
		}
	}
	what := fmt.Sprintf("%d, left out", n)
	if r.Keep {
		what = fmt.Sprintf("%d, kept (--ramp-keep)", n)
	}
	return &chart.Band{From: 0, To: r.DurationMs, Label: fmt.Sprintf("ramp (%s): %s", r.Shape, what)}, what
}
