package runtime

import (
	"bytes"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/atomicfile"
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

// recordFields are the columns after the tags, in order.
var recordFields = []string{"index", "warmup", "start_ms", "scheduled_ms", "queue_ms", "ttft_ms", "first_sentence_ms",
	"total_ms", "stall_ms", "chunks", "prompt_n", "cache_n", "predicted_n", "error_kind", "error"}

func (vm *VM) recordOption(L *lua.LState, v lua.LValue) *recorder {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("stream_many: opts.record must be a table {jsonl =, csv =, tags =, columns =}, got %s", v.Type())
	}
	r := &recorder{}
	if s, ok := t.RawGetString("jsonl").(lua.LString); ok {
		r.jsonl = vm.outPath(string(s))
	}
	if s, ok := t.RawGetString("csv").(lua.LString); ok {
		r.csv = vm.outPath(string(s))
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
// file is new.
func (r *recorder) open(vm *VM) error {
	var tagNames []string
	if r.tags != nil {
		r.tags.ForEach(func(k, _ lua.LValue) { tagNames = append(tagNames, lua.LVAsString(k)) })
		sort.Strings(tagNames)
	}
	r.header = append(append(tagNames, r.columns...), recordFields...)
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

// add writes the rows of one request.
func (r *recorder) add(vm *VM, f finishedRequest) error {
	row := r.row(vm, f)
	if r.jsonl != "" {
		data, err := vm.json.encodeJSON(row, false)
		if err != nil {
			return fmt.Errorf("recording request %d: %w", f.index, err)
		}
		if err := atomicfile.Append(r.jsonl, append(data, '\n')); err != nil {
			return err
		}
	}
	if r.csv != "" {
		cells := make([]string, len(r.header))
		for i, h := range r.header {
			cells[i] = csvCell(row.RawGetString(h))
		}
		return atomicfile.Append(r.csv, []byte(csvLine(cells)))
	}
	return nil
}

// row is one request as a flat table: tags, then the fields.
func (r *recorder) row(vm *VM, f finishedRequest) *lua.LTable {
	t := vm.L.CreateTable(0, 24)
	for _, tags := range []*lua.LTable{r.tags, f.tags} {
		if tags != nil {
			tags.ForEach(func(k, v lua.LValue) { t.RawSet(k, v) })
		}
	}
	num := func(k string, x float64) {
		if !math.IsNaN(x) {
			t.RawSetString(k, lua.LNumber(x))
		}
	}
	t.RawSetString("index", lua.LNumber(f.index))
	t.RawSetString("warmup", lua.LBool(f.warmup))
	num("start_ms", f.startMs)
	num("scheduled_ms", f.scheduledMs)
	num("queue_ms", f.queueMs)
	num("ttft_ms", f.ttftMs)
	num("first_sentence_ms", f.firstSentenceMs)
	num("total_ms", f.totalMs)
	num("stall_ms", f.stallMs)
	t.RawSetString("chunks", lua.LNumber(f.chunks))
	num("prompt_n", f.promptN)
	num("cache_n", f.cacheN)
	num("predicted_n", f.predictedN)
	if f.kind != "" {
		t.RawSetString("error_kind", lua.LString(f.kind))
		t.RawSetString("error", lua.LString(f.message))
	}
	return t
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
	s := lua.LVAsString(v)
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
