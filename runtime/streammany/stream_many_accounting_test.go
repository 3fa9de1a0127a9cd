package streammany_test

import (
	"bufio"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"ttftlab/runtime/luatest"

	"ttftlab/internal/artifact"
	"ttftlab/internal/stream/streamtest"
	"ttftlab/runtime"
)

// TestStreamManyAccountsForFailures: of six requests, the third answers
// 500 before any token and the fifth gets its first token and then an
// error event. Each distribution is over the requests that have its
// figure and says so; failures are counted by kind with a message; the
// record holds every column, null where a request has no such figure,
// and decodes strictly.
func TestStreamManyAccountsForFailures(t *testing.T) {
	good := &streamtest.FakeLlama{Pieces: []string{"One.", " Two.", " Three."}, Delay: time.Millisecond}
	broken := &streamtest.FakeLlama{Pieces: []string{"One.", " Two."}, Delay: time.Millisecond, MidError: true}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch n.Add(1) {
		case 3:
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			w.Write([]byte(`{"error":{"code":500,"message":"out of memory","type":"server_error"}}`))
		case 5:
			broken.ServeHTTP(w, r)
		default:
			good.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(srv.Close)
	vm, out := testVM(t, runtime.Config{Server: srv.URL})
	err := vm.RunString(`
		local results, s = stream_many(function(i)
			if i > 6 then return nil end
			return "q", {max_tokens = 8}
		end, {concurrency = 1, record = {jsonl = "r.jsonl", tags = {level = 1}}})
		local f1, f2 = s.failures[1], s.failures[2]
		print(s.requests, s.ok, s.failed, #s.failures)
		print(f1.kind, f1.status, f1.n, f2.kind, f2.status, f2.n)
		print(s.ttft_ms.n, s.first_sentence_ms.n, s.total_ms.n, s.stall_ms.n, s.queue_ms.n, s.gap_ms.n)
		print(s.ttft_ms.over)
		print(results[3].stall_ms == nil, results[5].stall_ms == nil, results[5].info.ttft_ms ~= nil)
		print(f1.example)`, "acc.lua")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	// ttft: 5 (all but the 500); first sentence: 5 ("One." came before
	// the error event); total and stall: the 4 that ended without an
	// error; queue: all 6; gaps: 2 per good request, 1 for the broken one.
	want := []string{"6\t4\t2\t2", "http\t500\t1\tserver_error\tnil\t1", "5\t5\t4\t4\t6\t9", artifact.OverTTFT, "true\ttrue\ttrue"}
	for i, w := range want {
		if i >= len(lines) || lines[i] != w {
			t.Errorf("line %d = %q, want %q", i+1, lines[min(i, len(lines)-1)], w)
		}
	}
	if !strings.Contains(out.String(), "out of memory") {
		t.Errorf("the 500's message is not the example: %q", out.String())
	}
	f, err := os.Open(filepath.Join(vm.Out(), "r.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rows := 0
	for sc.Scan() {
		var r struct {
			Level float64 `json:"level"`
			artifact.Request
		}
		if err := artifact.DecodeStrict(sc.Bytes(), &r); err != nil {
			t.Fatalf("row %s: %v", sc.Text(), err)
		}
		rows++
		if (r.Error != nil) != (r.StallMs == nil) || (r.Error != nil) != (r.ErrorKind != nil) {
			t.Errorf("row %s: a failed request has an error, its kind and no stall_ms", sc.Text())
		}
		if !strings.Contains(sc.Text(), `"ttft_ms":`) || !strings.Contains(sc.Text(), `"error":`) {
			t.Errorf("row %s lacks a column", sc.Text())
		}
	}
	if rows != 6 {
		t.Errorf("%d rows", rows)
	}
}

// TestStreamManyEmptyDistributions: when every request fails before a
// first token, the distributions of figures no request has are n = 0
// with null percentiles (json_null in Lua), and write_json writes them;
// the summary is a level's (artifact.LevelSummary: its calls and turns).
func TestStreamManyEmptyDistributions(t *testing.T) {
	vm, out := testVM(t, runtime.Config{Server: luatest.ClosedURL(t)})
	err := vm.RunString(`
		local _, s = stream_many(function(i)
			if i > 2 then return nil end
			return "q", {}
		end, {concurrency = 2})
		print(s.ttft_ms.n, s.ttft_ms.p95 == json_null, s.total_ms.n, s.queue_ms.n, s.failures[1].kind, s.failures[1].n)
		write_json("s.json", s)`, "empty.lua")
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.SplitN(out.String(), "\n", 2)[0]; got != "0\ttrue\t0\t2\tconnect\t2" {
		t.Errorf("printed %q", got)
	}
	data, err := os.ReadFile(filepath.Join(vm.Out(), "s.json"))
	if err != nil {
		t.Fatal(err)
	}
	var s artifact.LevelSummary
	if err := artifact.DecodeStrict(data, &s); err != nil {
		t.Fatalf("%v\n%s", err, data)
	}
	if s.TTFTMs.N != 0 || s.TTFTMs.P50 != nil || s.Failed != 2 || s.Calls != 2 || len(s.ByTurn) != 1 || s.ByTurn[0].N != 0 {
		t.Errorf("summary %+v", s)
	}
}
