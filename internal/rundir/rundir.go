// Package rundir reads the folder of a lab run or a load run into typed
// data for the report. It is tolerant: a file that is missing is left
// out, a file that cannot be read is named in Problems, and fields it
// does not know are kept as Fields, so a page can show what newer steps
// write without a change here. A load run's requests.jsonl is the
// exception: its rows are read as check reads them
// (artifact.ReadLoadRequests), those before the first line that does not
// decode strictly, which Problems names.
package rundir

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Kind is what made a folder.
type Kind string

const (
	KindLab  Kind = "lab"
	KindLoad Kind = "load"
)

// labMarkers are files only a lab run writes; loadMarker is the one file
// of a load run.
var (
	labMarkers = []string{"steps.json", "report.json", "ttft.json", "props.json", "sentence.json", "prefill.json", "cache.json", "cancel.json"}
	loadMarker = "load.json"
)

// Detect says whether dir holds a lab run or a load run, or why neither.
// A folder of repeated runs (run-1 ... run-N, as --runs writes it) is of
// the kind of its runs, which must all be of one kind.
func Detect(dir string) (Kind, error) {
	kind, _, err := DetectRuns(dir)
	return kind, err
}

// DetectRuns is Detect with the folders of the runs: dir/run-1 ...
// dir/run-N for a repeated run, or dir alone for a single run.
func DetectRuns(dir string) (Kind, []string, error) {
	var runs []string
	if st, err := os.Stat(dir); err == nil && st.IsDir() {
		if runs, err = RunDirs(dir); err != nil {
			return "", nil, err
		}
	}
	if runs == nil {
		kind, err := detectOne(dir)
		if err != nil {
			return "", nil, err
		}
		return kind, []string{dir}, nil
	}
	var kind Kind
	for i, r := range runs {
		k, err := detectOne(r)
		if err != nil {
			return "", nil, fmt.Errorf("%s holds repeated runs, but %w", dir, err)
		}
		if i > 0 && k != kind {
			return "", nil, fmt.Errorf("%s holds runs of two kinds: %s is a %s run, %s a %s run (the runs of one folder are of one kind)",
				dir, filepath.Base(runs[0]), kind, filepath.Base(r), k)
		}
		kind = k
	}
	return kind, runs, nil
}

// detectOne is the kind of the single run in dir.
func detectOne(dir string) (Kind, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", fmt.Errorf("cannot open run folder %s: %w (pass the folder that ttftlab lab or ttftlab load wrote with --out)", dir, err)
	}
	if !st.IsDir() {
		return "", fmt.Errorf("%s is a file, not a run folder (pass the folder that ttftlab lab or ttftlab load wrote with --out)", dir)
	}
	if exists(dir, loadMarker) {
		return KindLoad, nil
	}
	for _, f := range labMarkers {
		if exists(dir, f) {
			return KindLab, nil
		}
	}
	if shards := ShardDirs(dir); len(shards) > 0 {
		return "", &ShardsError{Dir: dir, Shards: shards}
	}
	return "", fmt.Errorf("%s holds neither a lab run (%s) nor a load run (%s); pass the folder that ttftlab lab or ttftlab load wrote with --out",
		dir, strings.Join(labMarkers[:3], ", "), loadMarker)
}

// ShardsError says a folder holds the shard folders of a load run split
// over machines (shard-0 ... shard-N-1), each a run of its own, rather
// than one run.
type ShardsError struct {
	Dir    string
	Shards []string
}

func (e *ShardsError) Error() string {
	names := make([]string, len(e.Shards))
	for i, s := range e.Shards {
		names[i] = filepath.Base(s)
	}
	return fmt.Sprintf("%s holds the shard folders of a load run split over machines (%s), each a run of its own shard's calls, not one run",
		e.Dir, strings.Join(names, ", "))
}

// ShardDirs are dir's shard-* folders that hold a load.json, in the
// order of their numbers; none when dir holds a run itself.
func ShardDirs(dir string) []string {
	if exists(dir, loadMarker) {
		return nil
	}
	inner, _ := filepath.Glob(filepath.Join(dir, "shard-*"))
	var shards []string
	for _, d := range inner {
		if st, err := os.Stat(d); err == nil && st.IsDir() && exists(d, loadMarker) {
			shards = append(shards, d)
		}
	}
	sort.Slice(shards, func(i, j int) bool { return shardNumber(shards[i]) < shardNumber(shards[j]) })
	return shards
}

// shardNumber is N of a folder named shard-N, else a number after every
// shard's.
func shardNumber(dir string) int {
	n, err := strconv.Atoi(strings.TrimPrefix(filepath.Base(dir), "shard-"))
	if err != nil {
		return 1 << 30
	}
	return n
}

func exists(dir, name string) bool {
	_, err := os.Stat(filepath.Join(dir, name))
	return err == nil
}

// problems collects what could not be read, for the page to show.
type problems []string

func (p *problems) add(format string, args ...any) { *p = append(*p, fmt.Sprintf(format, args...)) }

// readJSON decodes dir/name into v. It returns false when the file is
// missing (nothing to say) or broken (said in p).
func readJSON(dir, name string, v any, p *problems) bool {
	data, ok := readFile(dir, name, p)
	if !ok {
		return false
	}
	if err := json.Unmarshal(data, v); err != nil {
		p.add("%s: %v", name, err)
		return false
	}
	return true
}

func readFile(dir, name string, p *problems) ([]byte, bool) {
	data, err := os.ReadFile(filepath.Join(dir, name))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false
	}
	if err != nil {
		p.add("%s: %v", name, err)
		return nil, false
	}
	return data, true
}

// readFields flattens dir/name, or returns nil.
func readFields(dir, name string, p *problems) []Field {
	data, ok := readFile(dir, name, p)
	if !ok {
		return nil
	}
	f, err := Flatten(data)
	if err != nil {
		p.add("%s: %v", name, err)
		return nil
	}
	return f
}

// readLines decodes each non-empty line of dir/name with add; a bad line
// is named in p and skipped.
func readLines(dir, name string, p *problems, add func(line []byte) error) bool {
	data, ok := readFile(dir, name, p)
	if !ok {
		return false
	}
	bad := 0
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := add([]byte(line)); err != nil {
			if bad == 0 {
				p.add("%s line %d: %v", name, i+1, err)
			}
			bad++
		}
	}
	if bad > 1 {
		p.add("%s: %d bad lines in all, skipped", name, bad)
	}
	return true
}

// finished is when the run wrote its last file: the modification time of
// the newest regular file in dir.
func finished(dir string) time.Time {
	var t time.Time
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && info.ModTime().After(t) &&
			!strings.HasSuffix(e.Name(), ".html") {
			t = info.ModTime()
		}
	}
	return t
}
