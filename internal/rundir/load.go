package rundir

import (
	"bytes"
	"encoding/json"
	"sort"
	"strings"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/loadtext"
)

// requestsFile holds a load run's rows, one line each.
const requestsFile = "requests.jsonl"

// Load is a load run's folder: load.json, requests.jsonl, server.jsonl,
// read into their record types (package artifact).
type Load struct {
	Dir      string
	Finished time.Time
	Settings artifact.LoadSettings
	// Fields are load.json's values outside "levels", in file order
	// (settings, model, server, capacity), for the summary.
	Fields   []Field
	Levels   []artifact.LoadLevel
	Capacity *artifact.Capacity
	// Search is a capacity search's path (capacity.search), kept when no
	// level held and Capacity is nil.
	Search   []artifact.SearchStep
	Requests []artifact.LoadRequest
	Server   []artifact.LoadServerSample
	Problems []string
}

// legacyLevels is what folders written before the failures were counted
// by kind hold: errors {kind = n} in each level's summary.
type legacyLevels struct {
	Levels []struct {
		Summary struct {
			Errors map[string]float64 `json:"errors"`
		} `json:"summary"`
	} `json:"levels"`
}

// ReadLoad reads a load folder. Members load.json's record does not know
// are ignored here (they still show among Fields when outside levels).
func ReadLoad(dir string) *Load {
	var p problems
	l := &Load{Dir: dir, Finished: finished(dir)}
	var doc artifact.Load
	if readJSON(dir, loadMarker, &doc, &p) {
		l.Settings, l.Levels, l.Capacity = doc.Settings, doc.Levels, doc.Capacity
		if c := l.Capacity; c != nil {
			l.Search = c.Search
		}
		if c := l.Capacity; c != nil && c.Level == 0 {
			// A search whose every level missed records level 0 (and its
			// path): no level held, as a null capacity says.
			l.Capacity = nil
		}
		var old legacyLevels
		if data, ok := readFile(dir, loadMarker, &p); ok && json.Unmarshal(data, &old) == nil {
			for i, lv := range old.Levels {
				if i < len(l.Levels) {
					fromErrors(&l.Levels[i].Summary.ManySummary, lv.Summary.Errors)
				}
			}
		}
	}
	for _, f := range readFields(dir, loadMarker, &p) {
		if head, _, _ := cut(f.Path); !isLevels(head) {
			l.Fields = append(l.Fields, f)
		}
	}
	// The rows are read as check reads them (artifact.ReadLoadRequests):
	// those before the first line that does not decode, which is named.
	if data, ok := readFile(dir, requestsFile, &p); ok {
		rows, err := artifact.ReadLoadRequests(bytes.NewReader(data))
		l.Requests = rows
		if err != nil {
			p.add("%s %v", requestsFile, err)
		}
	}
	readLines(dir, "server.jsonl", &p, func(line []byte) error {
		var s artifact.LoadServerSample
		err := json.Unmarshal(line, &s)
		if err == nil {
			l.Server = append(l.Server, s)
		}
		return err
	})
	sort.SliceStable(l.Levels, func(i, j int) bool { return l.Levels[i].Level < l.Levels[j].Level })
	if len(l.Levels) == 0 && len(l.Fields) > 0 {
		p.add("%s has no levels: the run measured nothing", loadMarker)
	}
	l.Problems = p
	return l
}

// fromErrors fills the failures of an older summary from its errors
// {kind = n} (no example message was kept then).
func fromErrors(s *artifact.ManySummary, errs map[string]float64) {
	if len(s.Failures) > 0 || len(errs) == 0 {
		return
	}
	var fs []artifact.Failure
	failed := 0
	for kind, n := range errs {
		fs = append(fs, artifact.Failure{Kind: kind, N: int(n)})
		failed += int(n)
	}
	s.Failures = artifact.CountFailures(fs)
	if s.Failed == 0 {
		s.Failed = failed
	}
}

func cut(path string) (head, tail string, ok bool) {
	for i := 0; i < len(path); i++ {
		if path[i] == '.' {
			return path[:i], path[i+1:], true
		}
	}
	return path, "", false
}

func isLevels(head string) bool { return head == "levels" || strings.HasPrefix(head, "levels[") }

// LevelName names level v under the run's mode as the console does
// (loadtext.LevelName): "concurrency 4", "rate 2 calls/s" or, for a
// replayed trace (one level, its speed), "trace x1".
func (l *Load) LevelName(v float64) string { return loadtext.LevelName(l.Settings.Mode, v) }
