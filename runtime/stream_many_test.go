package runtime

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/stream/streamtest"
)

func TestStreamManyClosedLoop(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"One", " two.", " Three", " four."}, Delay: 2 * time.Millisecond}).Start(t)
	vm, out := testVM(t, Config{Server: url})
	err := vm.RunString(`
		local reqs = {}
		for i = 1, 6 do reqs[i] = {"hi " .. i, {max_tokens = 8, tags = {n = i}}} end
		local results, summary = stream_many(reqs, {concurrency = 2, warmup = 1,
			record = {jsonl = "r.jsonl", csv = "r.csv", tags = {level = 2}, columns = {"n"}}})
		assert(#results == 6, "#results " .. #results)
		for i, r in ipairs(results) do
			assert(r.index == i and r.error == nil and r.info.done, "request " .. i)
			assert(r.info.ttft_ms <= r.total_ms and r.queue_ms >= 0 and r.start_ms >= r.scheduled_ms)
			assert(r.first_sentence_ms ~= nil and r.first_sentence_ms >= r.info.ttft_ms, "first sentence " .. i)
			assert(#r.chunks == 4 and r.tags.n == i and r.stall_ms >= 0)
		end
		assert(results[1].warmup and not results[2].warmup)
		print(summary.requests, summary.ok, summary.warmup, summary.ttft_ms.n, summary.gap_ms.n,
			summary.ttft_ms.p50 <= summary.total_ms.p50, summary.tokens_per_s > 0)`, "m.lua")
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "5\t5\t1\t5\t15\ttrue\ttrue\n" {
		t.Errorf("printed %q", got)
	}
	csv, _ := os.ReadFile(filepath.Join(vm.cfg.Out, "r.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\r\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "level,n,index,warmup,start_ms,") || !strings.HasPrefix(lines[1], "2,") {
		t.Errorf("r.csv:\n%s", csv)
	}
	jsonl, _ := os.ReadFile(filepath.Join(vm.cfg.Out, "r.jsonl"))
	if n := strings.Count(string(jsonl), "\n"); n != 6 || !strings.Contains(string(jsonl), `"level":2`) {
		t.Errorf("r.jsonl:\n%s", jsonl)
	}
}

// TestStreamManyFailuresAreResults: a refused request is a result with
// its error and kind; the run goes on.
func TestStreamManyFailuresAreResults(t *testing.T) {
	good := (&streamtest.FakeLlama{Pieces: []string{"Hi."}}).Start(t)
	vm, out := testVM(t, Config{Server: good, Sources: map[string]string{"SERVER": "--server"}})
	err := vm.RunString(`
		local results, summary = stream_many(function(i)
			if i > 4 then return nil end
			return "q", {server = (i == 2) and "`+closedURL(t)+`" or SERVER}
		end, {concurrency = 4})
		print(#results, summary.ok, summary.failures[1].n, summary.failures[1].kind, results[1].error == nil)
		print(results[2].error)`, "f.lua")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(out.String(), "\n")
	if lines[0] != "4\t3\t1\tconnect\ttrue" || !strings.Contains(lines[1], "connection refused") || !strings.Contains(lines[1], "opts.server") {
		t.Errorf("printed %q", out.String())
	}
}

// TestStreamManyOnChunkAndOnResult: Lua callbacks run on the script's
// goroutine; on_chunk can cut its request, on_result can stop new starts.
func TestStreamManyOnChunkAndOnResult(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"a", " b", " c", " d", " e"}, Delay: time.Millisecond}).Start(t)
	vm, out := testVM(t, Config{Server: url})
	err := vm.RunString(`
		local seen = 0
		local results = stream_many(function(i)
			return "q", {on_chunk = function(c) seen = seen + 1; return c.index < 2 end}
		end, {concurrency = 1, on_result = function(r) return r.index < 3 end})
		print(#results, seen, results[1].info.cut, #results[1].chunks)`, "c.lua")
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "3\t6\ttrue\t2\n" {
		t.Errorf("printed %q", got)
	}
}

func TestStreamManyChecksItsOptions(t *testing.T) {
	vm, _ := testVM(t, Config{Server: "http://127.0.0.1:1"})
	for code, want := range map[string]string{
		`stream_many({}, {concurency = 2})`:     `did you mean "concurrency"?`,
		`stream_many({}, {arrival = "bursty"})`: `unknown arrival "bursty"`,
		`stream_many({}, {rate = -1})`:          "opts.rate must be",
		`stream_many(5)`:                        "an array of {messages, opts} pairs or a function",
		`stream_many({{"q", {max_token = 3}}})`: `did you mean "max_tokens"?`,
	} {
		err := vm.RunString(code, "o.lua")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "o.lua:1:") {
			t.Errorf("%s: %v, want %q at o.lua:1", code, err, want)
		}
	}
}
