package streammany_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"ttftlab/runtime/luatest"

	"ttftlab/internal/stream/streamtest"
	"ttftlab/runtime"
)

func TestStreamManyClosedLoop(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"One", " two.", " Three", " four."}, Delay: 2 * time.Millisecond}).Start(t)
	vm, out := testVM(t, runtime.Config{Server: url})
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
	csv, _ := os.ReadFile(filepath.Join(vm.Out(), "r.csv"))
	lines := strings.Split(strings.TrimSpace(string(csv)), "\r\n")
	if len(lines) != 7 || !strings.HasPrefix(lines[0], "level,n,index,warmup,start_ms,") || !strings.HasPrefix(lines[1], "2,") {
		t.Errorf("r.csv:\n%s", csv)
	}
	jsonl, _ := os.ReadFile(filepath.Join(vm.Out(), "r.jsonl"))
	if n := strings.Count(string(jsonl), "\n"); n != 6 || !strings.Contains(string(jsonl), `"level":2`) {
		t.Errorf("r.jsonl:\n%s", jsonl)
	}
}

// TestStreamManyFailuresAreResults: a refused request is a result with
// its error and kind; the run goes on.
func TestStreamManyFailuresAreResults(t *testing.T) {
	good := (&streamtest.FakeLlama{Pieces: []string{"Hi."}}).Start(t)
	vm, out := testVM(t, runtime.Config{Server: good, Sources: map[string]string{"SERVER": "--server"}})
	err := vm.RunString(`
		local results, summary = stream_many(function(i)
			if i > 4 then return nil end
			return "q", {server = (i == 2) and "`+luatest.ClosedURL(t)+`" or SERVER}
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
	vm, out := testVM(t, runtime.Config{Server: url})
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
	vm, _ := testVM(t, runtime.Config{Server: "http://127.0.0.1:1"})
	for code, want := range map[string]string{
		`stream_many({}, {concurency = 2})`:                 `did you mean "concurrency"?`,
		`stream_many({}, {arrival = "bursty"})`:             `unknown arrival "bursty"`,
		`stream_many({}, {rate = -1})`:                      "opts.rate must be",
		`stream_many(5)`:                                    "an array of {messages, opts} pairs or a function",
		`stream_many({{"q", {max_token = 3}}})`:             `did you mean "max_tokens"?`,
		`stream_many({}, {think_ms = {5, 1}})`:              "opts.think_ms must be",
		`stream_many({}, {turns = 0})`:                      "opts.turns must be a whole number",
		`stream_many({{"q", {start_at_ms = 5}}})`:           `unknown option "start_at_ms"`,
		`stream_many({}, {shard = {index = 2, count = 2}})`: "index 2 is not below count 2",
		`stream_many({}, {shard = 1})`:                      "opts.shard must be a table",
		`stream_many({}, {start_at_ms = -1})`:               "ms since the Unix epoch",
	} {
		err := vm.RunString(code, "o.lua")
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "o.lua:1:") {
			t.Errorf("%s: %v, want %q at o.lua:1", code, err, want)
		}
	}
}

// TestStreamManyShardAndStartAt: with opts.shard a stream_many runs the
// calls of its part of the whole plan, with the whole plan's call numbers
// and due times; with opts.start_at_ms its clock begins no sooner than
// that wall-clock time, which the summary's started_unix_ms and each
// row's t0_unix_ms show.
func TestStreamManyShardAndStartAt(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"One."}, Delay: time.Millisecond}).Start(t)
	vm, out := testVM(t, runtime.Config{Server: url})
	err := vm.RunString(`
		local function req(_, call) return {{role = "user", content = "hi"}}, {max_tokens = 4, tags = {call = call}} end
		local start = os.time() * 1000 + 1000 -- the next second or the one after: in the future
		local results, summary = stream_many(req, {rate = 100, calls = 7, shard = {index = 1, count = 3}, start_at_ms = start,
			record = {jsonl = "r.jsonl"}})
		local calls = {}
		for _, r in ipairs(results) do
			calls[#calls + 1] = r.tags.call .. "@" .. r.scheduled_ms
		end
		print(table.concat(calls, " "), summary.started_unix_ms >= start)`, "s.lua")
	if err != nil {
		t.Fatal(err)
	}
	if got := out.String(); got != "2@10 5@40\ttrue\n" {
		t.Errorf("printed %q, want calls 2 and 5 (shard 1 of 3 of 7) due at 10 and 40 ms, begun no sooner than start_at_ms", got)
	}
	rows, _ := os.ReadFile(filepath.Join(vm.Out(), "r.jsonl"))
	if n := strings.Count(string(rows), `"t0_unix_ms":1`); n != 2 {
		t.Errorf("%d rows with a wall-clock t0, want 2:\n%s", n, rows)
	}
}

// TestStreamManySlowBuilderShowsInQueue: a request function that takes
// 50 ms (sleep_ms) delays every request it builds by at least that much
// after the moment the request was due, and queue_ms says so, in a
// closed loop (due when a place came free, or at the start) and in an
// open one (due at its arrival).
func TestStreamManySlowBuilderShowsInQueue(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Yes.", " We", " open."}, Delay: time.Millisecond}).Start(t)
	vm, out := testVM(t, runtime.Config{Server: url})
	err := vm.RunString(`
		local function slow(i)
			if i > 5 then return nil end
			sleep_ms(50)
			return "q", {max_tokens = 8}
		end
		for _, opts in ipairs({{concurrency = 2}, {rate = 5}, {rate = 5, arrival = "poisson", seed = 3}}) do
			local results = stream_many(slow, opts)
			assert(#results == 5, #results .. " results")
			for _, r in ipairs(results) do
				assert(r.error == nil, r.error)
				assert(r.queue_ms >= 50, string.format("%s request %d: queue_ms %.3f, but its function took 50 ms after it was due (scheduled %.3f, start %.3f)",
					opts.rate and "open loop" or "closed loop", r.index, r.queue_ms, r.scheduled_ms, r.start_ms))
			end
		end
		print("ok")`, "q.lua")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
}

// TestStreamManyCalls: with opts.calls and opts.turns the request
// function gets each turn's call, turn and the call's previous result; a
// think_ms function is asked for each next turn, which is due that long
// after the previous one ended; an error in it stops the run at its
// position.
func TestStreamManyCalls(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Yes."}, Delay: time.Millisecond}).Start(t)
	vm, out := testVM(t, runtime.Config{Server: url})
	err := vm.RunString(`
		local asked = {}
		local results = stream_many(function(i, call, turn, previous)
			if turn == 1 then assert(previous == nil) else assert(previous.tags.call == call and previous.tags.turn == turn - 1) end
			return "q", {max_tokens = 4, tags = {call = call, turn = turn}}
		end, {calls = 3, turns = 2, concurrency = 2, think_ms = function(call, turn)
			asked[#asked + 1] = call .. "/" .. turn
			return 30
		end})
		assert(#results == 6, #results .. " results")
		local first = {}
		for _, r in ipairs(results) do
			if r.tags.turn == 1 then first[r.tags.call] = r end
		end
		for _, r in ipairs(results) do
			local a = first[r.tags.call]
			if r.tags.turn == 2 then assert(r.scheduled_ms >= a.start_ms + a.total_ms + 30, "turn 2 due before turn 1 ended + 30 ms") end
		end
		table.sort(asked)
		print(table.concat(asked, " "))`, "c.lua")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if got := out.String(); got != "1/2 2/2 3/2\n" {
		t.Errorf("think_ms was asked for %q, want each call's turn 2 once", got)
	}
	err = vm.RunString(`stream_many(function(i, call, turn)
		return "q", {max_tokens = 4}
	end, {calls = 1, turns = 2, think_ms = function() error("no idea") end})`, "e.lua")
	if err == nil || !strings.Contains(err.Error(), "e.lua:3:") || !strings.Contains(err.Error(), "no idea") {
		t.Errorf("an error in think_ms: %v", err)
	}
	err = vm.RunString(`stream_many({{"q", {max_tokens = 4}}}, {turns = 2, think_ms = function() return -1 end})`, "n.lua")
	if err == nil || !strings.Contains(err.Error(), "opts.think_ms(1, 2) returned -1, want ms >= 0") {
		t.Errorf("think_ms returning -1: %v", err)
	}
}
