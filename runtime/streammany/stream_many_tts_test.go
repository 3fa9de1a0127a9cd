package streammany_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"ttftlab/runtime/luatest"

	"ttftlab/internal/artifact"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/stream/streamtest"
	"ttftlab/internal/tts"

	lua "github.com/yuin/gopher-lua"
	"ttftlab/runtime"
)

// TestStreamManySpeaks: stream_many with opts.tts sends each sentence of
// every answer to the real espeak-ng as it completes; each result says
// when its first audio came (after its first sentence, after its first
// token) and how the answer played, and requests.jsonl records
// first_audio_ms and underrun_ms. A request's own opts.tts = false speaks
// nothing.
func TestStreamManySpeaks(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Your table", " is ready.", " Come in", " now."}, Delay: 2 * time.Millisecond}).Start(t)
	speech := luatest.EspeakServer(t)
	vm, out := testVM(t, runtime.Config{Server: url, TTS: &runtime.TTS{Endpoint: &endpoint.Endpoint{Base: speech}, Model: tts.Model}})
	clause := (&streamtest.FakeLlama{Pieces: []string{"Well, ", "your table", " is ready."}, Delay: 5 * time.Millisecond}).Start(t)
	vm.State().SetGlobal("CLAUSE_URL", lua.LString(clause))
	err := vm.RunString(`
		local reqs = {}
		for i = 1, 4 do reqs[i] = {"hi " .. i, {max_tokens = 8}} end
		reqs[4][2].tts = false
		local results = stream_many(reqs, {concurrency = 2, tts = true, record = {jsonl = "r.jsonl"}})
		for i = 1, 3 do
			local r = results[i]
			assert(r.error == nil and r.tts_errors == 0, "request " .. i .. ": " .. tostring(r.error))
			assert(#r.spoken == 2 and r.spoken[1].text == "Your table is ready." and r.spoken[2].text == "Come in now.", "sentences " .. i)
			assert(r.first_audio_ms >= r.first_sentence_ms and r.first_sentence_ms >= r.info.ttft_ms, "order " .. i)
			assert(r.spoken[1].ready_ms == r.first_sentence_ms, "the first sentence was sent when it was complete")
			assert(r.speak_end_ms > r.first_audio_ms and r.underrun_ms >= 0, "playback " .. i)
		end
		assert(results[4].spoken == nil and results[4].first_audio_ms == nil, "tts = false")
		-- The first clause, sent before its sentence is complete.
		local c = stream_many({{"hi", {server = CLAUSE_URL, tts = {clause = true, min_clause_chars = 4}}}}, {concurrency = 1})
		local s = c[1].spoken
		assert(#s == 2 and s[1].text == "Well," and s[2].text == "your table is ready.", "clause: " .. s[1].text)
		assert(s[1].ready_ms < c[1].first_sentence_ms, "the clause went before the sentence was complete")
		local ok, msg = pcall(stream_many, {{"hi", {tts = {clause = "yes"}}}}, {})
		assert(not ok and msg:find("clause must be true or false"), msg)
		print("ok")`, "m.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "ok\n" {
		t.Fatalf("%q", out.String())
	}
	data, err := os.ReadFile(filepath.Join(vm.Out(), "r.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	spoke := 0
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r artifact.Request
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if r.FirstAudioMs != nil {
			spoke++
			if r.UnderrunMs == nil || *r.FirstAudioMs < *r.FirstSentenceMs {
				t.Fatalf("row %s", line)
			}
		}
	}
	if spoke != 3 {
		t.Fatalf("%d rows with first_audio_ms, want 3:\n%s", spoke, data)
	}
}

// TestStreamManyQueueLeavesSpeechOut: one call at a time, three calls of
// two turns, every answer spoken by a slow speech server. A turn is over
// once its audio has come, so the next turn (after the think time) and
// the next call (when the place comes free) are due from then: each
// request's queue_ms is the wait before it was sent, far below the
// speech that followed the previous request's stream in the same run.
// Before, a turn was due from its stream's end, and the speech after it
// was counted as the next request's queue.
func TestStreamManyQueueLeavesSpeechOut(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Your table", " is ready.", " Come in", " now."}}).Start(t)
	speech := (&streamtest.FakeSpeech{Pieces: 4, Delay: 20 * time.Millisecond}).Start(t)
	vm, out := testVM(t, runtime.Config{Server: url})
	vm.State().SetGlobal("SPEECH", lua.LString(speech))
	err := vm.RunString(`
		local results = stream_many(function(i, call, turn)
			return {{role = "user", content = "hi " .. call .. "." .. turn}}, {max_tokens = 8}
		end, {concurrency = 1, calls = 3, turns = 2, think_ms = 0, tts = {server = SPEECH}})
		assert(#results == 6, #results .. " results")
		for i = 2, #results do
			local prev, r = results[i - 1], results[i]
			assert(prev.error == nil and #prev.spoken == 2, "request " .. (i - 1) .. ": " .. tostring(prev.error))
			-- The speech after the previous request's stream ended: from its
			-- end to its last audio byte, on its t0's axis.
			local tail = math.max(prev.spoken[1].audio_done_ms, prev.spoken[2].audio_done_ms) - prev.total_ms
			assert(tail > 0, "the speech outlasts the stream")
			assert(r.queue_ms < tail / 4, string.format("request %d: queue_ms %.3f, the speech after request %d's stream %.3f",
				i, r.queue_ms, i - 1, tail))
		end
		print("ok")`, "q.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "ok\n" {
		t.Fatalf("%q", out.String())
	}
}
