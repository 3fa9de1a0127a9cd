package report

import (
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"ttftlab/internal/artifact"
	"ttftlab/internal/figures"
	"ttftlab/internal/interval"
	"ttftlab/internal/rundir"
)

// DefaultSeed is the bootstrap's seed when the command line gives none:
// fixed, so the same two folders give the same intervals.
const DefaultSeed uint64 = 1

// Reps is the bootstrap's number of replicates: enough that the smallest
// p-value it can give (2/(Reps+1)) passes Holm's threshold over a load
// run's many figures.
const Reps = 2000

// DriftWarning is said beside verdicts from a single run on a side: the
// bootstrap resamples only its requests.
const DriftWarning = "drift between runs is not covered: repeat with --runs"

// sideFigure is one figure of one side: its values run by run.
type sideFigure struct {
	unit   string
	perRun [][]float64
	n      int
}

// byName gathers each figure's samples over the side's runs, in the order
// of first appearance; a run without the figure adds no run.
func byName(perRun [][]figures.Sample) (map[string]*sideFigure, []string) {
	out := map[string]*sideFigure{}
	var order []string
	for _, run := range perRun {
		for _, s := range run {
			f := out[s.Name]
			if f == nil {
				f = &sideFigure{unit: s.Unit}
				out[s.Name] = f
				order = append(order, s.Name)
			}
			if len(s.Values) > 0 {
				f.perRun = append(f.perRun, s.Values)
				f.n += len(s.Values)
			}
		}
	}
	return out, order
}

// stats are the statistics compared for each figure: the median, and
// for load runs also the percentiles their SLOs are set on (p95 when
// neither run set one), in ascending order.
func stats(a, b run) []string {
	out := []string{"p50"}
	if a.kind != rundir.KindLoad {
		return out
	}
	var ps []float64
	for _, r := range []run{a, b} {
		for _, o := range r.load.Settings.SLO {
			if o.Percentile > 0 && o.Percentile < 100 && o.Percentile != 50 && !slices.Contains(ps, o.Percentile) {
				ps = append(ps, o.Percentile)
			}
		}
	}
	if len(ps) == 0 {
		ps = []float64{95}
	}
	slices.Sort(ps)
	for _, p := range ps {
		out = append(out, "p"+strconv.FormatFloat(p, 'f', -1, 64))
	}
	return out
}

func statOf(name string) interval.Stat {
	p, _ := strconv.ParseFloat(strings.TrimPrefix(name, "p"), 64)
	return interval.Quantile(p)
}

// compare is the verdict on every figure both a and b have: B/A of each
// statistic with its bootstrap interval (runs and requests resampled),
// Holm-corrected over all of them.
func compare(a, b run, seed uint64) *artifact.Compare {
	c := &artifact.Compare{Kind: string(a.kind), A: absDir(a.dir()), B: absDir(b.dir()),
		RunsA: len(a.perRun), RunsB: len(b.perRun), Seed: seed, Reps: Reps, Level: interval.Level, Alpha: interval.Alpha,
		Figures: []artifact.CompareFigure{}, OnlyA: []string{}, OnlyB: []string{}}
	c.DriftCovered = c.RunsA >= 2 && c.RunsB >= 2
	if !c.DriftCovered {
		c.Warning = DriftWarning
	}
	sts := stats(a, b)
	fa, order := byName(a.perRun)
	fb, orderB := byName(b.perRun)
	var names []string
	var ratios []interval.Ratio
	for _, name := range order {
		sb, ok := fb[name]
		if !ok {
			c.OnlyA = append(c.OnlyA, name)
			continue
		}
		sa := fa[name]
		for _, st := range sts {
			stat := statOf(st)
			var r interval.Ratio
			if !bounded(sa, st) || !bounded(sb, st) {
				r = interval.Ratio{RunsA: len(sa.perRun), RunsB: len(sb.perRun), Reps: Reps, Seed: seed, Unbounded: true,
					Ratio: stat(flat(sb.perRun)) / stat(flat(sa.perRun))}
			} else {
				r = interval.RatioCI(sa.perRun, sb.perRun, stat, Reps, seed)
			}
			names = append(names, name)
			ratios = append(ratios, r)
			c.Figures = append(c.Figures, artifact.CompareFigure{Name: name, Unit: sa.unit, Stat: st,
				A: artifact.Num(finiteOr(stat(flat(sa.perRun)))), B: artifact.Num(finiteOr(stat(flat(sb.perRun)))), NA: sa.n, NB: sb.n})
		}
	}
	for _, name := range orderB {
		if _, ok := fa[name]; !ok {
			c.OnlyB = append(c.OnlyB, name)
		}
	}
	for i, v := range interval.Verdicts(names, ratios) {
		f := &c.Figures[i]
		f.Verdict = string(v.Verdict)
		if r := v.Ratio; !math.IsInf(r.Ratio, 0) && r.Ratio > 0 {
			f.Ratio = artifact.Num(r.Ratio)
		}
		if !v.Ratio.Unbounded {
			f.RatioCI = artifact.CI(false, v.Ratio.Lo, v.Ratio.Hi)
			f.P = artifact.Num(v.Ratio.P)
		}
		if v.RunsFor5 > 0 {
			n := v.RunsFor5
			f.RunsFor5Pct = &n
		}
	}
	return c
}

// bounded says whether a side's samples bound the percentile st at all:
// the order-statistic interval of the page's tables (p50 needs 6 samples,
// p95 72), and neither bound on a failed request. A ratio of a percentile
// its samples cannot bound is "too few samples": the bootstrap cannot
// draw values beyond the sample's, so its interval would look narrower
// than the figure's own.
func bounded(f *sideFigure, st string) bool {
	p, err := strconv.ParseFloat(strings.TrimPrefix(st, "p"), 64)
	return err == nil && !interval.PercentileCI(flat(f.perRun), p).Unbounded
}

func flat(runs [][]float64) []float64 {
	var out []float64
	for _, r := range runs {
		out = append(out, r...)
	}
	return out
}

// finiteOr is x, or NaN (null in the file) when it is infinite: a
// percentile that falls on a failed request.
func finiteOr(x float64) float64 {
	if math.IsInf(x, 0) {
		return math.NaN()
	}
	return x
}

// ratioCIText is B/A with its interval, "1.30× [1.21, 1.42]", or the
// ratio alone with "no interval".
func ratioCIText(f artifact.CompareFigure) (string, string) {
	r := "–"
	if f.Ratio != nil {
		r = strconv.FormatFloat(*f.Ratio, 'f', 2, 64) + "×"
	}
	if f.RatioCI == nil {
		return r, "–"
	}
	return r, fmt.Sprintf("[%s, %s]", strconv.FormatFloat(f.RatioCI[0], 'f', 2, 64), strconv.FormatFloat(f.RatioCI[1], 'f', 2, 64))
}

func runsText(f artifact.CompareFigure) string {
	if f.RunsFor5Pct == nil {
		return "–"
	}
	return strconv.Itoa(*f.RunsFor5Pct)
}

// counts are the verdicts by kind, in a fixed order, for a summary.
func counts(c *artifact.Compare) string {
	n := map[string]int{}
	for _, f := range c.Figures {
		n[f.Verdict]++
	}
	var parts []string
	for _, v := range []interval.Verdict{interval.Slower, interval.Faster, interval.NoDifference, interval.Undecided} {
		parts = append(parts, fmt.Sprintf("%d %s", n[string(v)], v))
	}
	return strings.Join(parts, ", ")
}

// overText says what the intervals resample and with which seed.
func overText(c *artifact.Compare) string {
	what := "runs and requests"
	if !c.DriftCovered {
		what = "requests only"
	}
	return fmt.Sprintf("%d runs of A, %d of B; bootstrap of %s, seed %d, %d replicates; Holm over %d figures",
		c.RunsA, c.RunsB, what, c.Seed, c.Reps, len(c.Figures))
}

// FormatVerdicts writes the verdicts as a short table for the console:
// each figure's B/A with its interval, verdict and the runs that would
// detect 5 %, then the drift warning when it applies.
func FormatVerdicts(w io.Writer, c *artifact.Compare) error {
	fmt.Fprintf(w, "B/A, 95 %% interval (%s):\n", overText(c))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tstat\tB/A\t95 % interval\tverdict\truns for 5 %")
	for _, f := range c.Figures {
		r, ci := ratioCIText(f)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, f.Stat, r, ci, f.Verdict, runsText(f))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if len(c.OnlyA) > 0 {
		fmt.Fprintf(w, "only in A: %s\n", strings.Join(c.OnlyA, ", "))
	}
	if len(c.OnlyB) > 0 {
		fmt.Fprintf(w, "only in B: %s\n", strings.Join(c.OnlyB, ", "))
	}
	if c.Warning != "" {
		_, err := fmt.Fprintf(w, "warning: %s\n", c.Warning)
		return err
	}
	return nil
}
