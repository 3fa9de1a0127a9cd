package stdlib_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/stream/streamtest"
	"ttftlab/runtime"
)

// TestCallsRunMultiTurn: every call runs its turns in order, each turn
// sending the history with the agent's earlier answers, after the think
// time.
func TestCallsRunMultiTurn(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"Yes.", " We", " open."}, Delay: time.Millisecond}
	url := f.Start(t)
	var out strings.Builder
	vm, err := runtime.New(t.Context(), runtime.Config{Server: url, Out: t.TempDir(), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	err = vm.RunString(`
		local calls = require("calls")
		local turns, summary = calls.run({calls = 3, turns = 2, concurrency = 2, think_ms = 40, lines = {"one", "two"}})
		assert(#turns == 6 and summary.ok == 6 and summary.calls == 3, #turns .. " turns")
		local by = {}
		for _, r in ipairs(turns) do
			by[r.tags.call] = by[r.tags.call] or {}
			by[r.tags.call][r.tags.turn] = r
		end
		for call = 1, 3 do
			local a, b = by[call][1], by[call][2]
			assert(b.start_ms >= a.start_ms + a.total_ms + 40 - 0.001, string.format("turn 2 of call %d at %.3f, turn 1 at %.3f + %.3f", call, b.start_ms, a.start_ms, a.total_ms))
			assert(b.scheduled_ms >= a.start_ms + a.total_ms + 40 - 0.001) -- due at the end of turn 1 plus the think time
		end
		assert(summary.by_turn[1].n == 3 and summary.by_turn[2].n == 3)
		print("ok")`, "c.lua")
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	// The second turn sends: system, the call's first line, the
	// assistant's answer, its next line (each call starts at a line of its
	// own: "one" then "two", or "two" then "one").
	second := 0
	for _, b := range f.Bodies() {
		msgs := userLines(t, b)
		if len(msgs) == 4 {
			second++
			if msgs[2] != "Yes. We open." || msgs[1] == msgs[3] || (msgs[1] != "one" && msgs[1] != "two") {
				t.Errorf("a second turn without the history: %s", b)
			}
		}
	}
	if second != 3 {
		t.Errorf("%d second turns sent, want 3", second)
	}
}

// userLines are the contents of a chat request's messages.
func userLines(t *testing.T, body string) []string {
	t.Helper()
	var req struct {
		Messages []struct{ Content string } `json:"messages"`
	}
	if err := json.Unmarshal([]byte(body), &req); err != nil {
		t.Fatalf("%v in %s", err, body)
	}
	var out []string
	for _, m := range req.Messages {
		out = append(out, m.Content)
	}
	return out
}

// TestCallsCallersDiffer: each call's first line is chosen by the plan's
// seeded draw for the call, so four callers do not all open with the same
// line (a real caller's first turn is a cold prompt), and the same seed
// gives the same lines again; another seed, other lines.
func TestCallsCallersDiffer(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"Yes."}, Delay: time.Millisecond}
	url := f.Start(t)
	var out strings.Builder
	vm, err := runtime.New(t.Context(), runtime.Config{Server: url, Out: t.TempDir(), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	firsts := func(seed int) []string {
		before := len(f.Bodies())
		if err := vm.RunString(fmt.Sprintf(`require("calls").run({calls = 4, turns = 1, concurrency = 1, think_ms = 0, seed = %d})`, seed), "d.lua"); err != nil {
			t.Fatalf("%v\n%s", err, out.String())
		}
		var lines []string
		for _, b := range f.Bodies()[before:] {
			msgs := userLines(t, b)
			lines = append(lines, msgs[len(msgs)-1])
		}
		if len(lines) != 4 {
			t.Fatalf("%d requests, want 4", len(lines))
		}
		return lines
	}
	a, b, c := firsts(7), firsts(7), firsts(8)
	if a[0] == a[1] && a[1] == a[2] && a[2] == a[3] {
		t.Errorf("every caller opened with %q", a[0])
	}
	if strings.Join(a, "|") != strings.Join(b, "|") {
		t.Errorf("seed 7 gave %q, then %q", a, b)
	}
	if strings.Join(a, "|") == strings.Join(c, "|") {
		t.Errorf("seeds 7 and 8 gave the same lines %q", a)
	}
}

func TestCallsCheckOptions(t *testing.T) {
	L := newVM(t)
	assertErr(t, L, `require("calls").run({cals = 3})`, `did you mean "calls"?`)
	assertErr(t, L, `require("calls").run({concurrency = 2, rate = 1})`, "not both")
	assertErr(t, L, `require("calls").run({think_ms = {5, 1}})`, "opts.think_ms must be")
}

// TestCallsSlowBuilderShowsInQueue: a caller's line that takes 50 ms to
// build (sleep_ms in opts.lines) delays every turn by at least that much
// after the moment it was due (the call's start, or the previous turn's
// end plus the think time), and queue_ms says so, with calls at once and
// with calls arriving.
func TestCallsSlowBuilderShowsInQueue(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"Yes.", " We", " open."}, Delay: time.Millisecond}
	url := f.Start(t)
	var out strings.Builder
	vm, err := runtime.New(t.Context(), runtime.Config{Server: url, Out: t.TempDir(), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	err = vm.RunString(`
		local calls = require("calls")
		local function slow(call, turn) sleep_ms(50); return "line " .. turn end
		for _, mode in ipairs({{concurrency = 2}, {rate = 4}}) do
			local turns = calls.run({calls = 3, turns = 2, concurrency = mode.concurrency, rate = mode.rate,
				think_ms = 20, lines = slow})
			assert(#turns == 6, #turns .. " turns")
			local by = {}
			for _, r in ipairs(turns) do
				assert(r.error == nil, r.error)
				assert(r.queue_ms >= 50, string.format("call %d turn %d: queue_ms %.3f, but its line took 50 ms after it was due (scheduled %.3f, start %.3f)",
					r.tags.call, r.tags.turn, r.queue_ms, r.scheduled_ms, r.start_ms))
				by[r.tags.call] = by[r.tags.call] or {}
				by[r.tags.call][r.tags.turn] = r
			end
			for call = 1, 3 do
				local a, b = by[call][1], by[call][2]
				-- the next turn is due once the previous one has ended and the caller has thought
				assert(b.scheduled_ms >= a.start_ms + a.total_ms + 20 - 0.001, string.format("call %d: turn 2 due at %.3f, turn 1 ended at %.3f", call, b.scheduled_ms, a.start_ms + a.total_ms))
			end
		end
		print("ok")`, "q.lua")
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
}

// TestCallsThinkTimes: think_ms as a range (drawn from the seed: the same
// seed, the same pauses) and as a function of the call and the turn, each
// next turn due no sooner than the previous one's end plus the pause.
func TestCallsThinkTimes(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Yes."}, Delay: time.Millisecond}).Start(t)
	var out strings.Builder
	vm, err := runtime.New(t.Context(), runtime.Config{Server: url, Out: t.TempDir(), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	err = vm.RunString(`
		local calls = require("calls")
		local function check(turns, least)
			local by = {}
			for _, r in ipairs(turns) do
				by[r.tags.call] = by[r.tags.call] or {}
				by[r.tags.call][r.tags.turn] = r
			end
			for call, ts in pairs(by) do
				for k = 2, #ts do
					local a, b = ts[k - 1], ts[k]
					assert(b.scheduled_ms >= a.start_ms + a.total_ms + least(call, k) - 0.001,
						string.format("call %d turn %d due at %.3f, turn %d ended at %.3f", call, k, b.scheduled_ms, k - 1, a.start_ms + a.total_ms))
				end
			end
		end
		local asked = {}
		local turns = calls.run({calls = 2, turns = 3, concurrency = 2, think_ms = function(call, turn)
			asked[#asked + 1] = call .. "/" .. turn
			return 10 * turn
		end})
		check(turns, function(_, turn) return 10 * turn end)
		table.sort(asked)
		assert(table.concat(asked, " ") == "1/2 1/3 2/2 2/3", table.concat(asked, " "))
		turns = calls.run({calls = 2, turns = 2, concurrency = 2, think_ms = {10, 30}, seed = 4})
		check(turns, function() return 10 end)
		print("ok")`, "t.lua")
	if err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
}

// TestCallsBuilder: the builder alone (the load's experiment) builds a
// call's turns: the system prompt, the history of the call with the
// answers, the caller's next line from the draw, the opts with the call's
// tags; once the caller hangs up the call's history is gone; a turn the
// caller spoke is in the history as its transcript.
func TestCallsBuilder(t *testing.T) {
	var out strings.Builder
	vm, err := runtime.New(t.Context(), runtime.Config{Out: t.TempDir(), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	err = vm.RunString(`
		local calls = require("calls")
		local request, on_result = calls.builder({system = "S", lines = {"one", "two"}, opts = {max_tokens = 5}, turns = 2})
		local m1, o1 = request(1, 7, 1, nil, 0.6)
		assert(#m1 == 2 and m1[1].content == "S" and m1[2].content == "two", m1[2].content)
		assert(o1.max_tokens == 5 and o1.tags.call == 7 and o1.tags.turn == 1)
		local m2 = request(2, 7, 2, {chunks = {{text = "Yes"}, {text = "."}}}, 0.6)
		assert(#m2 == 4 and m2[2].content == "two" and m2[3].role == "assistant" and m2[3].content == "Yes." and m2[4].content == "one")
		on_result({tags = {call = 7, turn = 2}})
		local m3 = request(3, 7, 1, nil, 0.1)
		assert(#m3 == 2 and m3[2].content == "one", #m3 .. " messages after the caller hung up")
		-- A turn the caller spoke: the history holds what the LLM was asked.
		local m4 = request(4, 7, 2, {transcript = "won", chunks = {{text = "Sure."}}}, 0.1)
		assert(#m4 == 4 and m4[2].content == "won" and m4[3].content == "Sure." and m4[4].content == "two", m4[2].content)
		print("ok")`, "b.lua")
	if err != nil || !strings.Contains(out.String(), "ok") {
		t.Fatalf("%v\n%s", err, out.String())
	}
}

// TestCallsBuilderReplaysLines: with a trace's line (load --trace) the
// builder sends a Mooncake line's token ids alone on the completions API
// (ignore_eos, max_tokens its output_tokens, no messages, the stream()
// options and body of o.opts kept), a call log's text as the caller's
// line with the history of the call, input_tokens alone as that many
// words, and forgets a call after the trace's last turn of it; a call
// that starts in steady state (turn 3, no previous result) holds its
// turns 1 and 2 as history, each answered by calls.HISTORY_ANSWER.
func TestCallsBuilderReplaysLines(t *testing.T) {
	var out strings.Builder
	vm, err := runtime.New(t.Context(), runtime.Config{Out: t.TempDir(), Stdout: &out, Stderr: &out})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	err = vm.RunString(`
		local calls = require("calls")
		local request, on_result = calls.builder({system = "S", lines = {"one", "two", "three"},
			opts = {max_tokens = 5, timeout_ms = 900, body = {top_k = 1}}, turns = 3})
		local m, o = request(1, 1, 1, nil, 0.5, {call_id = "1", line = 1, prompt = {7, 8, 9}, input_tokens = 3, output_tokens = 12, turns = 1})
		assert(#m == 0 and o.api == "completions" and o.max_tokens == 12 and o.timeout_ms == 900, "mooncake opts")
		assert(o.body.prompt[3] == 9 and o.body.ignore_eos == true and o.body.top_k == 1 and o.tags.call == 1, "mooncake body")
		m, o = request(2, 2, 1, nil, 0.5, {call_id = "a", line = 2, text = "Hello there.", turns = 2})
		assert(#m == 2 and m[2].content == "Hello there." and o.max_tokens == 5 and o.api == nil, "a call log's first turn")
		m, o = request(3, 2, 2, {chunks = {{text = "Hi."}}}, 0.5, {call_id = "a", line = 3, input_tokens = 4, output_tokens = 7, turns = 2})
		assert(#m == 4 and m[2].content == "Hello there." and m[3].content == "Hi." and m[4].content == "please can you tell", m[4].content)
		assert(o.max_tokens == 7, "output_tokens")
		on_result({tags = {call = 2, turn = 2}})
		m = request(4, 2, 1, nil, 0.5, {call_id = "b", line = 4, text = "New call.", turns = 2})
		assert(#m == 2 and m[2].content == "New call.", #m .. " messages after the trace's last turn of the call")
		m = request(5, 3, 3, nil, 0.1)
		assert(#m == 6 and m[2].content == "one" and m[3].role == "assistant" and m[3].content == calls.HISTORY_ANSWER, "steady start " .. #m)
		assert(m[4].content == "two" and m[5].content == calls.HISTORY_ANSWER and m[6].content == "three", "steady start's lines")
		print("ok")`, "b.lua")
	if err != nil || !strings.Contains(out.String(), "ok") {
		t.Fatalf("%v\n%s", err, out.String())
	}
}
