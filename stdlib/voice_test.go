package stdlib_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/stream/streamtest"
	"ttftlab/internal/tts"
	"ttftlab/runtime"
)

// TestVoicePlay: the playback arithmetic on known times. Sentence 1's audio
// comes at 100 and lasts 500 (played 100-600); sentence 2's comes at 300,
// lasts 200, waits for sentence 1 (600-800); sentence 3's comes at 900: 100
// of silence, then it lasts 300 but its last byte comes at 1400, so it
// plays 900-1400 (200 more of silence); sentence 4 failed and is skipped.
func TestVoicePlay(t *testing.T) {
	L := newVM(t)
	got := mustEval(t, L, `
		local voice = require("voice")
		local p = voice.play({
			{first_audio_ms = 100, audio_done_ms = 120, audio_ms = 500},
			{first_audio_ms = 300, audio_done_ms = 310, audio_ms = 200},
			{first_audio_ms = 900, audio_done_ms = 1400, audio_ms = 300},
			{error = "500"},
		})
		local s = p.sentences
		return p.start_ms, p.end_ms, p.underrun_ms, p.underruns, s[2].start_ms, s[2].end_ms, s[3].start_ms, s[3].end_ms, s[4].start_ms`)
	want := []string{"100", "1400", "300", "2", "600", "800", "900", "1400", "nil"}
	for i, w := range want {
		if got[i].String() != w {
			t.Fatalf("value %d = %s, want %s (all %v)", i, got[i], w, got)
		}
	}
	if _, err := eval(t, L, `require("voice").play({{first_audio_ms = 1}})`); err == nil {
		t.Fatal("a sentence without audio_done_ms and audio_ms is an error")
	}
}

// TestVoiceStreamLive: the real llama-server's answer spoken by the real
// espeak-ng, each sentence sent as it completes: per sentence the times
// follow the pipeline's order, the answer's first audio comes after its
// first sentence, which comes after its first token, and the underruns are
// the playback of the measured times.
func TestVoiceStreamLive(t *testing.T) {
	bin, err := tts.Find()
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_TTS is set: %v", err)
		}
		t.Skip(err)
	}
	speech := httptest.NewServer(&tts.Server{Bin: bin})
	defer speech.Close()
	srv := llamatest.Start(t)
	vm, err := runtime.New(context.Background(), runtime.Config{Server: srv.URL, Stdout: io.Discard, Stderr: io.Discard,
		TTS: &runtime.TTS{Endpoint: &endpoint.Endpoint{Base: speech.URL}, Model: tts.Model}})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	out := mustEval(t, vm.State(), `
		local chunks, total_ms, timings, info = stream("Tell me a story.", {max_tokens = 80, tts = true})
		assert(info.error == nil, info.error)
		local s = info.spoken
		assert(#s >= 2, "sentences: " .. #s)
		for i, r in ipairs(s) do
			assert(r.error == nil, r.error)
			assert(r.ready_ms <= r.tts_sent_ms and r.tts_sent_ms <= r.first_audio_ms and r.first_audio_ms <= r.audio_done_ms,
				string.format("sentence %d: ready %s sent %s audio %s done %s", i, r.ready_ms, r.tts_sent_ms, r.first_audio_ms, r.audio_done_ms))
			assert(r.audio_ms > 0 and r.start_ms >= r.first_audio_ms and r.end_ms >= r.start_ms + r.audio_ms, "playback " .. i)
			if i > 1 then assert(r.start_ms >= s[i - 1].end_ms, "order " .. i) end
		end
		assert(info.first_audio_ms == s[1].first_audio_ms and s[1].ready_ms >= info.ttft_ms, "first audio after first sentence after ttft")
		local p = require("voice").play(s)
		assert(p.underrun_ms == info.underrun_ms and p.underruns == info.underruns and p.end_ms == info.speak_end_ms, "playback")
		assert(info.tts_errors == 0 and info.overhead_ms >= 0, "overhead")
		-- A cut answer hangs up its speech and sends none of the rest.
		local _, _, _, cut = stream("Tell me a story.", {max_tokens = 200, tts = true, on_chunk = function(c) return c.index < 30 end})
		assert(cut.cut, "cut")
		return #s, #cut.spoken`)
	t.Logf("%v sentences spoken; the cut answer sent %v", out[0], out[1])
}

// fakeSpeech answers /v1/audio/speech with 24 kHz PCM, by what the text
// says: "Slow" waits slowSend before its first byte; "Broken" is a 500;
// "Cut" sends half its audio and drops the connection; every other text
// is 200 ms of audio sent in 8 pieces, 50 ms apart: it takes at least 350
// ms to arrive, more than it lasts, so a speaker runs dry inside it.
func fakeSpeech(t *testing.T) string {
	t.Helper()
	piece := make([]byte, 2*24000/40) // 25 ms of 16-bit mono at 24 kHz
	for i := range piece {
		piece[i] = byte(i*7) | 1
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct{ Input string }
		json.NewDecoder(r.Body).Decode(&req)
		switch {
		case strings.Contains(req.Input, "Broken"):
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(500)
			io.WriteString(w, `{"error":{"message":"voice model crashed"}}`)
			return
		case strings.Contains(req.Input, "Slow"):
			time.Sleep(slowSend)
		}
		w.Header().Set("Content-Type", "audio/pcm")
		for i := 0; i < 8; i++ {
			if i > 0 {
				time.Sleep(50 * time.Millisecond)
			}
			w.Write(piece)
			w.(http.Flusher).Flush()
			if i == 3 && strings.Contains(req.Input, "Cut") {
				conn, _, err := http.NewResponseController(w).Hijack()
				if err == nil {
					conn.Close()
				}
				return
			}
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

const slowSend = 300 * time.Millisecond

// TestVoiceFaults: an answer of four sentences against a speech server
// that is slow to start one, fails one and cuts one: the failure and the
// cut are named per sentence and left out of the playback, the slow one's
// first audio comes at least slowSend after it was sent, and audio that
// arrives slower than it plays leaves the speaker waiting.
func TestVoiceFaults(t *testing.T) {
	llm := (&streamtest.FakeLlama{Pieces: []string{"Hello there. ", "Slow start here. ", "Broken voice now. ", "Cut it short. ", "Bye."}}).Start(t)
	vm, err := runtime.New(context.Background(), runtime.Config{Server: llm, Stdout: io.Discard, Stderr: io.Discard,
		TTS: &runtime.TTS{Endpoint: &endpoint.Endpoint{Base: fakeSpeech(t)}}})
	if err != nil {
		t.Fatal(err)
	}
	defer vm.Close()
	out := mustEval(t, vm.State(), fmt.Sprintf(`
		local _, _, _, info = stream("hi", {tts = true})
		local s = info.spoken
		assert(#s == 5, "sentences " .. #s)
		assert(s[1].error == nil and s[1].audio_ms == 200, "sentence 1: " .. tostring(s[1].error) .. " " .. s[1].audio_ms)
		assert(s[2].first_audio_ms - s[2].tts_sent_ms >= %d, "slow: " .. (s[2].first_audio_ms - s[2].tts_sent_ms))
		assert(s[3].error:find("500") and s[3].error:find("voice model crashed") and s[3].start_ms == nil, "broken: " .. tostring(s[3].error))
		assert(s[4].error ~= nil and s[4].start_ms == nil, "cut: " .. tostring(s[4].error))
		assert(info.tts_errors == 2, "errors " .. info.tts_errors)
		-- Each audio takes longer to arrive than to play: the speaker runs dry.
		assert(info.underruns >= 1 and info.underrun_ms > 0, "underruns " .. info.underruns)
		assert(s[1].end_ms == s[1].audio_done_ms, "sentence 1 ends with its last byte")
		return s[4].error`, slowSend.Milliseconds()))
	t.Logf("the cut sentence: %s", out[0])
}
