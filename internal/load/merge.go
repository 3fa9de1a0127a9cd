package load

import (
	"bytes"
	"fmt"
	"math"
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
// recomputed from the union of the shards' rows (Level: percentiles,
// SLO verdicts, goodput and slo_met of the raw rows, never averaged), its
// duration and rates on the wall clock, from the earliest shard's start
// to the last request's end; its steady state from the union's lateness
// in the order the requests started on the wall clock. A level that some
// shard has no record of (and none of a later level: it stopped), or that
// was interrupted in some shard, is interrupted in the merge; one that some shard ended early as
// over-saturated keeps that shard's trend and does not hold. The client
// figures are the shards' summed (sumClients), the speech engines' CPU
// per second of audio over their CPU and audio summed. The capacity is
// recomputed (CapacityOf; a trace's replay has none).
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
	m.Doc.Capacity = capacityOf(set, m.Doc.Levels)
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
	var clients []*artifact.ClientUse
	x := LevelExtras{}
	any := false
	spanFrom, spanTo, anchored := math.Inf(1), math.Inf(-1), true
	perShardSpan := 0.0
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
			x.Interrupted = true
			clients = append(clients, nil)
			notes = append(notes, fmt.Sprintf("level %g: shard %d (%s) has no record of it: it stopped before the level ended", level, idx, f.Name))
		default:
			any = true
			started = rec.Summary.StartedUnixMs
			clients = append(clients, rec.Summary.Client)
			if rec.Interrupted {
				x.Interrupted = true
				notes = append(notes, fmt.Sprintf("level %g: interrupted in shard %d (%s)", level, idx, f.Name))
			}
			if rec.OverSaturated != nil && x.OverSaturated == nil {
				x.OverSaturated = rec.OverSaturated
				notes = append(notes, fmt.Sprintf("level %g: shard %d (%s) ended it early as over-saturated", level, idx, f.Name))
			}
			if x.DueUnixMs == nil {
				x.DueUnixMs = rec.DueUnixMs
			}
			if rec.TTSCPUMsPerAudioS != nil {
				// The shard's speech CPU, back from its share per second of
				// the audio its rows spoke.
				x.TTSCPUMs = addCPU(x.TTSCPUMs, *rec.TTSCPUMsPerAudioS*audioMs(rowsOf(f.Rows, level), answerAudio)/1000)
			}
			if rec.STTCPUMsPerAudioS != nil {
				// The same of its speech-to-text engine, per second of
				// the callers' audio its rows sent.
				x.STTCPUMs = addCPU(x.STTCPUMs, *rec.STTCPUMsPerAudioS*audioMs(rowsOf(f.Rows, level), callerAudio)/1000)
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
			x.Starts = append(x.Starts, start)
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
	// The level's span on the wall clock, from the earliest shard's start
	// to the last request's end; without every shard's start, its longest
	// shard's: the shards ran the level together.
	span := perShardSpan
	if anchored && spanTo > spanFrom {
		span = spanTo - spanFrom
	}
	x.DurationMs = &span
	if anchored {
		x.StartedUnixMs = artifact.Ms(spanFrom)
	}
	x.Client = sumClients(clients, span)
	l := Level(set, level, rows, x)
	if anchored {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, s := range per {
			if s.StartedUnixMs != nil {
				lo, hi = math.Min(lo, *s.StartedUnixMs), math.Max(hi, *s.StartedUnixMs)
			}
		}
		l.StartSpreadMs = artifact.Ms(hi - lo)
	}
	l.Shards = per
	return l, notes, true
}

// rowsOf are the rows of level.
func rowsOf(rows []artifact.LoadRequest, level float64) []artifact.LoadRequest {
	var out []artifact.LoadRequest
	for _, r := range rows {
		if r.Level == level {
			out = append(out, r)
		}
	}
	return out
}

// addCPU is an engine's CPU so far (nil: none yet) with ms more.
func addCPU(sum *float64, ms float64) *float64 {
	if sum != nil {
		ms += *sum
	}
	return &ms
}

// sumClients is the client figures of the shards that ran a level
// together: their cores, CPU and reader figures summed (the reader's
// wait and runs only when every shard has them), busy the CPU over
// spanMs on every core; nil when a shard has none.
func sumClients(cs []*artifact.ClientUse, spanMs float64) *artifact.ClientUse {
	if len(cs) == 0 {
		return nil
	}
	out := &artifact.ClientUse{}
	wait, runs := 0.0, 0.0
	waitKnown := true
	for _, c := range cs {
		if c == nil {
			return nil
		}
		out.Cores += c.Cores
		out.CPUMs += c.CPUMs
		out.ReaderCPUMs += c.ReaderCPUMs
		if c.ReaderWaitMs == nil || c.ReaderRuns == nil {
			waitKnown = false
		} else {
			wait += *c.ReaderWaitMs
			runs += *c.ReaderRuns
		}
	}
	if waitKnown {
		out.ReaderWaitMs, out.ReaderRuns = artifact.Num(wait), artifact.Num(runs)
	}
	if spanMs > 0 && out.Cores > 0 {
		out.Busy = out.CPUMs / (spanMs * float64(out.Cores))
	}
	return out
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
