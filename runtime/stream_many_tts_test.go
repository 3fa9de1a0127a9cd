package runtime

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/stream/streamtest"
	"ttftlab/internal/tts"

	lua "github.com/yuin/gopher-lua"
)

// TestStreamManySpeaks: stream_many with opts.tts sends each sentence of
// every answer to the real espeak-ng as it completes; each result says
// when its first audio came (after its first sentence, after its first
// token) and how the answer played, and requests.jsonl records
// first_audio_ms and underrun_ms. A request's own opts.tts = false speaks
// nothing.
func TestStreamManySpeaks(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Your table", " is ready.", " Come in", " now."}, Delay: 2 * time.Millisecond}).Start(t)
	speech := espeakServer(t)
	vm, out := testVM(t, Config{Server: url, TTS: &TTS{Endpoint: &endpoint.Endpoint{Base: speech}, Model: tts.Model}})
	clause := (&streamtest.FakeLlama{Pieces: []string{"Well, ", "your table", " is ready."}, Delay: 5 * time.Millisecond}).Start(t)
	vm.L.SetGlobal("CLAUSE_URL", lua.LString(clause))
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
	data, err := os.ReadFile(filepath.Join(vm.cfg.Out, "r.jsonl"))
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
