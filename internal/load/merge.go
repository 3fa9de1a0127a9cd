package load

import (
	"bytes"
	"fmt"
	"math"
	"sort"
	"strings"

	"ttftlab/internal/artifact"
)

// ShardFolder is one shard of a sharded run as read from its folder:
// Name is the folder (for messages), Doc its load.json, Rows its
// requests.jsonl.
type ShardFolder struct {
	Name string
	Doc  artifact.Load
	Rows []artifact.LoadRequest
}

// Merged is the merge of a run's shards: one load.json, the shards in
// shard order (Order: indexes into the folders given) and what the merge
// had to mark (a level a shard did not finish, one a shard ended early).
type Merged struct {
	Doc   artifact.Load
	Order []int
	Notes []string
}

// Merge merges the folders of one sharded run into one load record.
// Every folder must be a shard (settings.shard set) of the same run id
// and shard count, each index once and none missing, with settings equal
// but for the shard; every row must carry its folder's shard and run id,
// and no (level, call, turn) may be in two shards. Each level is
// recomputed from the union of the shards' rows (LevelOf: percentiles,
// SLO verdicts, goodput and slo_met of the raw rows, never averaged), its
// duration and rates on the wall clock, from the earliest shard's start
// to the last request's end; its steady state from the union's lateness
// in the order the requests started on the wall clock. A level that some
// shard has no record of (and none of a later level: it stopped), or that
// was interrupted in some shard, is interrupted in the merge; one that some shard ended early as
// over-saturated keeps that shard's trend and does not hold. The capacity
// is recomputed (capacityOf).
func Merge(folders []ShardFolder) (*Merged, error) {
	if len(folders) == 0 {
		return nil, fmt.Errorf("no shard folder to merge")
	}
	order, err := checkShards(folders)
	if err != nil {
		return nil, err
	}
	shards := make([]ShardFolder, len(order))
	for i, j := range order {
		shards[i] = folders[j]
	}
	first := shards[0].Doc
	set := first.Settings
	set.Shard = nil
	set.Shards = len(shards)
	m := &Merged{Order: order, Doc: artifact.Load{Settings: set, Model: first.Model, Server: first.Server, Levels: []artifact.LoadLevel{}}}
	for _, level := range set.Levels {
		l, notes, ok := mergeLevel(set, level, shards)
		if !ok {
			break
		}
		m.Doc.Levels = append(m.Doc.Levels, l)
		m.Notes = append(m.Notes, notes...)
	}
	m.Doc.Capacity = capacityOf(m.Doc.Levels)
	return m, nil
}

// MissingShardError is a merge refused because a shard of the run is not
// among the folders: which one, the shards there are and their folders.
type MissingShardError struct {
	Index, Count int
	Have         string
	Folders      []string
}

func (e *MissingShardError) Error() string {
	return fmt.Sprintf("shard %d of %d is missing: have %s (in %s)", e.Index, e.Count, e.Have, strings.Join(e.Folders, ", "))
}

// checkShards checks that the folders are the whole of one run and
// returns them in shard order.
func checkShards(folders []ShardFolder) ([]int, error) {
	for _, f := range folders {
		if f.Doc.Settings.Shard == nil {
			return nil, fmt.Errorf("%s is not a shard of a sharded run (its load.json has no settings.shard): only the folders of `ttftlab load --shard I/N` merge", f.Name)
		}
	}
	a := folders[0]
	n := a.Doc.Settings.Shard.Count
	at := map[int]int{}
	for i, f := range folders {
		s := f.Doc.Settings
		switch {
		case s.RunID != a.Doc.Settings.RunID:
			return nil, fmt.Errorf("%s is of run %q but %s of run %q: merge the shards of one run", a.Name, a.Doc.Settings.RunID, f.Name, s.RunID)
		case s.Shard.Count != n:
			return nil, fmt.Errorf("%s is shard %d of %d but %s shard %d of %d: the shards of one run have one count", a.Name,
				a.Doc.Settings.Shard.Index, n, f.Name, s.Shard.Index, s.Shard.Count)
		case s.Shard.Index < 0 || s.Shard.Index >= n:
			return nil, fmt.Errorf("%s is shard %d of %d: no such shard", f.Name, s.Shard.Index, n)
		}
		if j, dup := at[s.Shard.Index]; dup {
			return nil, fmt.Errorf("shard %d of %d twice: %s and %s", s.Shard.Index, n, folders[j].Name, f.Name)
		}
		at[s.Shard.Index] = i
		if d := a.Doc.Settings.Differences(s, "shard"); len(d) > 0 {
			return nil, fmt.Errorf("settings differ: %s is %s in %s but %s in %s: the shards of one run share every setting but the shard",
				d[0].Field, d[0].A, a.Name, d[0].B, f.Name)
		}
	}
	order := make([]int, 0, n)
	var have []string
	for k := range n {
		if i, ok := at[k]; ok {
			order = append(order, i)
			have = append(have, fmt.Sprint(k))
		}
	}
	for k := range n {
		if _, ok := at[k]; !ok {
			var where []string
			for _, i := range order {
				where = append(where, folders[i].Name)
			}
			return nil, &MissingShardError{Index: k, Count: n, Have: strings.Join(have, ", "), Folders: where}
		}
	}
	seen := map[[3]float64]int{}
	for _, i := range order {
		f := folders[i]
		for _, r := range f.Rows {
			switch {
			case r.Shard == nil || *r.Shard != f.Doc.Settings.Shard.Index:
				return nil, fmt.Errorf("%s: a row of level %g, call %d, turn %d is not of shard %d", f.Name, r.Level, r.Call, r.Turn,
					f.Doc.Settings.Shard.Index)
			case r.RunID != f.Doc.Settings.RunID:
				return nil, fmt.Errorf("%s: a row of level %g, call %d, turn %d is of run %q, not %q", f.Name, r.Level, r.Call, r.Turn,
					r.RunID, f.Doc.Settings.RunID)
			}
			key := [3]float64{r.Level, float64(r.Call), float64(r.Turn)}
			if j, dup := seen[key]; dup && j != i {
				return nil, fmt.Errorf("level %g, call %d, turn %d is in %s and in %s: the shards of one run share no call", r.Level,
					r.Call, r.Turn, folders[j].Name, f.Name)
			}
			seen[key] = i
		}
	}
	return order, nil
}

// mergeLevel is one level of the merge; ok false when no shard has a
// record or a row of it (the run never reached it).
func mergeLevel(set artifact.LoadSettings, level float64, shards []ShardFolder) (artifact.LoadLevel, []string, bool) {
	var rows []artifact.LoadRequest
	var per []artifact.LevelShard
	var notes []string
	var over *artifact.LevelTrend
	interrupted, any := false, false
	// starts are each row's start on the wall clock, in rows' order.
	var starts []float64
	spanFrom, spanTo, anchored := math.Inf(1), math.Inf(-1), true
	perShardSpan := 0.0
	var due *float64
	for _, f := range shards {
		idx := f.Doc.Settings.Shard.Index
		var rec *artifact.LoadLevel
		for i := range f.Doc.Levels {
			if f.Doc.Levels[i].Level == level {
				rec = &f.Doc.Levels[i]
				break
			}
		}
		ls := artifact.LevelShard{Shard: idx, Host: f.Doc.Settings.Shard.Host}
		var started *float64
		skipped := false
		switch {
		case rec == nil && recordsAfter(f.Doc, set.Levels, level):
			// It went on to a later level: it ran none of this one's calls.
			skipped = true
		case rec == nil:
			interrupted = true
			notes = append(notes, fmt.Sprintf("level %g: shard %d (%s) has no record of it: it stopped before the level ended", level, idx, f.Name))
		default:
			any = true
			started = rec.Summary.StartedUnixMs
			if rec.Interrupted {
				interrupted = true
				notes = append(notes, fmt.Sprintf("level %g: interrupted in shard %d (%s)", level, idx, f.Name))
			}
			if rec.OverSaturated != nil && over == nil {
				over = rec.OverSaturated
				notes = append(notes, fmt.Sprintf("level %g: shard %d (%s) ended it early as over-saturated", level, idx, f.Name))
			}
			if due == nil {
				due = rec.DueUnixMs
			}
		}
		ls.StartedUnixMs = started
		if started != nil {
			spanFrom = math.Min(spanFrom, *started)
		} else if !skipped {
			anchored = false
		}
		ownEnd := 0.0
		for _, r := range f.Rows {
			if r.Level != level {
				continue
			}
			any = true
			rows = append(rows, r)
			if !r.Warmup {
				ls.Requests++
				if r.ErrorKind != nil {
					ls.Failed++
				}
			}
			start, end := wallOf(r, started)
			starts = append(starts, start)
			if !math.IsNaN(end) {
				spanTo = math.Max(spanTo, end)
			}
			if r.StartMs != nil && r.TotalMs != nil {
				ownEnd = math.Max(ownEnd, *r.StartMs+*r.TotalMs)
			}
		}
		perShardSpan = math.Max(perShardSpan, ownEnd)
		per = append(per, ls)
	}
	if !any {
		return artifact.LoadLevel{}, nil, false
	}
	l := LevelOf(set, level, rows, interrupted)
	if anchored && spanTo > spanFrom {
		setSpan(&l.Summary, rows, spanTo-spanFrom)
	} else {
		// Without every shard's wall-clock start the level's span is its
		// longest shard's: the shards ran the level together.
		setSpan(&l.Summary, rows, perShardSpan)
	}
	if anchored {
		l.Summary.StartedUnixMs = artifact.Ms(spanFrom)
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range per {
			if s.StartedUnixMs != nil {
				lo, hi = math.Min(lo, *s.StartedUnixMs), math.Max(hi, *s.StartedUnixMs)
			}
		}
		l.StartSpreadMs = artifact.Ms(hi - lo)
	}
	l.DueUnixMs = due
	l.Shards = per
	if len(set.SLO) > 0 {
		t := steadyOf(set.SLO[0], rows, starts)
		l.Steady = &t
	}
	if over != nil {
		l.OverSaturated = over
		l.SLOMet = false
	}
	return l, notes, true
}

// recordsAfter says whether doc has a record of a level that comes after
// level in the run's order of levels.
func recordsAfter(doc artifact.Load, levels []float64, level float64) bool {
	after := false
	for _, l := range levels {
		if after {
			for _, r := range doc.Levels {
				if r.Level == l {
					return true
				}
			}
		}
		after = after || l == level
	}
	return false
}

// wallOf is a row's start and end on the wall clock: its t0_unix_ms, else
// its shard's level start plus its start_ms; NaN when neither is known.
func wallOf(r artifact.LoadRequest, levelStart *float64) (start, end float64) {
	start = math.NaN()
	switch {
	case r.T0UnixMs != nil:
		start = *r.T0UnixMs
	case levelStart != nil && r.StartMs != nil:
		start = *levelStart + *r.StartMs
	}
	end = math.NaN()
	if r.TotalMs != nil {
		end = start + *r.TotalMs
	}
	return start, end
}

// steadyOf is load.lua's steady trend of a level over the merged rows:
// the lateness (queue_ms + the first SLO's figure, a failed or missing
// figure infinitely late) of the requests that are not warm-up, in the
// order they started on the wall clock (a row whose start is unknown
// last), its minimum rise RiseShare of the SLO's limit.
func steadyOf(slo artifact.SLO, rows []artifact.LoadRequest, starts []float64) artifact.LevelTrend {
	type one struct{ at, x float64 }
	var xs []one
	for i, r := range rows {
		if r.Warmup {
			continue
		}
		x := math.Inf(1)
		if v, ok, _ := value(r, slo.Metric); ok {
			x = v
			if r.QueueMs != nil {
				x += *r.QueueMs
			}
		}
		at := starts[i]
		if math.IsNaN(at) {
			at = math.Inf(1)
		}
		xs = append(xs, one{at, x})
	}
	sort.SliceStable(xs, func(i, j int) bool { return xs[i].at < xs[j].at })
	series := make([]float64, len(xs))
	for i, o := range xs {
		series[i] = o.x
	}
	return trendRecord(TrendOf(series, RiseShare*slo.LimitMs), "queue_ms + "+slo.Metric)
}

// trendRecord is a trend as load.json writes it (load.lua's
// trend_record): thirds 1-based, a late or unbounded median or bound
// null.
func trendRecord(t Trend, metric string) artifact.LevelTrend {
	out := artifact.LevelTrend{Metric: metric, Steady: t.Steady, Known: t.Known, Rising: t.Rising, Thirds: []artifact.TrendWindow{}}
	for _, w := range t.Thirds {
		tw := artifact.TrendWindow{From: w.From + 1, N: w.N, P50Ms: artifact.Num(w.P50)}
		if w.Bounded {
			tw.CIMs = [2]*float64{artifact.Num(w.Lo), artifact.Num(w.Hi)}
		}
		out.Thirds = append(out.Thirds, tw)
	}
	return out
}

// MergeCSV concatenates the shards' requests.csv (in shard order, each
// named for messages) under one header, refusing shards whose headers
// differ; a shard without rows may have an empty file.
func MergeCSV(names []string, files [][]byte) ([]byte, error) {
	var header []byte
	var from string
	var b bytes.Buffer
	for i, f := range files {
		if len(f) == 0 {
			continue
		}
		h, body, _ := bytes.Cut(f, []byte("\n"))
		h = bytes.TrimSuffix(h, []byte("\r"))
		if header == nil {
			header, from = h, names[i]
			b.Write(h)
			b.WriteString("\r\n") // RFC 4180, as the recorder ends every line
		} else if !bytes.Equal(h, header) {
			return nil, fmt.Errorf("requests.csv of %s and of %s have different columns: %q and %q", from, names[i], header, h)
		}
		b.Write(body)
		if len(body) > 0 && body[len(body)-1] != '\n' {
			b.WriteString("\r\n")
		}
	}
	return b.Bytes(), nil
}
