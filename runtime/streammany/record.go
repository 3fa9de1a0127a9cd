package streammany

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/atomicfile"
	"ttftlab/runtime/luajson"
)

// recorder writes one row per finished request as it finishes, so a run
// that is interrupted keeps every request that ended: a JSONL file and a
// CSV file (for spreadsheets and pandas), both appended a whole line at a
// time.
type recorder struct {
	jsonl, csv string
	// tags go into every row (e.g. the level); columns name the tags of
	// single requests (opts.tags) that the CSV has a column for.
	tags    *lua.LTable
	columns []string
	header  []string
}

func (h *Host) recordOption(L *lua.LState, v lua.LValue) *recorder {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("stream_many: opts.record must be a table {jsonl =, csv =, tags =, columns =}, got %s", v.Type())
	}
	r := &recorder{}
	if s, ok := t.RawGetString("jsonl").(lua.LString); ok {
		r.jsonl = h.OutPath(string(s))
	}
	if s, ok := t.RawGetString("csv").(lua.LString); ok {
		r.csv = h.OutPath(string(s))
	}
	if r.jsonl == "" && r.csv == "" {
		L.RaiseError("stream_many: opts.record needs a jsonl or a csv file name")
	}
	r.tags, _ = t.RawGetString("tags").(*lua.LTable)
	if cols, ok := t.RawGetString("columns").(*lua.LTable); ok {
		for i := 1; i <= cols.Len(); i++ {
			r.columns = append(r.columns, lua.LVAsString(cols.RawGetInt(i)))
		}
	}
	return r
}

// open prepares the files: their folders, and the CSV's header when the
// file is new. Its error is a file it could not write.
func (r *recorder) open() error {
	var tagNames []string
	if r.tags != nil {
		r.tags.ForEach(func(k, _ lua.LValue) { tagNames = append(tagNames, lua.LVAsString(k)) })
		sort.Strings(tagNames)
	}
	r.header = append(append(tagNames, r.columns...), artifact.RequestColumns...)
	for _, p := range []string{r.jsonl, r.csv} {
		if p == "" {
			continue
		}
		if err := os.MkdirAll(dirOf(p), 0o755); err != nil {
			return fmt.Errorf("cannot create the folder for %s: %w", p, err)
		}
	}
	if r.csv == "" {
		return nil
	}
	if st, err := os.Stat(r.csv); err == nil && st.Size() > 0 {
		return nil
	}
	return atomicfile.Append(r.csv, []byte(csvLine(r.header)))
}

func (r *recorder) close() {}

// add writes the rows of one request, rec (f.record()), after the tags
// (the record's, then the request's own), in the JSONL file and, by the
// same values, in the CSV. A file it cannot write is a *writeFailed.
func (r *recorder) add(L *lua.LState, codec *luajson.Codec, f finishedRequest, rec artifact.Request) error {
	tags := L.CreateTable(0, 4)
	for _, t := range []*lua.LTable{r.tags, f.tags} {
		if t != nil {
			t.ForEach(func(k, v lua.LValue) { tags.RawSet(k, v) })
		}
	}
	if r.jsonl != "" {
		var names []string
		tags.ForEach(func(k, _ lua.LValue) { names = append(names, lua.LVAsString(k)) })
		sort.Strings(names)
		members := make([][2]any, 0, len(names))
		for _, name := range names {
			v, err := codec.Encode(tags.RawGetString(name), false)
			if err != nil {
				return fmt.Errorf("recording request %d: tag %s: %w", f.index, name, err)
			}
			members = append(members, [2]any{name, json.RawMessage(v)})
		}
		data, err := artifact.WithTags(rec, members)
		if err != nil {
			return fmt.Errorf("recording request %d: %w", f.index, err)
		}
		if err := atomicfile.Append(r.jsonl, append(data, '\n')); err != nil {
			return written(err)
		}
	}
	if r.csv != "" {
		own := rec.Cells()
		cells := make([]string, len(r.header))
		nTags := len(r.header) - len(own)
		for i, h := range r.header[:nTags] {
			cells[i] = csvCell(tags.RawGetString(h))
		}
		for i, c := range own {
			cells[nTags+i] = csvText(c)
		}
		return written(atomicfile.Append(r.csv, []byte(csvLine(cells))))
	}
	return nil
}

// record is the request as its row holds it.
func (f finishedRequest) record() artifact.Request {
	num := func(x float64) *float64 {
		if x != x { // NaN: the request has no such figure
			return nil
		}
		return artifact.Num(x)
	}
	rec := artifact.Request{Index: f.index, Warmup: f.warmup, StartMs: artifact.Ms(f.startMs), RunMs: artifact.Ms(f.runMs),
		ScheduledMs: artifact.Ms(f.scheduledMs), QueueMs: artifact.Ms(f.queueMs), LateMs: artifact.Ms(f.lateMs), Ramp: f.ramp, TTFTMs: artifact.Ms(f.ttftMs),
		FirstSentenceMs: artifact.Ms(f.firstSentenceMs), TotalMs: artifact.Ms(f.totalMs), StallMs: artifact.Ms(f.stallMs),
		Chunks: f.chunks, PromptN: num(f.promptN), CacheN: num(f.cacheN), PredictedN: num(f.predictedN), T0UnixMs: num(f.t0UnixMs)}
	if f.kind != "" {
		kind, msg := f.kind, f.message
		rec.ErrorKind, rec.Error = &kind, &msg
	}
	rec.Cut, rec.ErrorStatus = f.cut, f.status
	if len(f.gapsMs) > 0 {
		rec.GapsMs = make([]float64, len(f.gapsMs))
		for i, g := range f.gapsMs {
			rec.GapsMs[i] = *artifact.Ms(g)
		}
	}
	if f.spoken != nil {
		rec.FirstAudioMs, rec.UnderrunMs = artifact.Ms(f.firstAudioMs), artifact.Ms(f.underrunMs)
		audio := 0.0
		for _, s := range f.spoken.Sentences {
			audio += s.AudioMs
		}
		rec.AudioMs = artifact.Ms(audio)
	}
	return rec
}

// csvCell is a value as RFC 4180 writes it; times to the microsecond, as
// in the JSON files.
func csvCell(v lua.LValue) string {
	switch v := v.(type) {
	case *lua.LNilType:
		return ""
	case lua.LNumber:
		f := float64(v)
		return strconv.FormatFloat(math.Round(f*1000)/1000, 'f', -1, 64)
	case lua.LBool:
		return strconv.FormatBool(bool(v))
	}
	return csvText(lua.LVAsString(v))
}

// csvText quotes a cell when RFC 4180 needs it.
func csvText(s string) string {
	if strings.ContainsAny(s, ",\"\n\r") {
		s = `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
	}
	return s
}

func csvLine(cells []string) string {
	var b bytes.Buffer
	for i, c := range cells {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(c)
	}
	b.WriteString("\r\n")
	return b.String()
}

func dirOf(p string) string {
	if i := strings.LastIndexByte(p, '/'); i > 0 {
		return p[:i]
	}
	return "."
}
