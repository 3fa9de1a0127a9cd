package report

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"ttftlab/internal/rundir"
)

func loadModel(l *rundir.Load) string {
	name, synthetic := "", false
	for _, f := range l.Fields {
		switch f.Path {
		case "model.name":
			name, _ = f.Value.(string)
		case "model.synthetic":
			synthetic, _ = f.Value.(bool)
		}
	}
	if name != "" && synthetic {
		name += " (synthetic)"
	}
	return name
}

// loadSections are a load run's sections: the summary, the percentiles
// by level against the SLOs, the requests' timelines and the server's
// series.
func loadSections(l *rundir.Load, version string) []section {
	out := []section{loadSummary(l, version)}
	if len(l.Levels) > 0 {
		out = append(out, percentileSection(l))
	}
	if len(l.Requests) > 0 {
		out = append(out, requestsSection(l))
	}
	if len(l.Server) > 0 {
		out = append(out, sectionOf("server", "The server under load",
			"llama-server's own state, sampled about every 250 ms: slots busy and requests waiting for a slot.",
			func() (figure, error) { return serverFigure(l) }))
	}
	return out
}

func loadSummary(l *rundir.Load, version string) section {
	s := section{ID: "summary", Title: "Summary"}
	s.Intro = capacityText(l)
	s.Tables = append(s.Tables, levelsTable(l), runTable(l.Dir, l.Finished, version),
		fieldTable("load.json (settings, model, server, capacity)", l.Fields))
	if len(l.Problems) > 0 {
		s.Tables = append(s.Tables, problemsTable(l.Problems))
	}
	return s
}

// capacityText says the run's answer in one sentence.
func capacityText(l *rundir.Load) string {
	var slos []string
	for _, o := range l.Settings.SLO {
		slos = append(slos, fmt.Sprintf("%s p%s ≤ %s ms", o.Metric, num(o.Percentile), num(o.LimitMs)))
	}
	goal := "no SLO was set"
	if len(slos) > 0 {
		goal = "SLO: " + strings.Join(slos, " and ")
	}
	switch {
	case l.Capacity == nil:
		return fmt.Sprintf("Capacity: no level met every objective (%s).", goal)
	case l.Capacity.Next != nil:
		return fmt.Sprintf("Capacity: %s, the highest level that met every objective (%s); %s did not.",
			l.LevelName(l.Capacity.Level), goal, l.LevelName(l.Capacity.Next.Level))
	}
	return fmt.Sprintf("Capacity: %s, the highest level measured, met every objective (%s).", l.LevelName(l.Capacity.Level), goal)
}

// levelsTable is one row per level: counts, rates, goodput, SLO.
func levelsTable(l *rundir.Load) table {
	t := table{Caption: "levels", Head: []string{"level", "requests", "ok", "errors", "requests/s", "tokens/s", "goodput", "SLO met"}}
	for _, lv := range l.Levels {
		sc := func(name string) string {
			v, ok := lv.Summary.Scalar(name)
			if !ok {
				return "–"
			}
			return num(v)
		}
		met := "–"
		if lv.SLOMet != nil {
			met = value(*lv.SLOMet)
		}
		class := ""
		if lv.SLOMet != nil && !*lv.SLOMet {
			class = "bad"
		}
		t.addClass(class, num(lv.Level), sc("requests"), sc("ok"), errorsText(lv.Summary.Errors), sc("requests_per_s"),
			sc("tokens_per_s"), numP(lv.Goodput), met)
	}
	t.numericFrom(1)
	delete(t.Numeric, 3)
	return t
}

func errorsText(errs map[string]float64) string {
	if len(errs) == 0 {
		return "0"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(errs)) {
		parts = append(parts, fmt.Sprintf("%s: %s", k, num(errs[k])))
	}
	return strings.Join(parts, ", ")
}
