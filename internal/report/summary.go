package report

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"ttftlab/internal/check"
	"ttftlab/internal/rundir"
)

// labSummary closes a lab page: each step's status, the model and
// server, check's verdict on each rule and every value of report.json,
// the long ones folded.
func labSummary(l *rundir.Lab, version string) section {
	s := section{ID: "summary", Title: "Run details",
		Intro: "The run's steps, model and server, ttftlab check's rules and report.json's fields as written; open a list to see it."}
	if l.Steps != nil {
		s.Tables = append(s.Tables, stepsTable(l.Steps).folded(false))
	}
	s.Tables = append(s.Tables, runTable(l.Dir, l.Finished, version), serverTable(l).folded(false))
	checks := checksTable(l.Checks).folded(true)
	for _, o := range l.Checks {
		checks.Open = checks.Open || o.Status == "FAIL" || o.Status == "WARN"
	}
	s.Tables = append(s.Tables, checks, fieldTable("report.json", l.Report).folded(true))
	if len(l.Problems) > 0 {
		s.Tables = append(s.Tables, problemsTable(l.Problems))
	}
	return s
}

// stepsTable is steps.json: each step's status in this run, with the
// reason or error of one that did not pass.
func stepsTable(s *rundir.Steps) table {
	t := table{Caption: "lab steps (steps.json)", Head: []string{"step", "status", "time (ms)", "detail"}, Numeric: map[int]bool{2: true}}
	for _, st := range s.Steps {
		detail, _, _ := strings.Cut(st.Detail, "\n")
		t.add(st.Name, st.Status, num(st.Ms), detail)
	}
	return t
}

// runTable says which run this is and what drew the page. The run's
// files do not record the ttftlab that made them; the version is the one
// drawing the page.
func runTable(dir string, finished time.Time, version string) table {
	t := table{Caption: "run", Head: []string{"", "value"}}
	t.add("folder", absDir(dir))
	t.add("finished (its newest file)", stamp(finished))
	t.add("page drawn by", "ttftlab "+version)
	return t
}

// fieldTable lists fields with their units; a file the run did not write
// says so.
func fieldTable(name string, fields []rundir.Field) table {
	t := table{Caption: name, Head: []string{"field", "value", "unit"}, Numeric: map[int]bool{1: true}}
	if len(fields) == 0 {
		t.add("(not written by this run)", "", "")
	}
	for _, f := range fields {
		t.add(f.Path, value(f.Value), unitOf(f.Path))
	}
	return t
}

// serverTable is the model and the server settings as /props reported
// them, with report.json's server block where the run wrote one.
func serverTable(l *rundir.Lab) table {
	t := table{Caption: "model and server", Head: []string{"", "value"}}
	for _, f := range l.Report {
		if strings.HasPrefix(f.Path, "model.") {
			t.add("model "+strings.TrimPrefix(f.Path, "model."), value(f.Value))
		}
	}
	if s := l.Server; s != nil {
		t.add("server kind", s.Kind+" ("+s.Evidence+")")
	}
	if p := l.Props; p != nil {
		if p.ModelPath != nil {
			t.add("model file (/props)", *p.ModelPath)
		}
		t.add("context per slot (/props n_ctx)", num(p.Settings.NCtx)+" tokens")
		t.add("slots (/props total_slots)", num(p.TotalSlots))
		t.add("llama-server build", p.BuildInfo)
	}
	for _, f := range l.Report {
		if strings.HasPrefix(f.Path, "server.") {
			t.add("server "+strings.TrimPrefix(f.Path, "server."), strings.TrimSpace(value(f.Value)+" "+unitOf(f.Path)))
		}
	}
	t.add("threads", threadsOf(l))
	if len(t.Rows) == 1 {
		t.Rows[0] = row{Cells: []string{"(no props.json and no model in report.json)", ""}}
	}
	return t
}

// threadsOf is the server's thread count when the run recorded it.
func threadsOf(l *rundir.Lab) string {
	for _, f := range l.Report {
		if f.Path == "server.threads" {
			return value(f.Value)
		}
	}
	return "not recorded by this run"
}

// checksTable is check.Results as a table, with the count first.
func checksTable(outcomes []check.Outcome) table {
	count := map[string]int{}
	for _, o := range outcomes {
		count[o.Status]++
	}
	caption := fmt.Sprintf("ttftlab check: %d passed, %d failed, %d skipped", count["PASS"], count["FAIL"], count["SKIP"])
	if count["WARN"] > 0 {
		caption += fmt.Sprintf(", %d with a warning", count["WARN"])
	}
	t := table{Caption: caption, Head: []string{"result", "check", "detail"}}
	for _, o := range outcomes {
		t.addClass(o.Status, o.Status, o.Name, o.Detail)
	}
	return t
}

func problemsTable(ps []string) table {
	t := table{Caption: "files that could not be read", Head: []string{"problem"}}
	for _, p := range ps {
		t.addClass("bad", p)
	}
	return t
}

// runName is how a page names a run: its model, else its folder.
func runName(model, dir string) string {
	if model != "" {
		return model
	}
	return filepath.Base(dir)
}

// labModel is report.json's model.name (marked synthetic), else "".
func labModel(l *rundir.Lab) string {
	name, synthetic := "", false
	for _, f := range l.Report {
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
