package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"
)

// A step that repeats its measurement (the lab's --repeat) records repeat,
// runs (every valid repetition, in order) and discarded (those set aside,
// with why). Its "<step> runs" rule holds the runs to the repeat and the
// top level, where the file keeps one, to the first run; every rule about
// one measurement holds in each repetition, and a failure names the one
// that breaks it.

// runsOf is what a "<step> runs" rule holds of one file (or of one of
// prefill.json's rows).
type runsOf struct {
	name         string // the file, or the row, as a failure names it
	repeat, runs int
	// legacy is how many runs a file written before repeat was recorded
	// holds: 0 where its top level was its one measurement, 5 for the
	// ttft and audio steps.
	legacy int
	// top and first are the top level and runs[0], where the top level
	// holds the first repetition for readers of one measurement; nil
	// where the file has no such top level.
	top, first any
}

// problem says how r breaks the rule; nil when it holds.
func (r runsOf) problem() error {
	switch {
	case r.repeat == 0 && r.runs == r.legacy:
		return nil
	case r.repeat == 0 && r.legacy == 0:
		return fmt.Errorf("%s has %d runs but no repeat saying how many were asked for", r.name, r.runs)
	case r.repeat == 0:
		return fmt.Errorf("%s has %d runs, want %d (no repeat: written before it was recorded)", r.name, r.runs, r.legacy)
	case r.runs != r.repeat:
		return fmt.Errorf("%s has %d runs, want %d (its repeat)", r.name, r.runs, r.repeat)
	case r.top != nil:
		if d := topDiffers(r.top, r.first); d != "" {
			return fmt.Errorf("%s's top level is not its first run, which it holds for readers of one measurement: %s", r.name, d)
		}
	}
	return nil
}

// checkRuns is every "<step> runs" rule: each of files holds its rule
// (they share one repeat); discarded is how many repetitions were set
// aside.
func (l *lab) checkRuns(discarded int, files ...runsOf) error {
	for _, f := range files {
		if err := f.problem(); err != nil {
			return err
		}
	}
	f := files[0]
	switch {
	case f.repeat == 0 && f.legacy == 0:
		return l.pass("one measurement, at the top level (written before the step repeated)")
	case f.repeat == 0:
		return l.pass("%d runs (written before repeat was recorded)", f.runs)
	}
	var rows, top, aside string
	if len(files) > 1 {
		rows = fmt.Sprintf(" in each of %d rows", len(files))
	}
	if f.top != nil {
		top = ", the first at the top level"
	}
	if discarded > 0 {
		aside = fmt.Sprintf(", %d set aside", discarded)
	}
	return l.pass("%d runs%s%s%s", f.runs, rows, top, aside)
}

// firstRun is runs[0] (runsOf's first), nil without runs.
func firstRun[R any](runs []R) any {
	if len(runs) == 0 {
		return nil
	}
	return runs[0]
}

// topDiffers says where top differs from first, member by member of
// first ("cold.ttft_ms 250, runs[0] 252"); "" when it holds first. Members
// only the top level has (chunks, attempts, the log's) are its own.
func topDiffers(top, first any) string {
	t, f := leaves(top), leaves(first)
	var d []string
	for path, v := range f {
		if tv, ok := t[path]; !ok {
			d = append(d, fmt.Sprintf("%s absent, runs[0] %s", path, v))
		} else if tv != v {
			d = append(d, fmt.Sprintf("%s %s, runs[0] %s", path, tv, v))
		}
	}
	sort.Strings(d)
	return strings.Join(d, "; ")
}

// leaves are v's values as JSON writes them, by path ("positions[1].cache_n"),
// an array's length under its own path.
func leaves(v any) map[string]string {
	data, err := json.Marshal(v)
	if err != nil {
		return map[string]string{"": err.Error()}
	}
	var tree any
	if err := json.Unmarshal(data, &tree); err != nil {
		return map[string]string{"": err.Error()}
	}
	out := map[string]string{}
	var walk func(path string, v any)
	walk = func(path string, v any) {
		switch x := v.(type) {
		case map[string]any:
			for k, e := range x {
				if path != "" {
					k = path + "." + k
				}
				walk(k, e)
			}
		case []any:
			out[path] = fmt.Sprintf("(%d items)", len(x))
			for i, e := range x {
				walk(fmt.Sprintf("%s[%d]", path, i), e)
			}
		case float64:
			out[path] = num(x)
		case string:
			out[path] = excerpt(x, 40)
		default:
			out[path] = describe(x)
		}
	}
	walk("", tree)
	return out
}

// eachRepetition holds every repetition of a step's file to check, which
// says what it saw or why the repetition fails (or is skipped: a skip is
// the step's, the same for every repetition). A failure names its
// repetition when there are several ("repetition 2 of 3: "); a pass shows
// the first repetition's values and that the rule held in all.
func eachRepetition[T any](l *lab, reps []T, check func(T) (string, error)) error {
	var first string
	for i, r := range reps {
		seen, err := check(r)
		var s skipError
		switch {
		case err == nil:
		case len(reps) == 1 || errors.As(err, &s):
			return err
		default:
			return fmt.Errorf("repetition %d of %d: %w", i+1, len(reps), err)
		}
		if i == 0 {
			first = seen
		}
	}
	if len(reps) > 1 {
		return l.pass("%s (run 1; holds in all %d)", first, len(reps))
	}
	return l.pass("%s", first)
}
