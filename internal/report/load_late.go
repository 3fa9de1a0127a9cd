package report

import (
	"fmt"
	"strconv"

	"ttftlab/internal/artifact"
	"ttftlab/internal/rundir"
)

// lateTable is each level's lateness (summary.late_ms): how late its
// requests began past the moment each could, p50, p95 and p99 with their
// 95 % intervals and the largest, over every request the level started;
// a level whose client fell behind (artifact's FellBehind) is marked. Nil
// when no level has it (files written before it).
func lateTable(l *rundir.Load) *table {
	t := table{Head: []string{"level", "n", "p50", "p95", "p99", "max", "kept to its schedule"}}
	over := ""
	for _, lv := range l.Levels {
		d := lv.Summary.LateMs
		if d == nil {
			continue
		}
		if over == "" {
			over = d.Over
		}
		cells := []string{num(lv.Level), strconv.Itoa(d.N)}
		for _, q := range []string{"p50", "p95", "p99"} {
			ci, _ := quantileCI(*d, q)
			cells = append(cells, withCI(quantile(*d, q), ci))
		}
		cells = append(cells, numP(d.Max))
		behind := lv.Summary.FellBehind()
		class := ""
		if behind {
			class = "bad"
		}
		kept := value(!behind)
		if d.N == 0 {
			kept = "– (no request began)"
		}
		t.addClass(class, append(cells, kept)...)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	if over == "" {
		over = artifact.OverLate
	}
	t.Caption = fmt.Sprintf("lateness by level (late_ms, ms): how late each request began past the moment it could begin, over %s (n: how many); "+
		"p50, p95 and p99 with their 95 %% intervals; the client did not keep to its schedule where p99 is above %s ms", over, num(artifact.BehindLimitMs))
	t.numericFrom(1)
	delete(t.Numeric, 6)
	return &t
}

// behindWarnings say, for each level whose client fell behind (its
// requests' late_ms p99 above artifact.BehindLimitMs), that it did not
// keep to its schedule: the level's figures then hold the client's own
// delay.
func behindWarnings(l *rundir.Load) []string {
	var out []string
	for _, lv := range l.Levels {
		if !lv.Summary.FellBehind() {
			continue
		}
		d := lv.Summary.LateMs
		out = append(out, fmt.Sprintf("at %s the client did not keep to its schedule: its requests began %s ms late at p99 (max %s ms, over %d requests: %s), "+
			"above %s ms; the level's figures hold the client's own delay as well as the server's",
			l.LevelName(lv.Level), numP(d.P99), numP(d.Max), d.N, d.Over, num(artifact.BehindLimitMs)))
	}
	return out
}
