package report

import (
	"fmt"
	"image/color"
	"strconv"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"

	"ttftlab/internal/artifact"
	"ttftlab/internal/chart"
	"ttftlab/internal/figures"
	"ttftlab/internal/rundir"
)

// ttftFigure: TTFT and total of each run, with their medians.
func ttftFigure(t *rundir.TTFT) (figure, error) {
	p := chart.New("TTFT and total time of each run (cache off)", "run", "time since the request (ms)")
	var ttft, total plotter.XYs
	tab := table{Head: []string{"run", "ttft_ms", "total_ms", "tokens"}}
	for i, r := range t.Runs {
		x := float64(i + 1)
		ttft = append(ttft, plotter.XY{X: x, Y: r.TTFTMs})
		total = append(total, plotter.XY{X: x, Y: r.TotalMs})
		tab.add(strconv.Itoa(i+1), num(r.TTFTMs), num(r.TotalMs), num(r.Tokens))
	}
	tab.add("median", num(t.TTFTP50), num(t.TotalP50), "")
	// Each figure's mean with its t-interval over the runs, and the
	// median's order-statistic interval (too few samples at 5 runs).
	var ttftVals, totalVals []float64
	for _, r := range t.Runs {
		ttftVals, totalVals = append(ttftVals, r.TTFTMs), append(totalVals, r.TotalMs)
	}
	ft := figures.FigureOf(figures.Sample{Name: "ttft_ms", Unit: "ms"}, [][]float64{ttftVals})
	fo := figures.FigureOf(figures.Sample{Name: "total_ms", Unit: "ms"}, [][]float64{totalVals})
	tab.add("median, 95 % interval", ciOnly(ft.P50, ft.P50CI), ciOnly(fo.P50, fo.P50CI), "")
	tab.add("mean", numP(ft.Mean), numP(fo.Mean), "")
	tab.add("mean, 95 % interval", ciOnly(ft.Mean, ft.MeanCI), ciOnly(fo.Mean, fo.MeanCI), "")
	meanAt := float64(len(t.Runs) + 1)
	for _, m := range []struct {
		name string
		f    artifact.Figure
		c    color.Color
	}{{"mean ttft, 95 % interval", ft, chart.TTFT}, {"mean total, 95 % interval", fo, chart.Total}} {
		if m.f.Mean == nil || m.f.MeanCI == nil {
			continue
		}
		if err := chart.Rings(p, "", plotter.XYs{{X: meanAt, Y: *m.f.Mean}}, m.c); err != nil {
			return figure{}, err
		}
		chart.AddErrorBars(p, m.name, []chart.Interval{{At: meanAt, Lo: m.f.MeanCI[0], Hi: m.f.MeanCI[1]}}, m.c, false)
	}
	if len(t.Discarded) > 0 {
		tab.add(fmt.Sprintf("%d set aside (whole answer in one read)", len(t.Discarded)), "", "", "")
	}
	if err := chart.Points(p, "ttft", ttft, chart.TTFT); err != nil {
		return figure{}, err
	}
	if err := chart.Points(p, "total", total, chart.Total); err != nil {
		return figure{}, err
	}
	chart.AddRule(p, "median ttft", t.TTFTP50, false, chart.TTFT, true)
	chart.AddRule(p, "median total", t.TotalP50, false, chart.Total, true)
	p.X.Min, p.X.Max = 0.5, meanAt+0.5
	ticks := []plot.Tick{{Value: meanAt, Label: "mean"}}
	for _, tk := range (chart.IntegerTicks{}).Ticks(1, float64(len(t.Runs))) {
		ticks = append(ticks, tk)
	}
	p.X.Tick.Marker = plot.ConstantTicks(ticks)
	chart.FromZero(p)
	// A little room above the highest point, so no marker is cut at the top.
	chart.Headroom(p, 0.06)
	return draw(p, chart.Height, *tab.numericFrom(1))
}

// fit is the least-squares line y = a + b·x.
func fit(xs, ys []float64) (a, b float64, ok bool) {
	n := float64(len(xs))
	if len(xs) < 2 {
		return 0, 0, false
	}
	var sx, sy, sxx, sxy float64
	for i := range xs {
		sx, sy, sxx, sxy = sx+xs[i], sy+ys[i], sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	d := n*sxx - sx*sx
	if d == 0 {
		return 0, 0, false
	}
	b = (n*sxy - sx*sy) / d
	return (sy - b*sx) / n, b, true
}

// prefillFigure: TTFT and the server's prompt_ms against the prompt's
// length, each with its fitted cost per token.
func prefillFigure(rows []rundir.PrefillRow) (figure, error) {
	p := chart.New("Prefill: time against prompt length", "prompt evaluated (tokens, prompt_n)", "time (ms)")
	tab := table{Head: []string{"docs", "prompt_n", "prompt_ms", "ttft_ms", "ttft − prompt_ms"}}
	var xs, ttft, pxs, prompt []float64
	for _, r := range rows {
		xs, ttft = append(xs, r.PromptN), append(ttft, r.TTFTMs)
		if r.PromptMs != nil { // a server without timings gives no prompt_ms
			pxs, prompt = append(pxs, r.PromptN), append(prompt, *r.PromptMs)
		}
		tab.add(num(r.Docs), num(r.PromptN), numP(r.PromptMs), num(r.TTFTMs), num(r.TTFTMs-orNaN(r.PromptMs)))
	}
	// prompt_ms first, TTFT over it as rings: TTFT is prompt_ms plus a
	// little, and a ring on top leaves the dot under it in view.
	if len(prompt) > 0 {
		if err := chart.Points(p, "prompt_ms (server)", xy(pxs, prompt), chart.Prompt); err != nil {
			return figure{}, err
		}
	}
	if err := chart.Rings(p, "ttft_ms", xy(xs, ttft), chart.TTFT); err != nil {
		return figure{}, err
	}
	slope, icept := map[string]string{}, map[string]string{}
	for _, s := range []struct {
		name string
		ys   []float64
	}{{"ttft_ms", ttft}, {"prompt_ms", prompt}} {
		x := xs
		if s.name == "prompt_ms" {
			x = pxs
		}
		a, b, ok := fit(x, s.ys)
		if !ok {
			continue
		}
		// No prompt takes negative time: a free fit that crosses below
		// zero is refitted through the origin.
		note := ""
		if a < 0 {
			a, b, note = 0, originFit(x, s.ys), " (through 0)"
		}
		c := chart.TTFT
		if s.name == "prompt_ms" {
			c = chart.Prompt
		}
		lo, hi := minMax(xs)
		line := plotter.XYs{{X: lo, Y: a + b*lo}, {X: hi, Y: a + b*hi}}
		if err := chart.Line(p, fmt.Sprintf("fit of %s: %s ms/token%s", s.name, num(b), note), line, c, true); err != nil {
			return figure{}, err
		}
		slope[s.name], icept[s.name] = num(b), num(a)+note
	}
	tab.add("fit: ms per token", "", slope["prompt_ms"], slope["ttft_ms"], "")
	tab.add("fit: ms at 0 tokens", "", icept["prompt_ms"], icept["ttft_ms"], "")
	chart.FromZero(p)
	// A little room above the highest point, so no marker is cut at the top.
	chart.Headroom(p, 0.06)
	p.X.Min = 0
	return draw(p, chart.Height, *tab.numericFrom(0))
}

// originFit is the least-squares slope of y = b·x.
func originFit(xs, ys []float64) float64 {
	var sxx, sxy float64
	for i := range xs {
		sxx, sxy = sxx+xs[i]*xs[i], sxy+xs[i]*ys[i]
	}
	if sxx == 0 {
		return 0
	}
	return sxy / sxx
}

func xy(xs, ys []float64) plotter.XYs {
	out := make(plotter.XYs, len(xs))
	for i := range xs {
		out[i] = plotter.XY{X: xs[i], Y: ys[i]}
	}
	return out
}

func minMax(xs []float64) (lo, hi float64) {
	lo, hi = xs[0], xs[0]
	for _, x := range xs {
		lo, hi = min(lo, x), max(hi, x)
	}
	return lo, hi
}
