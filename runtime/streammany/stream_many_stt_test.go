package streammany_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/stream/streamtest"
	"ttftlab/internal/stt"
	"ttftlab/internal/stt/stttest"
	"ttftlab/runtime"
	"ttftlab/runtime/request"
)

// callerWAVs writes n short utterances (a tone, then silence) into a
// folder of the caller's audio, each with what it says in a .txt beside
// it.
func callerWAVs(t *testing.T, n int) string {
	t.Helper()
	dir := t.TempDir()
	for i := 0; i < n; i++ {
		c := &callaudio.Clip{Rate: 16000, Samples: make([]int16, 16000*3/10)}
		for k := range c.Samples[:16000/5] {
			c.Samples[k] = int16(8000 * ((k/20)%2*2 - 1)) // a square wave, loud enough to be speech
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("q%d.wav", i+1)), c.WAV(), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("q%d.txt", i+1)), []byte(fmt.Sprintf("the caller said %d", i+1)), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// refuseNth answers the n-th request with 429 and passes the others to
// next.
func refuseNth(n int32, next http.Handler) http.Handler {
	var seen atomic.Int32
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if seen.Add(1) == n {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"slow down","type":"rate_limit"}}`))
			return
		}
		next.ServeHTTP(w, r)
	})
}

// TestStreamManyListens: with opts.stt every request's last user message
// is spoken by the caller (a WAV of --caller-audio) and transcribed
// before it is asked: the LLM gets the transcript in its place (never
// the placeholder, never the scripted text), each result has said (the
// WAV's text, against which the WER is),
// transcript, and the turn's figures (final transcript after the speech
// end, the answer's first audio after it), the rows their members; a
// transcription refused with 429 fails its turn as stt_rate_limited
// (status 429, no total_ms, its call ended) and the others go on; the
// summary has the spoken turns' distributions and the failure; a
// request's own opts.stt = false is asked as written, messages given as
// a string are spoken too, an opts.body whose messages replace the
// spoken ones is refused, and so is opts.stt without a speech-to-text
// server.
func TestStreamManyListens(t *testing.T) {
	llm := &streamtest.FakeLlama{Pieces: []string{"Your table", " is ready."}, Delay: 2 * time.Millisecond}
	url := llm.Start(t)
	speech := (&streamtest.FakeSpeech{Pieces: 2, Delay: 5 * time.Millisecond}).Start(t)
	fake := &stttest.Server{Kind: stttest.OpenAI, Text: "what the caller said", QueueMs: "7.5"}
	srv := httptest.NewServer(refuseNth(2, fake))
	t.Cleanup(srv.Close)
	caller := &request.Caller{AudioDir: callerWAVs(t, 2), STT: stt.Config{Endpoint: &endpoint.Endpoint{Base: srv.URL}}}
	vm, out := testVM(t, runtime.Config{Server: url, STT: caller})
	vm.State().SetGlobal("SPEECH", lua.LString(speech))
	err := vm.RunString(`
		local results, summary = stream_many(function(i, call, turn, previous)
			local m = {{role = "system", content = "be brief"}}
			if previous then
				m[#m + 1] = {role = "user", content = previous.transcript}
				m[#m + 1] = {role = "assistant", content = "ok"}
			end
			m[#m + 1] = {role = "user", content = "question " .. call .. "." .. turn}
			return m, {max_tokens = 8, tags = {turn = turn}}
		end, {concurrency = 2, calls = 2, turns = 2, think_ms = 0, stt = true, tts = {server = SPEECH}, record = {jsonl = "r.jsonl"}})
		local n, failed = 0, 0
		for i, r in pairs(results) do
			n = n + 1
			-- What the caller said is the WAV's .txt, not the message's text: the WER
			-- of "what the caller said" against "the caller said K" is 2 of 4 words.
			assert(r.said == "the caller said " .. r.tags.turn, "said " .. tostring(r.said))
			assert(r.caller_audio_ms == 300, "caller audio " .. tostring(r.caller_audio_ms))
			if r.error_kind then
				failed = failed + 1
				assert(r.error_kind == "stt_rate_limited" and r.transcript == nil and r.mouth_to_ear_ms == nil, "failed " .. i)
			else
				assert(r.transcript == "what the caller said", "transcript " .. tostring(r.transcript))
				assert(r.stt_final_ms >= 0 and r.mouth_to_ear_ms > r.stt_final_ms, "order " .. i)
				assert(r.stt_queue_ms == 7.5 and r.wer == 0.5, "queue and wer " .. i .. ": " .. tostring(r.stt_queue_ms) .. " " .. tostring(r.wer))
			end
		end
		assert(n == 3 and failed == 1, n .. " results, " .. failed .. " failed")
		assert(summary.mouth_to_ear_ms.n == 2 and summary.stt_final_ms.n == 2 and summary.endpointing_ms.n == 0, "summary")
		assert(summary.failures[1].kind == "stt_rate_limited" and summary.failures[1].status == 429, "failures")
		local plain = stream_many({{"as written", {stt = false}}}, {stt = true})
		assert(plain[1].error == nil and plain[1].transcript == nil and plain[1].said == nil, "opts.stt = false")
		local one = stream_many({{"a question", {}}}, {stt = true})
		assert(one[1].error == nil and one[1].transcript == "what the caller said", "a string of messages spoken")
		local ok, msg = pcall(stream_many, {{"hi", {body = {messages = {{role = "user", content = "x"}}}}}}, {stt = true})
		assert(not ok and msg:find("holds the last user message 0 times"), msg)
		print("ok")`, "l.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "ok\n" {
		t.Fatalf("%q", out.String())
	}
	asked := 0
	for _, b := range llm.Bodies() {
		if strings.Contains(b, "ttftlab-transcript-") || strings.Contains(b, "question") {
			t.Errorf("the LLM was asked %s", b)
		}
		if strings.Contains(b, "what the caller said") {
			asked++
		}
	}
	if asked != 3 {
		t.Errorf("%d requests asked a transcript, want the 3 turns transcribed: %q", asked, llm.Bodies())
	}
	data, err := os.ReadFile(filepath.Join(vm.Out(), "r.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	rows := strings.Split(strings.TrimSpace(string(data)), "\n")
	for _, line := range rows {
		var r artifact.LoadRequest
		if err := artifact.DecodeStrict([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		switch {
		case r.CallerAudioMs == nil:
			t.Errorf("a row without caller_audio_ms: %s", line)
		case r.ErrorKind != nil:
			if *r.ErrorKind != stt.KindRateLimited || r.ErrorStatus != 429 || r.TotalMs != nil || r.TTFTMs != nil {
				t.Errorf("the refused turn's row: %s", line)
			}
		case r.MouthToEarMs == nil || r.SttFinalMs == nil || r.SttQueueMs == nil || r.WER == nil || r.EndpointingMs != nil:
			t.Errorf("a spoken turn's row: %s", line)
		}
	}
	if len(rows) != 3 {
		t.Errorf("%d rows, want 3", len(rows))
	}

	vm2, _ := testVM(t, runtime.Config{Server: url})
	err = vm2.RunString(`stream_many({{"hi", {}}}, {stt = true})`, "n.lua")
	if err == nil || !strings.Contains(err.Error(), "opts.stt: no speech-to-text server: run with --stt URL") {
		t.Errorf("opts.stt without a server: %v", err)
	}
}
