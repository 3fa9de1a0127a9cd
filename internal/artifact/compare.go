package artifact

// CompareFile is the name of the A/B verdicts written beside a
// comparison's HTML page (compare.html, compare.json).
const CompareFile = "compare.json"

// Compare is compare.json: `ttftlab report A B`'s verdict on every figure
// both folders have, B against A (docs/report.md, docs/statistics.md).
type Compare struct {
	Kind string `json:"kind"`
	// A and B are the folders compared; RunsA and RunsB their runs (1 for
	// a single run, N for a folder of --runs N).
	A     string `json:"a"`
	B     string `json:"b"`
	RunsA int    `json:"runs_a"`
	RunsB int    `json:"runs_b"`
	// Seed and Reps are the bootstrap's: the same seed gives the same
	// intervals. Alpha is the family-wise error rate Holm's correction
	// holds over the figures, Level its complement (0.95): each figure's
	// interval has the level of its Holm step (CompareFigure.Level), 95 %
	// or more.
	Seed  uint64  `json:"seed"`
	Reps  int     `json:"reps"`
	Level float64 `json:"level"`
	Alpha float64 `json:"alpha"`
	// Interleaved is true when A and B are the two sides of one run that
	// interleaved them (`ttftlab ab`: each step's repetitions A B B A).
	// DriftCovered is true then: a drift of the machine fell on both
	// sides alike. Of two runs made separately it is false, whatever
	// their runs a side, and Warning says that the drift between when A
	// ran and when B ran is not in the intervals.
	Interleaved  bool   `json:"interleaved"`
	DriftCovered bool   `json:"drift_covered"`
	Warning      string `json:"warning"`
	// Differ names what besides the figures is not the same in A and B,
	// e.g. "model: A stories260K, B synth (synthetic)": the verdicts then
	// compare the two set-ups, not one change; absent when nothing known
	// differs.
	Differ []string `json:"differ,omitempty"`
	// Figures are the figures both sides have, in A's order; OnlyA and
	// OnlyB name the figures one side lacks.
	Figures []CompareFigure `json:"figures"`
	OnlyA   []string        `json:"only_a"`
	OnlyB   []string        `json:"only_b"`
}

// CompareFigure is one figure's verdict.
type CompareFigure struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Stat is the statistic compared: "p50" (the median) or, for a load
	// level, also each percentile the runs' SLOs are set on ("p95" when
	// none).
	Stat string `json:"stat"`
	// A and B are the statistic over each side's pooled samples, NA and
	// NB how many (failed requests count above every time).
	A  *float64 `json:"a"`
	B  *float64 `json:"b"`
	NA int      `json:"n_a"`
	NB int      `json:"n_b"`
	// Ratio is B/A with the bootstrap interval its verdict was made with
	// and the p-value of B/A = 1; null when there is none (too few
	// samples). Level is the interval's confidence, that of the figure's
	// Holm step, 1 - alpha/(m-k+1) for the k-th smallest p of m: the
	// interval excludes 1 exactly when the verdict is faster or slower.
	Ratio   *float64    `json:"ratio"`
	RatioCI *[2]float64 `json:"ratio_ci"`
	Level   *float64    `json:"level"`
	P       *float64    `json:"p"`
	// Verdict is "faster", "slower", "no difference detected" or "too few
	// samples", after Holm's correction over the figures of the file with
	// an interval that are not AllZero.
	Verdict string `json:"verdict"`
	// RunsFor5Pct is the runs per variant that would detect a 5 %
	// difference (power 80 %); null when unknown.
	RunsFor5Pct *int `json:"runs_for_5pct"`
	// AllZero is true when every sample of both sides is 0 (no stall, no
	// underrun): B is A exactly, B/A 1 [1, 1], no difference detected,
	// and no more samples would change it; absent otherwise.
	AllZero bool `json:"all_zero,omitempty"`
}
