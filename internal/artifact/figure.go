package artifact

// RunsFile is the file of a folder whose runs were repeated (--runs N):
// each run is a whole run folder of its own (run-1 ... run-N), and
// runs.json holds every figure pooled over them with its intervals.
const RunsFile = "runs.json"

// Figure is one figure pooled over the runs of a folder, with its 95 %
// intervals (docs/statistics.md). A null interval is "too few samples".
type Figure struct {
	Name string `json:"name"`
	Unit string `json:"unit"`
	// Over says what each sample is ("requests of level 4 after warm-up").
	Over string `json:"over"`
	// N is the samples pooled over Runs runs; Failed of them are failed
	// requests, counted above every finite value in the percentiles.
	N      int `json:"n"`
	Runs   int `json:"runs"`
	Failed int `json:"failed"`
	// The percentiles of the pooled samples with their order-statistic
	// (binomial) intervals.
	P50   *float64    `json:"p50"`
	P50CI *[2]float64 `json:"p50_ci"`
	P95   *float64    `json:"p95"`
	P95CI *[2]float64 `json:"p95_ci"`
	P99   *float64    `json:"p99"`
	P99CI *[2]float64 `json:"p99_ci"`
	// Mean is the mean of the runs' means with its t-interval across the
	// runs (MeanOver "runs"); from a single run, the mean of its samples
	// with the t-interval over them (MeanOver "samples", which does not
	// cover the drift between runs). Null when a sample failed.
	Mean     *float64    `json:"mean"`
	MeanCI   *[2]float64 `json:"mean_ci"`
	MeanOver string      `json:"mean_over"`
	// RunMeans are the mean of each run that has the figure, in run order
	// (null for a run with a failed sample).
	RunMeans []*float64 `json:"run_means"`
}

// Runs is runs.json.
type Runs struct {
	// Kind is "lab" or "load"; Dirs the run folders, relative, in order.
	Kind    string   `json:"kind"`
	Dirs    []string `json:"dirs"`
	Figures []Figure `json:"figures"`
}
