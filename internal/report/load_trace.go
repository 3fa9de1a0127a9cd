package report

import (
	"fmt"
	"math"
	"path/filepath"
	"strconv"

	"gonum.org/v1/plot/plotter"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// arrivalBins is the number of bins a replay's span is cut into, about:
// each bin a whole number of seconds, at least one (binMs).
const arrivalBins = 60

// binMs is the width of a replay's bins over span ms: the span over
// arrivalBins rounded up to a whole second, at least 1 s.
func binMs(span float64) float64 {
	if !(span > 0) {
		return 1000
	}
	return max(1, math.Ceil(span/arrivalBins/1000)) * 1000
}

// arrivalBin is one bin of a replay: its start, the requests due in it
// (their scheduled_ms) and those that began in it, and the prompt tokens
// of the requests that began in it: the server's (cache_n, prompt_n,
// over the requests that have both) and the trace's (trace_shared_n,
// trace_input_n, over the requests that have both).
type arrivalBin struct {
	FromMs          float64
	Due, Began      int
	CacheN, PromptN float64
	CacheRows       int
	SharedN, InputN float64
	SharedRows      int
}

// cacheShare is the share of the bin's prompt tokens the server took
// from its cache, false when no request of it says.
func (b arrivalBin) cacheShare() (float64, bool) {
	return share(b.CacheN, b.CacheN+b.PromptN, b.CacheRows)
}

// sharedShare is the share of the bin's prompt tokens an earlier request
// of the trace had sent, false when no request of it says.
func (b arrivalBin) sharedShare() (float64, bool) {
	return share(b.SharedN, b.InputN, b.SharedRows)
}

func share(part, whole float64, rows int) (float64, bool) {
	if rows == 0 || !(whole > 0) {
		return 0, false
	}
	return part / whole, true
}

// arrivals are a replay's requests in bins of BinMs, and the whole
// replay's counts and tokens (Total, its FromMs 0).
type arrivals struct {
	BinMs float64
	Bins  []arrivalBin
	Total arrivalBin
}

// beganAt is when a request's turn began on its level's clock: when it
// was due and its wait (scheduled_ms + queue_ms), the moment its schedule
// promised it; without --stt the same as its start_ms, with it the moment
// the caller began to speak the turn. A row lacking them falls back to
// start_ms; false when it has none.
func beganAt(r artifact.LoadRequest) (float64, bool) {
	if r.ScheduledMs != nil && r.QueueMs != nil {
		return *r.ScheduledMs + *r.QueueMs, true
	}
	if r.StartMs != nil {
		return *r.StartMs, true
	}
	return 0, false
}

// arrivalsOf bins the rows of one replay (warm-up included: the trace's
// arrivals are every request's): each is due in the bin of its
// scheduled_ms and began, with its prompt's tokens, in the bin of
// beganAt (a row that never began counts as due only).
func arrivalsOf(rows []artifact.LoadRequest) arrivals {
	span := 0.0
	for _, r := range rows {
		if r.ScheduledMs != nil {
			span = max(span, *r.ScheduledMs)
		}
		if t, ok := beganAt(r); ok {
			span = max(span, t)
		}
	}
	a := arrivals{BinMs: binMs(span)}
	n := int(span/a.BinMs) + 1
	a.Bins = make([]arrivalBin, n)
	for i := range a.Bins {
		a.Bins[i].FromMs = float64(i) * a.BinMs
	}
	at := func(t float64) *arrivalBin {
		return &a.Bins[min(n-1, max(0, int(t/a.BinMs)))]
	}
	for _, r := range rows {
		if r.ScheduledMs != nil {
			at(*r.ScheduledMs).Due++
			a.Total.Due++
		}
		t, ok := beganAt(r)
		if !ok {
			continue
		}
		for _, b := range []*arrivalBin{at(t), &a.Total} {
			b.Began++
			if r.CacheN != nil && r.PromptN != nil {
				b.CacheN += *r.CacheN
				b.PromptN += *r.PromptN
				b.CacheRows++
			}
			if r.TraceSharedN != nil && r.TraceInputN != nil {
				b.SharedN += *r.TraceSharedN
				b.InputN += *r.TraceInputN
				b.SharedRows++
			}
		}
	}
	return a
}

// pct shows a share as a percentage with one decimal.
func pct(x float64) string { return strconv.FormatFloat(100*x, 'f', 1, 64) + " %" }

// traceSection is a replayed trace's page (settings.trace): what was
// replayed, then for each level (one: its speed) the arrival rate the
// trace scheduled against the one achieved, and the share of the prompt
// tokens the server took from its cache against the trace's own sharing
// (a Mooncake trace's; a call log has none). Nil for another run.
func traceSection(l *rundir.Load) *section {
	tr := l.Settings.Trace
	if l.Settings.Mode != "trace" || tr == nil {
		return nil
	}
	var builders []func() (figure, error)
	var notes []quote
	for _, lv := range requestLevels(l) {
		var rows []artifact.LoadRequest
		for _, r := range l.Requests {
			if r.Level == lv {
				rows = append(rows, r)
			}
		}
		a := arrivalsOf(rows)
		name := l.LevelName(lv)
		builders = append(builders, func() (figure, error) { return arrivalFigure(name, a) })
		if a.Total.CacheRows == 0 && a.Total.SharedRows == 0 {
			notes = append(notes, quote{Label: "cache not drawn", Text: name + ": no request has the server's cache_n and prompt_n (a server that does not give them) nor the trace's sharing"})
			continue
		}
		builders = append(builders, func() (figure, error) { return cacheFigure(name, a, tr) })
	}
	s := sectionOf("trace", "The replayed trace",
		"The trace's schedule against the replay: every request of the replay (warm-up included) counted in bins of whole seconds "+
			"(the replay's span over 60, rounded up, at least 1 s), due at its scheduled_ms and begun at scheduled_ms + queue_ms, "+
			"the moment its turn began (the request's start_ms, or with --stt when the caller began to speak it). "+
			"Then the share of the prompt tokens the server took from its cache (cache_n of cache_n + prompt_n) against the share "+
			"the trace itself shares (trace_shared_n of trace_input_n: the leading blocks an earlier line had), over the whole replay and bin by bin, "+
			"each request in the bin it began in.", builders...)
	s.Quotes = append(s.Quotes, notes...)
	s.Tables = append(s.Tables, traceTable(tr))
	return &s
}

// traceTable is the trace's heading: what was replayed and how.
func traceTable(tr *artifact.LoadTrace) table {
	t := table{Caption: "the trace replayed (settings.trace)", Head: []string{"", "value"}}
	t.add("file", tr.File)
	t.add("format", tr.Format)
	t.add("sha256", tr.SHA256)
	t.add("lines read", strconv.Itoa(tr.Lines))
	t.add("calls replayed", strconv.Itoa(tr.Calls))
	t.add("requests replayed", strconv.Itoa(tr.Requests))
	t.add("speed", "x"+num(tr.Speed)+" (the trace's times divided by it)")
	window := "the whole trace"
	if tr.FromMs != nil || tr.ToMs != nil {
		from, to := "its start", "its end"
		if tr.FromMs != nil {
			from = num(*tr.FromMs) + " ms"
		}
		if tr.ToMs != nil {
			to = num(*tr.ToMs) + " ms"
		}
		window = fmt.Sprintf("from %s to %s, on the trace's own clock", from, to)
	}
	t.add("window", window)
	most := "no cap"
	if tr.Max > 0 {
		most = strconv.Itoa(tr.Max) + " (a call beyond it waited: its queue_ms)"
	}
	t.add("calls at once, at most", most)
	if tr.Block > 0 {
		t.add("tokens per hash_id block", strconv.Itoa(tr.Block))
	}
	if tr.Vocab > 0 {
		t.add("vocabulary of the prompts' token ids", strconv.Itoa(tr.Vocab))
	}
	if tr.SharedShare != nil {
		t.add("the trace's own sharing (shared_share)", pct(*tr.SharedShare))
	}
	return t
}

// arrivalFigure draws the requests per second the trace made due and
// those that began, bin by bin.
func arrivalFigure(level string, a arrivals) (figure, error) {
	p := chart.New("Arrivals at "+level+": due by the trace and begun", "time since the replay began (s)", "requests per second")
	perS := a.BinMs / 1000
	var due, began plotter.XYs
	more := table{Caption: fmt.Sprintf("every bin of %s s", num(perS)), Head: []string{"from (s)", "due", "begun", "due/s", "begun/s"}}
	peakDue, peakBegan := 0.0, 0.0
	for _, b := range a.Bins {
		x := b.FromMs / 1000
		d, g := float64(b.Due)/perS, float64(b.Began)/perS
		due, began = append(due, plotter.XY{X: x, Y: d}), append(began, plotter.XY{X: x, Y: g})
		peakDue, peakBegan = max(peakDue, d), max(peakBegan, g)
		more.add(num(x), strconv.Itoa(b.Due), strconv.Itoa(b.Began), num(d), num(g))
	}
	// The last bin's rate holds to its end.
	end := (a.Bins[len(a.Bins)-1].FromMs + a.BinMs) / 1000
	due = append(due, plotter.XY{X: end, Y: due[len(due)-1].Y})
	began = append(began, plotter.XY{X: end, Y: began[len(began)-1].Y})
	if err := chart.Steps(p, "due (the trace's schedule)", due, chart.Due, true); err != nil {
		return figure{}, err
	}
	if err := chart.Steps(p, "begun (the replay)", began, chart.Began, false); err != nil {
		return figure{}, err
	}
	p.X.Min = 0
	chart.FromZero(p)
	chart.Headroom(p, 0.06)
	tab := table{Caption: fmt.Sprintf("over every request of the replay, in bins of %s s", num(perS)), Head: []string{"", "value"}}
	tab.add("requests due", strconv.Itoa(a.Total.Due))
	tab.add("requests begun", strconv.Itoa(a.Total.Began))
	tab.add("bin (s)", num(perS))
	tab.add("most due in a bin (/s)", num(peakDue))
	tab.add("most begun in a bin (/s)", num(peakBegan))
	f, err := draw(p, chart.Height, *tab.numericFrom(1))
	more.numericFrom(0)
	f.More = &more
	return f, err
}

// cacheFigure draws, bin by bin, the share of the prompt tokens the
// server took from its cache and the share the trace itself shares.
func cacheFigure(level string, a arrivals, tr *artifact.LoadTrace) (figure, error) {
	p := chart.New("Prompt cache at "+level+": the server's hits and the trace's sharing", "time since the replay began (s)", "share of the prompt tokens (%)")
	var hits, shared plotter.XYs
	more := table{Caption: fmt.Sprintf("every bin of %s s, each request in the bin it began in", num(a.BinMs/1000)),
		Head: []string{"from (s)", "requests with cache_n", "server's cache", "requests with trace_shared_n", "trace's sharing"}}
	for _, b := range a.Bins {
		x := (b.FromMs + a.BinMs/2) / 1000
		h, hasH := b.cacheShare()
		s, hasS := b.sharedShare()
		hc, sc := "–", "–"
		if hasH {
			hits = append(hits, plotter.XY{X: x, Y: 100 * h})
			hc = pct(h)
		}
		if hasS {
			shared = append(shared, plotter.XY{X: x, Y: 100 * s})
			sc = pct(s)
		}
		if b.CacheRows > 0 || b.SharedRows > 0 {
			more.add(num(b.FromMs/1000), strconv.Itoa(b.CacheRows), hc, strconv.Itoa(b.SharedRows), sc)
		}
	}
	if len(hits) > 0 {
		if err := chart.LinePoints(p, "the server's cache (cache_n)", hits, chart.Cached); err != nil {
			return figure{}, err
		}
	}
	if len(shared) > 0 {
		if err := chart.LinePoints(p, "the trace's sharing (trace_shared_n)", shared, chart.Shared); err != nil {
			return figure{}, err
		}
	}
	p.X.Min = 0
	p.Y.Min, p.Y.Max = 0, 100
	chart.Headroom(p, 0.06)
	tab := table{Caption: "over the whole replay", Head: []string{"", "share", "requests"}}
	if h, ok := a.Total.cacheShare(); ok {
		tab.add("the server's cache: cache_n / (cache_n + prompt_n)", pct(h), strconv.Itoa(a.Total.CacheRows))
	} else {
		tab.add("the server's cache: cache_n / (cache_n + prompt_n)", "– (no request has both)", "0")
	}
	if s, ok := a.Total.sharedShare(); ok {
		tab.add("the trace's sharing: trace_shared_n / trace_input_n", pct(s), strconv.Itoa(a.Total.SharedRows))
	}
	if tr.SharedShare != nil {
		tab.add("the trace's sharing over its kept lines (shared_share)", pct(*tr.SharedShare), strconv.Itoa(tr.Requests))
	}
	f, err := draw(p, chart.Height, *tab.numericFrom(1))
	more.numericFrom(0)
	f.More = &more
	return f, err
}

// traceHeadline is a replayed trace's first tile, in place of a capacity
// (a replay has one level, its speed, and no capacity): the trace, its
// speed and what it replayed.
func traceHeadline(l *rundir.Load) headline {
	h := headline{Label: "Trace replayed", Value: "speed unknown", Note: "one level: the trace's own arrivals, SLO verdicts but no capacity"}
	if len(l.Levels) > 0 {
		h.Value = l.LevelName(l.Levels[0].Level)
	}
	if tr := l.Settings.Trace; tr != nil {
		h.Value = filepath.Base(tr.File) + ", x" + num(tr.Speed)
		h.Note = fmt.Sprintf("%d calls, %d requests of a %s trace; ", tr.Calls, tr.Requests, tr.Format) + h.Note
	}
	return h
}
