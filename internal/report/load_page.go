package report

import "ttftlab/internal/rundir"

func loadModel(l *rundir.Load) string {
	for _, f := range l.Fields {
		if f.Path == "model.name" {
			s, _ := f.Value.(string)
			return s
		}
	}
	return ""
}

func loadSections(l *rundir.Load) []section { return nil }
