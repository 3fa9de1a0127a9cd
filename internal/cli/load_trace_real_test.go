package cli

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// mooncakeLine is one line of a Mooncake trace.
type mooncakeLine struct {
	Timestamp    float64 `json:"timestamp"`
	InputLength  int     `json:"input_length"`
	OutputLength int     `json:"output_length"`
	HashIDs      []int   `json:"hash_ids"`
}

// sharingTrace writes a Mooncake trace of n lines spaced gap ms apart
// into dir: the odd lines one family whose first two blocks are shared
// (hash_ids 1, 2, then one of the line's own), the even ones unique
// prompts of three blocks of their own; block tokens a block, every
// prompt three blocks long, out tokens an answer. It returns the path
// and the lines.
func sharingTrace(t *testing.T, dir string, n int, gap float64, block, out int) (string, []mooncakeLine) {
	t.Helper()
	var lines []mooncakeLine
	var b strings.Builder
	for i := range n {
		l := mooncakeLine{Timestamp: float64(i) * gap, InputLength: 3 * block, OutputLength: out}
		if i%2 == 0 {
			l.HashIDs = []int{1, 2, 100 + i}
		} else {
			l.HashIDs = []int{1000 + i, 2000 + i, 3000 + i}
		}
		lines = append(lines, l)
		data, _ := json.Marshal(l)
		b.Write(data)
		b.WriteByte('\n')
	}
	path := filepath.Join(dir, "trace.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path, lines
}

// TestLoadTraceMooncakeRealServer: a generated Mooncake trace whose
// shared hash_ids are interleaved with unique ones, replayed against the
// real llama-server with two slots (it gives a prompt the slot whose
// prompt is most alike): every request starts within 50 ms of its trace
// time, is due exactly at it, asks the trace's answer length with
// ignore_eos and gets it; a request that shares two blocks with an
// earlier one finds them in the server's cache, token for token, and a
// unique one finds almost nothing.
func TestLoadTraceMooncakeRealServer(t *testing.T) {
	srv := startLlama(t, "-np", "2", "-c", "1024", "--metrics")
	dir := t.TempDir()
	const block, answer = 32, 8
	path, lines := sharingTrace(t, dir, 16, 250, block, answer)
	out := filepath.Join(dir, "out")
	code, stdout, stderr := runCLI("load", "--server", srv.URL, "--trace", path, "--trace-block", fmt.Sprint(block),
		"--no-report", "--out", out, "--slo", "ttft_ms<=60000@p95")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("load --trace: exit %d", code)
	}
	doc := strictLoad(t, out)
	rows := readRows(t, out)
	s := doc.Settings
	if s.Mode != "trace" || s.Trace == nil || s.Trace.Format != "mooncake" || s.Trace.Calls != len(lines) || s.Trace.Vocab != 512 {
		t.Fatalf("settings: mode %q trace %+v", s.Mode, s.Trace)
	}
	if len(doc.Levels) != 1 || doc.Capacity != nil {
		t.Fatalf("a replay is one level without a capacity: %d levels, capacity %+v", len(doc.Levels), doc.Capacity)
	}
	lv := doc.Levels[0]
	if lv.Summary.StartedUnixMs == nil || lv.Summary.LateMs == nil || lv.Summary.LateMs.N != len(lines) {
		t.Fatalf("level summary: started %v late %+v", lv.Summary.StartedUnixMs, lv.Summary.LateMs)
	}
	began := *lv.Summary.StartedUnixMs
	if len(rows) != len(lines) {
		t.Fatalf("%d rows for %d trace lines", len(rows), len(lines))
	}
	seen := map[int]bool{}
	for _, r := range rows {
		if r.ErrorKind != nil {
			t.Errorf("line %d failed: %s", r.TraceLine, *r.Error)
			continue
		}
		i := r.TraceLine - 1
		if i < 0 || i >= len(lines) || seen[i] {
			t.Errorf("row of trace line %d (call %q): none such, or twice", r.TraceLine, r.TraceCall)
			continue
		}
		seen[i] = true
		l := lines[i]
		if r.ScheduledMs == nil || *r.ScheduledMs != l.Timestamp {
			t.Errorf("line %d due at %v ms, the trace says %v", i+1, fmtPtr(r.ScheduledMs), l.Timestamp)
		}
		// The request's first byte left within 50 ms of its trace time on
		// the wall clock.
		if r.T0UnixMs == nil {
			t.Errorf("line %d: no t0", i+1)
		} else if late := *r.T0UnixMs - (began + l.Timestamp); late < 0 || late >= 50 {
			t.Errorf("line %d began %.3f ms after its trace time", i+1, late)
		}
		if r.IgnoreEOS == nil || !*r.IgnoreEOS || r.PredictedN == nil || *r.PredictedN != answer {
			t.Errorf("line %d: ignore_eos %v, %v tokens predicted, the trace says %d", i+1, r.IgnoreEOS, fmtPtr(r.PredictedN), answer)
		}
		wantShared := 0.0
		if i%2 == 0 && i > 0 {
			wantShared = 2 * block
		}
		if r.TraceInputN == nil || *r.TraceInputN != 3*block || r.TraceSharedN == nil || *r.TraceSharedN != wantShared {
			t.Errorf("line %d: trace_input_n %v trace_shared_n %v, want %d and %v", i+1, fmtPtr(r.TraceInputN), fmtPtr(r.TraceSharedN), 3*block, wantShared)
		}
		if r.CacheN == nil || r.PromptN == nil || *r.CacheN+*r.PromptN != 3*block {
			t.Errorf("line %d: cache_n %v + prompt_n %v is not the prompt's %d tokens", i+1, fmtPtr(r.CacheN), fmtPtr(r.PromptN), 3*block)
		} else if math.Abs(*r.CacheN-wantShared) > 2 {
			t.Errorf("line %d: the server's cache held %v tokens, the trace shares %v", i+1, *r.CacheN, wantShared)
		}
	}
	if len(seen) != len(lines) {
		var missing []int
		for i := range lines {
			if !seen[i] {
				missing = append(missing, i+1)
			}
		}
		sort.Ints(missing)
		t.Errorf("trace lines never sent: %v", missing)
	}
}
