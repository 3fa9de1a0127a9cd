package streammany_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/load"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream/streamtest"
	"ttftlab/internal/stt"
	"ttftlab/internal/stt/stttest"
	"ttftlab/internal/trace"
	"ttftlab/runtime"
	"ttftlab/runtime/request"
	"ttftlab/scripts"
)

// sent is a request as the server got it.
type sent struct {
	path string
	body map[string]any
}

// recording serves f and keeps every POST's path and body.
type recording struct {
	f    *streamtest.FakeLlama
	mu   sync.Mutex
	reqs []sent
}

func (rc *recording) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	raw, _ := io.ReadAll(r.Body)
	if r.Method == http.MethodPost { // not the watch's GET /slots
		var body map[string]any
		json.Unmarshal(raw, &body)
		rc.mu.Lock()
		rc.reqs = append(rc.reqs, sent{r.URL.Path, body})
		rc.mu.Unlock()
	}
	r.Body = io.NopCloser(strings.NewReader(string(raw)))
	rc.f.ServeHTTP(w, r)
}

// start serves a fake llama-server that records the requests.
func (rc *recording) start(t *testing.T) string {
	t.Helper()
	rc.f.Start(t) // readies the fake
	srv := httptest.NewServer(rc)
	t.Cleanup(srv.Close)
	return srv.URL
}

func (rc *recording) sent() []sent {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	return slices.Clone(rc.reqs)
}

// loadExperiment is the built-in experiment, scripts/load.lua, on a VM.
func loadExperiment(t *testing.T, cfg runtime.Config) (*runtime.VM, *runtime.Experiment) {
	t.Helper()
	vm, _ := testVM(t, cfg)
	exp, err := vm.ExperimentFS(scripts.FS, "load.lua")
	if err != nil {
		t.Fatal(err)
	}
	return vm, exp
}

// writeTrace writes a trace file and reads it as the run will.
func writeTrace(t *testing.T, name, content string, o trace.Options) (string, *trace.Trace) {
	t.Helper()
	file := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(file, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(file, o)
	if err != nil {
		t.Fatal(err)
	}
	return file, tr
}

// traceSettings are a replay's settings, as the command line makes them.
func traceSettings(file string, tr *trace.Trace, vocab int) artifact.LoadSettings {
	return artifact.LoadSettings{Mode: "trace", Levels: []float64{1}, Calls: len(tr.Calls), Requests: tr.Requests, MaxTokens: 9,
		Arrival: "constant", Seed: 7, Trace: &artifact.LoadTrace{File: file, Format: string(tr.Format), SHA256: tr.SHA256,
			Lines: tr.Lines, Calls: len(tr.Calls), Requests: tr.Requests, Speed: 1, Block: tr.Block, Vocab: vocab}}
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// shown is what p points to, for messages ("nil" for none).
func shown[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// at is a time in ms as a row keeps it (to the microsecond).
func at(d time.Duration) float64 { return *artifact.Ms(msOf(d)) }

// byCallTurn are rows by "call.turn".
func byCallTurn(rows []artifact.LoadRequest) map[string]artifact.LoadRequest {
	m := map[string]artifact.LoadRequest{}
	for _, r := range rows {
		m[fmt.Sprintf("%d.%d", r.Call, r.Turn)] = r
	}
	return m
}

const mooncakeTrace = `{"timestamp": 0, "input_length": 600, "output_length": 5, "hash_ids": [1, 2]}
{"timestamp": 40, "input_length": 700, "output_length": 6, "hash_ids": [1, 3]}
{"timestamp": 80, "input_length": 100, "output_length": 4, "hash_ids": [4]}
`

// TestLoadRunnerReplaysMooncake: a Mooncake trace replayed by the
// built-in experiment sends each line's prompt as its token ids
// (trace.Turn.Prompt in the run's vocabulary) on /v1/completions, with
// max_tokens its output_length and ignore_eos, no messages, each due at
// its timestamp exactly; the rows say the line, its input and shared
// tokens, and that ignore_eos was carried; to a kind of server that
// does not take ignore_eos it is not sent, and the rows say so.
func TestLoadRunnerReplaysMooncake(t *testing.T) {
	file, tr := writeTrace(t, "mooncake.jsonl", mooncakeTrace, trace.Options{})
	timing := tr.Timing(false)
	for _, kind := range []servers.Kind{servers.LlamaCpp, servers.Ollama} {
		rc := &recording{f: &streamtest.FakeLlama{Pieces: []string{"a", " b."}, Delay: time.Millisecond}}
		url := rc.start(t)
		vm, exp := loadExperiment(t, runtime.Config{Server: url, Kind: servers.Detection{Kind: kind}})
		set := traceSettings(file, tr, 1000)
		res, err := vm.LoadRunner(exp, set).Run(context.Background(), load.Round{Level: 1, Round: 1, Calls: len(tr.Calls)})
		if err != nil {
			t.Fatal(err)
		}
		reqs := rc.sent()
		if len(res.Rows) != 3 || len(reqs) != 3 {
			t.Fatalf("%s: %d rows, %d requests, want 3 of each", kind, len(res.Rows), len(reqs))
		}
		carried := kind == servers.LlamaCpp
		for _, row := range res.Rows {
			turn := tr.Turn(row.Call, 1)
			want := turn.Prompt(tr.Block, trace.VocabOf(1000))
			var got *sent
			for i, r := range reqs {
				ids, _ := json.Marshal(r.body["prompt"])
				wantIDs, _ := json.Marshal(want)
				if string(ids) == string(wantIDs) {
					got = &reqs[i]
				}
			}
			if got == nil {
				t.Errorf("%s: no request sent the prompt of line %d (%d ids)", kind, turn.Line, len(want))
				continue
			}
			if got.path != "/v1/completions" || got.body["messages"] != nil || got.body["max_tokens"] != float64(turn.OutputTokens) ||
				(got.body["ignore_eos"] == true) != carried {
				t.Errorf("%s: line %d sent to %s: max_tokens %v, ignore_eos %v, messages %v", kind, turn.Line, got.path,
					got.body["max_tokens"], got.body["ignore_eos"], got.body["messages"])
			}
			r := row.Request
			if r.TraceCall != tr.Calls[row.Call-1].ID || r.TraceLine != turn.Line || r.TraceInputN == nil || *r.TraceInputN != float64(turn.InputTokens) ||
				r.TraceSharedN == nil || *r.TraceSharedN != float64(turn.SharedTokens) || r.IgnoreEOS == nil || *r.IgnoreEOS != carried {
				t.Errorf("%s: row of line %d: call %q line %d input %s shared %s ignore_eos %s", kind, turn.Line, r.TraceCall, r.TraceLine,
					shown(r.TraceInputN), shown(r.TraceSharedN), shown(r.IgnoreEOS))
			}
			if r.ScheduledMs == nil || *r.ScheduledMs != at(timing.Starts[row.Call-1]) {
				t.Errorf("%s: line %d due at %s ms, its timestamp is %v", kind, turn.Line, shown(r.ScheduledMs), timing.Starts[row.Call-1])
			}
		}
		if shared := tr.Turn(2, 1).SharedTokens; shared == 0 {
			t.Errorf("the second line shares hash_id 1 with the first, SharedTokens %d", shared)
		}
	}
}

// callLog is a call log: call a speaks three turns with pauses of its
// own (the pause before its third turn shorter than before its second),
// call b one turn given by its length.
const callLog = `{"call": "a", "start_ms": 0, "text": "Hello, I need a table.", "speak_ms": 20, "pause_ms": 150}
{"call": "a", "text": "For two, please.", "speak_ms": 30, "pause_ms": 40}
{"call": "a", "text": "Thanks.", "speak_ms": 10}
{"call": "b", "start_ms": 50, "input_tokens": 5, "output_tokens": 7, "speak_ms": 15}
`

// TestLoadRunnerReplaysCallLog: a call log's turns are asked with the
// log's text and the call's history (its earlier lines and the answers),
// a line given by its length as that many words with its output_tokens
// as max_tokens; each call's first turn is due exactly when the trace's
// timing says (its start plus the caller's speaking), each later turn
// its timing's pause after the turn before ended (never sooner); the rows
// name the call and the line, have ignore_eos where the log gave the
// answer's length, and no Mooncake counts.
func TestLoadRunnerReplaysCallLog(t *testing.T) {
	file, tr := writeTrace(t, "calls.jsonl", callLog, trace.Options{})
	timing := tr.Timing(false)
	rc := &recording{f: &streamtest.FakeLlama{Pieces: []string{"Sure", "."}, Delay: time.Millisecond}}
	url := rc.start(t)
	vm, exp := loadExperiment(t, runtime.Config{Server: url, Kind: servers.Detection{Kind: servers.LlamaCpp}})
	res, err := vm.LoadRunner(exp, traceSettings(file, tr, 0)).Run(context.Background(), load.Round{Level: 1, Round: 1, Calls: 2})
	if err != nil {
		t.Fatal(err)
	}
	rows := byCallTurn(res.Rows)
	if len(res.Rows) != 4 || len(rows) != 4 {
		t.Fatalf("%d rows, want call a's 3 turns and call b's 1", len(res.Rows))
	}
	ids := map[string]int{}
	for i, c := range tr.Calls {
		ids[c.ID] = i + 1
	}
	a, b := ids["a"], ids["b"]
	for _, c := range []int{a, b} {
		r := rows[fmt.Sprintf("%d.1", c)]
		if r.ScheduledMs == nil || *r.ScheduledMs != at(timing.Starts[c-1]) {
			t.Errorf("call %d's first turn due at %s ms, the timing says %v", c, shown(r.ScheduledMs), timing.Starts[c-1])
		}
	}
	for turn := 2; turn <= 3; turn++ {
		prev, r := rows[fmt.Sprintf("%d.%d", a, turn-1)], rows[fmt.Sprintf("%d.%d", a, turn)]
		pause := msOf(timing.Think(a, turn))
		// The turn before ended after its stream did (start + total).
		if gap := *r.ScheduledMs - (*prev.StartMs + *prev.TotalMs); gap < pause-0.002 {
			t.Errorf("call a's turn %d due %.3f ms after the stream of turn %d ended, the timing's pause is %.3f ms", turn, gap, turn-1, pause)
		}
	}
	for key, r := range rows {
		turn := tr.Turn(r.Call, r.Turn)
		if r.TraceCall != tr.Calls[r.Call-1].ID || r.TraceLine != turn.Line || r.TraceInputN != nil || r.TraceSharedN != nil ||
			(r.IgnoreEOS != nil) != (turn.OutputTokens > 0) {
			t.Errorf("row %s: call %q line %d input %s shared %s ignore_eos %s", key, r.TraceCall, r.TraceLine, shown(r.TraceInputN), shown(r.TraceSharedN), shown(r.IgnoreEOS))
		}
	}
	// What each turn said: the log's text after the call's history.
	var users [][]string
	for _, q := range rc.sent() {
		var lines []string
		for _, m := range q.body["messages"].([]any) {
			lines = append(lines, m.(map[string]any)["content"].(string))
		}
		users = append(users, lines)
		if q.path != "/v1/chat/completions" {
			t.Errorf("a call log's turn sent to %s", q.path)
		}
	}
	want := [][]string{
		{"Hello, I need a table."},
		{"Hello, I need a table.", "Sure.", "For two, please."},
		{"Hello, I need a table.", "Sure.", "For two, please.", "Sure.", "Thanks."},
		{"please can you tell me"},
	}
	for _, w := range want {
		found := false
		for _, u := range users {
			found = found || len(u) == len(w)+1 && slices.Equal(u[1:], w)
		}
		if !found {
			t.Errorf("no request said %q after the system prompt; sent %q", w, users)
		}
	}
	for _, q := range rc.sent() {
		if q.body["max_tokens"] != 9.0 && q.body["max_tokens"] != 7.0 {
			t.Errorf("max_tokens %v", q.body["max_tokens"])
		}
	}
	if last := rows[fmt.Sprintf("%d.1", b)]; last.IgnoreEOS == nil || *last.IgnoreEOS {
		t.Errorf("call b's output_tokens is max_tokens, without ignore_eos in a chat request: ignore_eos %s", shown(last.IgnoreEOS))
	}
}

// TestLoadRunnerChangedTrace: a trace whose content changed since the
// run began (its sha256) fails the round before any request.
func TestLoadRunnerChangedTrace(t *testing.T) {
	file, tr := writeTrace(t, "calls.jsonl", callLog, trace.Options{})
	rc := &recording{f: &streamtest.FakeLlama{Pieces: []string{"Sure."}}}
	vm, exp := loadExperiment(t, runtime.Config{Server: rc.start(t)})
	set := traceSettings(file, tr, 0)
	set.Trace.SHA256 = strings.Repeat("0", 64)
	_, err := vm.LoadRunner(exp, set).Run(context.Background(), load.Round{Level: 1, Round: 1, Calls: 2})
	if err == nil || !strings.Contains(err.Error(), "the trace changed since the run began") || len(rc.sent()) != 0 {
		t.Errorf("%v, %d requests", err, len(rc.sent()))
	}
}

// TestLoadRunnerRamp: the requests due during a level's ramp are marked
// ramp and left out as warm-up; with the ramp kept they count.
func TestLoadRunnerRamp(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"a", " b", " c."}, Delay: 10 * time.Millisecond}).Start(t)
	for _, keep := range []bool{false, true} {
		vm, exp := experimentVM(t, runtime.Config{Server: url}, builder)
		set := artifact.LoadSettings{Mode: "concurrency", Turns: 1, MaxTokens: 9, Arrival: "constant", Calls: 20,
			Ramp: &artifact.LoadRamp{DurationMs: 200, Shape: "linear", Keep: keep}}
		res, err := vm.LoadRunner(exp, set).Run(context.Background(), load.Round{Level: 4, Round: 1, Calls: 20})
		if err != nil {
			t.Fatal(err)
		}
		// Each request takes 30 ms at least: 18 at most fit in the ramp's
		// 200 ms as its places open, the first is due in it.
		ramp := 0
		for _, r := range res.Rows {
			if r.Ramp {
				ramp++
			}
			if r.Warmup != (r.Ramp && !keep) {
				t.Errorf("keep %v: a row with ramp %v has warmup %v", keep, r.Ramp, r.Warmup)
			}
		}
		if len(res.Rows) != 20 || ramp == 0 || ramp == 20 {
			t.Errorf("keep %v: %d of %d rows in the ramp", keep, ramp, len(res.Rows))
		}
	}
}

// TestLoadRunnerSteadyStart: with --steady-start a closed loop's calls
// start at staggered turns, each one's first request holding its earlier
// turns as history (the built-in experiment's lines, each answered by
// calls.HISTORY_ANSWER), and its row says how many.
func TestLoadRunnerSteadyStart(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"Yes."}, Delay: time.Millisecond}
	vm, exp := loadExperiment(t, runtime.Config{Server: f.Start(t)})
	set := artifact.LoadSettings{Mode: "concurrency", Turns: 3, ThinkMs: 20, MaxTokens: 9, Arrival: "constant", Seed: 7, Calls: 3, SteadyStart: true}
	res, err := vm.LoadRunner(exp, set).Run(context.Background(), load.Round{Level: 3, Round: 1, Calls: 3})
	if err != nil {
		t.Fatal(err)
	}
	first := map[int]artifact.LoadRequest{}
	for _, r := range res.Rows {
		if f, ok := first[r.Call]; !ok || r.Turn < f.Turn {
			first[r.Call] = r
		}
	}
	histories := 0
	for call, r := range first {
		if r.HistoryTurns != r.Turn-1 {
			t.Errorf("call %d starts at turn %d with history_turns %d", call, r.Turn, r.HistoryTurns)
		}
		histories += r.HistoryTurns
	}
	for _, r := range res.Rows {
		if first[r.Call].Turn != r.Turn && r.HistoryTurns != 0 {
			t.Errorf("call %d's turn %d, not its first, has history_turns %d", r.Call, r.Turn, r.HistoryTurns)
		}
	}
	if histories != 0+1+2 {
		starts := map[int]int{}
		for call, r := range first {
			starts[call] = r.Turn
		}
		t.Errorf("the calls start at turns %v (call: turn), want 1, 2 and 3", starts)
	}
	// The prompts of the calls started at turns 2 and 3 hold 1 and 2 turns.
	held := map[int]bool{}
	for _, b := range f.Bodies() {
		var req struct {
			Messages []struct{ Role, Content string }
		}
		json.Unmarshal([]byte(b), &req)
		n := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" && m.Content == "Of course, I can help with that." {
				n++
			}
		}
		held[n] = true
	}
	if !held[1] || !held[2] {
		t.Errorf("no prompt holds 1 and 2 turns of history: %v", held)
	}
}

// TestStreamManyLateMs: without a cap on calls at once a request could
// begin when it was due, so its late_ms is its queue_ms, in the results
// and the rows alike.
func TestStreamManyLateMs(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Hi."}, Delay: time.Millisecond}).Start(t)
	vm, out := testVM(t, runtime.Config{Server: url})
	err := vm.RunString(`
		local results = stream_many(function(i) return "q", {max_tokens = 4} end,
			{rate = 40, calls = 6, record = {jsonl = "r.jsonl"}})
		for _, r in ipairs(results) do
			assert(r.late_ms ~= nil and r.late_ms == r.queue_ms, r.index .. ": late " .. tostring(r.late_ms) .. ", queue " .. r.queue_ms)
		end
		print(#results)`, "l.lua")
	if err != nil || strings.TrimSpace(out.String()) != "6" {
		t.Fatalf("%v\n%s", err, out.String())
	}
	data, _ := os.ReadFile(filepath.Join(vm.Out(), "r.jsonl"))
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r artifact.Request
		json.Unmarshal([]byte(line), &r)
		if r.LateMs == nil || r.QueueMs == nil || math.Abs(*r.LateMs-*r.QueueMs) > 0 {
			t.Errorf("row late_ms %s, queue_ms %s", shown(r.LateMs), shown(r.QueueMs))
		}
	}
}

// TestLoadRunnerSpeaksTheTracesAudio: with --stt a call log's turn that
// names an audio file (beside the trace) is spoken from that file, whose
// .txt the word error rate is against; a turn without one is the
// --caller-audio folder's WAV of its turn, as any load's.
func TestLoadRunnerSpeaksTheTracesAudio(t *testing.T) {
	dir := t.TempDir()
	own := &callaudio.Clip{Rate: 16000, Samples: make([]int16, 16000/2)} // 500 ms, the folder's are 300
	for k := range own.Samples[:16000/5] {
		own.Samples[k] = int16(8000 * ((k/20)%2*2 - 1))
	}
	if err := os.WriteFile(filepath.Join(dir, "own.wav"), own.WAV(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "own.txt"), []byte("my own words"), 0o644); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, "calls.jsonl")
	log := `{"call": "a", "start_ms": 0, "text": "Hello.", "audio": "own.wav"}
{"call": "a", "text": "Bye."}
`
	if err := os.WriteFile(file, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	tr, err := trace.Read(file, trace.Options{})
	if err != nil {
		t.Fatal(err)
	}
	url := (&streamtest.FakeLlama{Pieces: []string{"Sure."}, Delay: time.Millisecond}).Start(t)
	fake := httptest.NewServer(&stttest.Server{Kind: stttest.OpenAI, Text: "my own words"})
	t.Cleanup(fake.Close)
	caller := &request.Caller{AudioDir: callerWAVs(t, 2), STT: stt.Config{Endpoint: &endpoint.Endpoint{Base: fake.URL}}}
	vm, exp := loadExperiment(t, runtime.Config{Server: url, STT: caller})
	set := traceSettings(file, tr, 0)
	set.STT = &artifact.LoadSTT{URL: fake.URL, API: "openai"}
	res, err := vm.LoadRunner(exp, set).Run(context.Background(), load.Round{Level: 1, Round: 1, Calls: 1})
	if err != nil {
		t.Fatal(err)
	}
	rows := byCallTurn(res.Rows)
	first, second := rows["1.1"], rows["1.2"]
	if len(rows) != 2 || first.ErrorKind != nil || second.ErrorKind != nil {
		t.Fatalf("rows %v", rows)
	}
	if shown(first.CallerAudioMs) != "500" || shown(first.WER) != "0" {
		t.Errorf("the turn with its own audio: caller_audio_ms %s, wer %s; want own.wav's 500 ms, said as its .txt", shown(first.CallerAudioMs), shown(first.WER))
	}
	if shown(second.CallerAudioMs) != "300" || shown(second.WER) == "0" {
		t.Errorf("the turn without: caller_audio_ms %s, wer %s; want the folder's second WAV", shown(second.CallerAudioMs), shown(second.WER))
	}
}
