package rundir

import (
	"encoding/json"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/check"
)

// Lab is a lab run's folder. A nil pointer or empty slice is a file the
// run did not write (or one that could not be read, named in Problems).
type Lab struct {
	Dir      string
	Finished time.Time
	// Server is server.json: the kind of server measured (absent in older
	// folders).
	Server   *ServerKind
	Props    *Props
	Chunks   []Chunk
	TTFT     *TTFT
	Prefill  []PrefillRow
	Cache    *Cache
	Sentence *Sentence
	Cancel   *Cancel
	Bargein  *Bargein
	Prefix   *Prefix
	Audio    *Audio
	Call     *Call
	// Realtime is realtime.json: the speech-to-speech sessions of the
	// realtime step (absent without --realtime, and in older folders).
	Realtime *Realtime
	// Steps is steps.json: each step's status in the run that wrote the
	// folder (absent in older folders).
	Steps *Steps
	// Report is report.json, every value in file order.
	Report []Field
	// Extra are the JSON files no section knows yet, by name.
	Extra    map[string][]Field
	Checks   []check.Outcome
	Problems []string
}

// The lab's files, as the lab writes them and check reads them.
type (
	ServerKind = artifact.ServerKind
	Props      = artifact.Props
	Chunk      = artifact.Chunk
	TTFT       = artifact.TTFT
	PrefillRow = artifact.PrefillRow
	Tokens     = artifact.Tokens
	Cache      = artifact.Cache
	Sentence   = artifact.Sentence
	Pacing     = artifact.Pacing
	Cancel     = artifact.Cancel
	Bargein    = artifact.Bargein
	Prefix     = artifact.Prefix
	Audio      = artifact.Audio
	Call       = artifact.Call
	Steps      = artifact.Steps
	Realtime   = artifact.Realtime
)

// labFiles are the files a section reads, and the report's own (the
// figures pooled over the folder's runs, a comparison drawn into it);
// every other *.json is Extra.
var labFiles = map[string]bool{"server.json": true, "health.json": true, "props.json": true, "ttft.json": true, "prefill.json": true,
	"cache.json": true, "sentence.json": true, "cancel.json": true, "bargein.json": true, "prefix.json": true,
	"report.json": true, "steps.json": true, "audio.json": true, "call.json": true, "realtime.json": true, "runs.json": true, "compare.json": true}

// ReadLab reads a lab folder and runs ttftlab check on it; serverLog is
// passed to the check (it may be "").
func ReadLab(dir, serverLog string) *Lab {
	var p problems
	l := &Lab{Dir: dir, Finished: finished(dir), Extra: map[string][]Field{}}
	l.Server = readOpt[ServerKind](dir, "server.json", &p)
	l.Props = readOpt[Props](dir, "props.json", &p)
	l.TTFT = readOpt[TTFT](dir, "ttft.json", &p)
	l.Cache = readOpt[Cache](dir, "cache.json", &p)
	l.Sentence = readOpt[Sentence](dir, "sentence.json", &p)
	l.Cancel = readOpt[Cancel](dir, "cancel.json", &p)
	l.Bargein = readOpt[Bargein](dir, "bargein.json", &p)
	l.Prefix = readOpt[Prefix](dir, "prefix.json", &p)
	l.Audio = readOpt[Audio](dir, "audio.json", &p)
	l.Call = readOpt[Call](dir, "call.json", &p)
	l.Realtime = readOpt[Realtime](dir, "realtime.json", &p)
	l.Steps = readOpt[Steps](dir, "steps.json", &p)
	readJSON(dir, "prefill.json", &l.Prefill, &p)
	readLines(dir, "chunks.jsonl", &p, func(line []byte) error {
		var c Chunk
		err := json.Unmarshal(line, &c)
		if err == nil {
			l.Chunks = append(l.Chunks, c)
		}
		return err
	})
	l.Report = readFields(dir, "report.json", &p)
	for _, name := range extraJSON(dir) {
		if f := readFields(dir, name, &p); len(f) > 0 {
			l.Extra[name] = f
		}
	}
	l.Checks = check.Results(dir, serverLog)
	l.Problems = p
	return l
}

func readOpt[T any](dir, name string, p *problems) *T {
	v := new(T)
	if !readJSON(dir, name, v, p) {
		return nil
	}
	return v
}

// extraJSON lists the folder's JSON files that no section reads, sorted.
func extraJSON(dir string) []string {
	matches, _ := filepath.Glob(filepath.Join(dir, "*.json"))
	var out []string
	for _, m := range matches {
		name := filepath.Base(m)
		if st, err := os.Stat(m); err == nil && st.Mode().IsRegular() && !labFiles[name] && !strings.HasPrefix(name, ".") {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}
