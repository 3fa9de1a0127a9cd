package report

import (
	"ttftlab/internal/chart"
	"ttftlab/internal/rundir"
)

// namedTokens is one request of a cache experiment.
type namedTokens struct {
	name string
	t    rundir.Tokens
}

// tokensFigure draws each request's prompt as tokens reused from the
// cache (cache_n) then tokens evaluated (prompt_n), one row each.
func tokensFigure(title string, rs []namedTokens) (figure, error) {
	p := chart.New(title, "prompt: reused from the cache, then evaluated (tokens)", "")
	var cached, evaluated []chart.Span
	names := make([]string, len(rs))
	tab := table{Head: []string{"request", "cache_n", "prompt_n", "ttft_ms"}}
	for i, r := range rs {
		names[i] = r.name
		row := float64(i)
		cached = append(cached, chart.Span{Row: row, From: 0, To: r.t.Cached()})
		evaluated = append(evaluated, chart.Span{Row: row, From: r.t.Cached(), To: r.t.Cached() + r.t.PromptN})
		tab.add(r.name, num(r.t.Cached()), num(r.t.PromptN), num(r.t.TTFTMs))
	}
	chart.AddSpans(p, "cache_n (reused)", cached, chart.Cached, 16)
	chart.AddSpans(p, "prompt_n (evaluated)", evaluated, chart.Evaluated, 16)
	h := rowsLayout(p, names, 2)
	p.X.Min = 0
	return draw(p, h, *tab.numericFrom(1))
}

// ttftBarsFigure draws each request's TTFT as a bar from the request.
func ttftBarsFigure(title string, rs []namedTokens) (figure, error) {
	p := chart.New(title, "time to first token (ms)", "")
	var bars []chart.Span
	names := make([]string, len(rs))
	tab := table{Head: []string{"request", "ttft_ms", "vs " + rs[0].name}}
	for i, r := range rs {
		names[i] = r.name
		bars = append(bars, chart.Span{Row: float64(i), From: 0, To: r.t.TTFTMs})
		tab.add(r.name, num(r.t.TTFTMs), ratio(rs[0].t.TTFTMs, r.t.TTFTMs))
	}
	chart.AddSpans(p, "ttft", bars, chart.TTFT, 16)
	h := rowsLayout(p, names, 1)
	p.X.Min = 0
	return draw(p, h, *tab.numericFrom(1))
}

func cacheSection(c *rundir.Cache) section {
	rs := []namedTokens{{"first", c.First}, {"second", c.Second}, {"changed_prefix", c.ChangedPrefix}}
	intro := "The same long prompt twice, then with a changed first line. A cache hit evaluates almost nothing; a changed prefix recomputes it all."
	return sectionOf("cache", "Prompt cache", intro,
		func() (figure, error) { return tokensFigure("Prompt cache: tokens reused and evaluated", rs) },
		func() (figure, error) { return ttftBarsFigure("Prompt cache: TTFT of each request", rs) })
}
