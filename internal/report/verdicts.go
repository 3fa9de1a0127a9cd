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

// Reps is the bootstrap's number of replicates: enough that Holm's
// finest level is resolved over up to 47 figures (interval.RepsFor);
// figures.CompareAB draws more for more figures.
const Reps = 2000

// DriftWarning is said beside the verdicts on two runs made separately:
// however many runs a side pools, the machine may have drifted between
// when A ran and when B ran.
const DriftWarning = "A and B ran separately: the drift between when A ran and when B ran is not covered, even with --runs N a side (pooling a side's runs does not remove it); `ttftlab ab` runs them interleaved and covers it"

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

// compare is the verdict on every figure both a and b have: B/A of each
// statistic with its bootstrap interval (runs and requests resampled) at
// the level of its Holm step, Holm-corrected over all of them, by
// figures.CompareAB: the one comparison of ab() and of the report.
// Of the two sides of one interleaved run (meta.Interleaved) the drift
// falls on both alike; of two separate runs it is not covered, and the
// comparison says so.
func compare(a, b run, meta Meta) *artifact.Compare {
	c := &artifact.Compare{Kind: string(a.kind), A: absDir(a.dir()), B: absDir(b.dir()),
		RunsA: len(a.perRun), RunsB: len(b.perRun), Seed: meta.Seed, Level: interval.Level, Alpha: interval.Alpha,
		Figures: []artifact.CompareFigure{}, OnlyA: []string{}, OnlyB: []string{}}
	ab := figures.CompareAB(a.perRun, b.perRun, stats(a, b), meta.Seed, Reps)
	c.Reps = ab.Reps
	c.Interleaved, c.DriftCovered = meta.Interleaved, meta.Interleaved
	if !c.DriftCovered {
		c.Warning = DriftWarning
	}
	if ma, mb := a.modelName(), b.modelName(); ma != "" && mb != "" && ma != mb {
		c.Differ = append(c.Differ, fmt.Sprintf("model: A %s, B %s", ma, mb))
	}
	c.Differ = append(c.Differ, settingsDiffer(a, b)...)
	for _, f := range ab.Figures {
		switch f.OnlyIn {
		case "A":
			c.OnlyA = append(c.OnlyA, f.Name)
			continue
		case "B":
			c.OnlyB = append(c.OnlyB, f.Name)
			continue
		}
		cf := artifact.CompareFigure{Name: f.Name, Unit: f.A.Unit, Stat: f.Stat, A: artifact.Num(finiteOr(f.AValue)),
			B: artifact.Num(finiteOr(f.BValue)), NA: f.A.N, NB: f.B.N, Verdict: string(f.Verdict), AllZero: f.AllZero}
		if r := f.Ratio.Ratio; !math.IsInf(r, 0) && r > 0 {
			cf.Ratio = artifact.Num(r)
		}
		if !f.Ratio.Unbounded {
			cf.RatioCI = artifact.CI(false, f.Ratio.Lo, f.Ratio.Hi)
			cf.Level = artifact.Num(f.Ratio.Level)
			cf.P = artifact.Num(f.Ratio.P)
		}
		if f.RunsFor5 > 0 {
			n := f.RunsFor5
			cf.RunsFor5Pct = &n
		}
		c.Figures = append(c.Figures, cf)
	}
	return c
}

// finiteOr is x, or NaN (null in the file) when it is infinite: a
// percentile that falls on a failed request.
func finiteOr(x float64) float64 {
	if math.IsInf(x, 0) {
		return math.NaN()
	}
	return x
}

// ratioCIText is B/A, its interval and the interval's level, "1.30×",
// "[1.21, 1.42]", "97.5 %", or the ratio alone with dashes.
func ratioCIText(f artifact.CompareFigure) (string, string, string) {
	r := "–"
	if f.Ratio != nil {
		r = strconv.FormatFloat(*f.Ratio, 'f', 2, 64) + "×"
	}
	if f.RatioCI == nil || f.Level == nil {
		return r, "–", "–"
	}
	return r, fmt.Sprintf("[%s, %s]", strconv.FormatFloat(f.RatioCI[0], 'f', 2, 64), strconv.FormatFloat(f.RatioCI[1], 'f', 2, 64)), figures.LevelText(*f.Level)
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

// overText says how A and B ran, what the intervals resample and with
// which seed.
func overText(c *artifact.Compare) string {
	if c.Interleaved {
		how, what := "one run a side", "its repetitions"
		if c.RunsA > 1 || c.RunsB > 1 {
			how, what = runsOfAB(c), "runs and repetitions"
		}
		return fmt.Sprintf("A and B ran interleaved, each step's repetitions in the order A B B A, so a drift fell on both alike; %s; bootstrap of %s, seed %d, %d replicates; %s",
			how, what, c.Seed, c.Reps, holmText(c))
	}
	what := "runs and requests"
	if c.RunsA < 2 || c.RunsB < 2 {
		what = "requests only"
	}
	return fmt.Sprintf("%s, made separately; bootstrap of %s, seed %d, %d replicates; %s",
		runsOfAB(c), what, c.Seed, c.Reps, holmText(c))
}

// runsOfAB says how many runs each side has: "2 runs of A, 1 of B".
func runsOfAB(c *artifact.Compare) string {
	if c.RunsA == 1 {
		return fmt.Sprintf("1 run of A, %d of B", c.RunsB)
	}
	return fmt.Sprintf("%d runs of A, %d of B", c.RunsA, c.RunsB)
}

// holmText says over how many figures Holm's correction ran: those with
// an interval, not one of too few samples nor one that is 0 on both sides
// (all_zero), which stand outside its family.
func holmText(c *artifact.Compare) string {
	n := 0
	for _, f := range c.Figures {
		if f.Verdict != string(interval.Undecided) && !f.AllZero {
			n++
		}
	}
	if n == 1 {
		return "Holm over 1 figure"
	}
	return fmt.Sprintf("Holm over %d figures", n)
}

// FormatVerdicts writes the verdicts as a short table for the console:
// each figure's B/A with the interval its verdict was made with and that
// interval's level, the verdict and the runs that would detect 5 %, then
// the drift warning when it applies.
func FormatVerdicts(w io.Writer, c *artifact.Compare) error {
	fmt.Fprintf(w, "B/A, each interval at its verdict's Holm level (%s):\n", overText(c))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "figure\tstat\tB/A\tinterval\tlevel\tverdict\truns for 5 %")
	for _, f := range c.Figures {
		r, ci, level := ratioCIText(f)
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", f.Name, f.Stat, r, ci, level, f.Verdict, runsText(f))
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
	for _, d := range c.Differ {
		if _, err := fmt.Fprintf(w, "A and B differ: %s\n", d); err != nil {
			return err
		}
	}
	if c.Warning != "" {
		_, err := fmt.Fprintf(w, "warning: %s\n", c.Warning)
		return err
	}
	return nil
}

// settingsDiffer names every setting the runs record that differs
// between a and b ("kb: A kb-a, B the bundled KB"): of a load run each
// field of its settings but what only tells the run and its shards apart,
// of a lab run the API and the KB steps.json records.
func settingsDiffer(a, b run) []string {
	var out []string
	if a.load != nil && b.load != nil {
		for _, d := range a.load.Settings.Differences(b.load.Settings, "run_id", "shard", "start_at_unix_ms") {
			va, vb := d.A, d.B
			if d.Field == "kb" {
				va, vb = kbName(a.load.Settings.KB), kbName(b.load.Settings.KB)
			}
			out = append(out, fmt.Sprintf("%s: A %s, B %s", d.Field, va, vb))
		}
		return out
	}
	if a.lab == nil || b.lab == nil || a.lab.Steps == nil || b.lab.Steps == nil {
		return nil
	}
	sa, sb := a.lab.Steps, b.lab.Steps
	if apiName(sa.API) != apiName(sb.API) {
		out = append(out, fmt.Sprintf("api: A %s, B %s", apiName(sa.API), apiName(sb.API)))
	}
	if sa.KB != sb.KB {
		out = append(out, fmt.Sprintf("kb: A %s, B %s", kbName(sa.KB), kbName(sb.KB)))
	}
	return out
}

// kbName is a recorded --kb, "the bundled KB" when none was given.
func kbName(dir string) string {
	if dir == "" {
		return "the bundled KB"
	}
	return dir
}

// apiName is a recorded API, chat when a folder from before it was
// recorded has none.
func apiName(api string) string {
	if api == "" {
		return "chat"
	}
	return api
}
