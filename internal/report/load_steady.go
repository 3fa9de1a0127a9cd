package report

import (
	"fmt"
	"strconv"

	"ttftlab/internal/rundir"
)

// steadyTable is each level's steady state: the transient its steady
// window left out (MSER-5), whether its first and last thirds agree, and
// the trend of its batch means across the window (Spearman's rho with its
// p-value); a level that is not steady or drifts is marked. Nil when no
// level has a steady record (files written before it).
func steadyTable(l *rundir.Load) *table {
	t := table{Caption: "steady state by level: the requests before the steady window (MSER-5 on ttft_ms) left out of the level's figures as its warm-up, " +
		"whether the first and last thirds of the rest agree, and the trend of their lateness's batch means against time (Spearman); " +
		"a level that is not steady or drifts mixes two regimes",
		Head: []string{"level", "steady from request", "left out", "thirds agree", "rho", "p", "trend"}}
	for _, lv := range l.Levels {
		st, w := lv.Steady, lv.SteadyWindow
		if st == nil && w == nil {
			continue
		}
		from, left := "–", "–"
		if w != nil {
			from, left = strconv.Itoa(w.FromRequest), strconv.Itoa(w.LeftOut)
		}
		agree, rho, p, trend, class := "–", "–", "–", "–", ""
		if st != nil {
			if st.Known {
				agree = value(st.Steady)
				if !st.Steady {
					class = "bad"
				}
			}
			if d := st.Drift; d != nil {
				trend = "too few batches"
				if d.Known {
					rho, p, trend = fmt.Sprintf("%.2f", *d.Rho), fmt.Sprintf("%.4f", *d.P), "none detected"
				}
				if d.Drifting {
					trend, class = fmt.Sprintf("drifting (%d batches of %d)", d.Batches, d.Batch), "bad"
				}
			}
		}
		t.addClass(class, num(lv.Level), from, left, agree, rho, p, trend)
	}
	if len(t.Rows) == 0 {
		return nil
	}
	t.numericFrom(0)
	delete(t.Numeric, 3)
	delete(t.Numeric, 6)
	return &t
}
