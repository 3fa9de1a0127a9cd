package runtime

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/stt"
	"ttftlab/internal/stt/stttest"
	"ttftlab/internal/tts"
	"ttftlab/runtime/luatest"
	"ttftlab/runtime/request"
)

// espeak is the espeak-ng of the caller's audio (.ci/run installs it;
// TTFTLAB_REQUIRE_TTS makes its absence a failure, not a skip).
func espeak(t *testing.T) string {
	t.Helper()
	bin, err := tts.Find()
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_TTS is set: %v", err)
		}
		t.Skip(err)
	}
	return bin
}

// fakeCaller is a caller side speaking through espeak-ng to a fake of
// OpenAI's transcription upload, f.
func fakeCaller(t *testing.T, f *stttest.Server) *request.Caller {
	stttest.Start(f)
	t.Cleanup(f.Close)
	return &request.Caller{Espeak: espeak(t), STT: stt.Config{Endpoint: &endpoint.Endpoint{Base: f.URL}, API: stt.APIOpenAI}}
}

// TestListenNeedsAServer: without --stt, listen(), stream{stt} and
// stt_info() say how to name a speech-to-text server.
func TestListenNeedsAServer(t *testing.T) {
	vm, _ := testVM(t, Config{Server: luatest.ClosedURL(t)})
	for _, code := range []string{`listen("hello")`, `stream("hello", {stt = true})`, `local i, why = stt_info() assert(i == nil) error(why)`} {
		err := vm.RunString(code, "x.lua")
		if err == nil || !strings.Contains(err.Error(), "no speech-to-text server: run with --stt URL") {
			t.Errorf("%s: %v", code, err)
		}
	}
}

// TestListenTranscribes: text spoken by espeak-ng goes to the server as a
// WAV upload after its audio would have been spoken; the transcript comes
// back with its word error rate against what was said and the stamps on
// the turn clock; a refused upload is a failure of its own kind.
func TestListenTranscribes(t *testing.T) {
	f := &stttest.Server{Text: "what time do you open on sunday"}
	vm, out := testVM(t, Config{Server: luatest.ClosedURL(t), STT: fakeCaller(t, f)})
	err := vm.RunString(`
		local h = listen("What time do you open on Saturday?")
		assert(h.text == "what time do you open on sunday", h.text)
		assert(h.said == "What time do you open on Saturday?", tostring(h.said))
		assert(h.api == "openai" and h.rate > 0 and h.audio_ms > 0, h.api)
		assert(h.speech_end_ms > 0 and h.speech_end_ms <= h.audio_ms, "speech end " .. h.speech_end_ms)
		-- The upload leaves once the caller's audio is over, and its answer
		-- comes after; sent_ms (the last write returned) may follow the
		-- answer's stamp by µs on loopback, so final is held to the audio.
		assert(h.sent_ms >= h.audio_ms and h.final_ms > h.audio_ms, "audio " .. h.audio_ms .. " sent " .. h.sent_ms .. " final " .. h.final_ms)
		assert(math.abs(h.stt_final_ms - (h.final_ms - h.speech_end_ms)) < 0.001, "stt_final_ms")
		assert(h.endpointing_ms == nil, "an upload has no endpointing")
		print("wer", h.wer)
		local again = listen("What time do you open on Saturday?", {errors = "return"})
		assert(again.text == h.text and again.error == nil)`, "listen.lua")
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if want := "wer\t0.1429\n"; out.String() != want || len(f.Received()) != 2 {
		t.Errorf("got %q and %d uploads, want %q (one word of seven wrong) and 2", out.String(), len(f.Received()), want)
	}
	refused := &stttest.Server{Status: http.StatusUnauthorized}
	vm, out = testVM(t, Config{Server: luatest.ClosedURL(t), STT: fakeCaller(t, refused)})
	err = vm.RunString(`
		local h = listen("Hello there.", {errors = "return"})
		print(h.error_kind, h.text, h.said)
		listen("Hello there.")`, "refused.lua")
	if err == nil || !strings.Contains(err.Error(), "--stt-api-key") {
		t.Errorf("a 401 must raise, saying what to check: %v", err)
	}
	if out.String() != "stt_unauthorized\tnil\tHello there.\n" {
		t.Errorf("errors = return: %q", out.String())
	}
}

// TestListenCallerAudio: a .wav file is sent as it is, its .txt the
// reference; with a folder of the caller's audio, turn k takes file
// (k-1) mod n in name order, whatever the text.
func TestListenCallerAudio(t *testing.T) {
	caller := fakeCaller(t, &stttest.Server{Text: "good morning"})
	dir := t.TempDir()
	for _, s := range []struct{ name, text string }{{"b", "Good evening."}, {"a", "Good morning."}} {
		clip, err := caller.Clip(t.Context(), s.text, "", 1)
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(dir, s.name+".wav"), clip.WAV(), 0o644)
		os.WriteFile(filepath.Join(dir, s.name+".txt"), []byte(s.text), 0o644)
	}
	vm, out := testVM(t, Config{Server: luatest.ClosedURL(t), STT: caller, Args: []string{dir}})
	err := vm.RunString(`
		local h = listen(arg[1] .. "/b.wav")
		print(h.source == arg[1] .. "/b.wav", h.said, h.wer)`, "wav.lua")
	if err != nil {
		t.Fatal(err)
	}
	folder := &request.Caller{AudioDir: dir, STT: caller.STT}
	vm2, out2 := testVM(t, Config{Server: luatest.ClosedURL(t), STT: folder})
	err = vm2.RunString(`
		for k = 1, 3 do print(listen("anything").said) end`, "dir.lua")
	if err != nil {
		t.Fatal(err)
	}
	if out.String() != "true\tGood evening.\t0.5\n" || out2.String() != "Good morning.\nGood evening.\nGood morning.\n" {
		t.Errorf("got %q and %q", out.String(), out2.String())
	}
}

// recorder is a front of the LLM server that keeps the bodies of the
// requests it passes on.
type recorder struct {
	mu     sync.Mutex
	bodies []string
	proxy  *httputil.ReverseProxy
}

func (r *recorder) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(req.Body)
	r.mu.Lock()
	r.bodies = append(r.bodies, string(body))
	r.mu.Unlock()
	req.Body = io.NopCloser(bytes.NewReader(body))
	r.proxy.ServeHTTP(w, req)
}

// TestStreamSTTRealServer: against the real llama-server, stream{stt}
// asks the LLM the transcript, not the text the script gave; info.turn
// has the turn's stamps in order on one clock, and its parts add up to
// mouth to ear with the answer spoken. ask() passes stt through.
func TestStreamSTTRealServer(t *testing.T) {
	srv := llamatest.Start(t)
	target, _ := url.Parse(srv.URL)
	rec := &recorder{proxy: httputil.NewSingleHostReverseProxy(target)}
	rec.proxy.FlushInterval = -1
	front := httptest.NewServer(rec)
	t.Cleanup(front.Close)
	f := &stttest.Server{Text: "Once upon a time there was a girl named Lily.", QueueMs: "12.5"}
	vm, out := testVM(t, Config{Server: front.URL, STT: fakeCaller(t, f), Args: []string{luatest.EspeakServer(t)}})
	err := vm.RunString(`
		local msgs = {{role = "system", content = "Tell a story."}, {role = "user", content = "A dog sat by the sea."}}
		local chunks, total_ms, timings, info = stream(msgs, {max_tokens = 48, stt = true, tts = {server = arg[1]}})
		assert(msgs[2].content == "A dog sat by the sea.", "the script's messages must stay as given")
		local turn = info.turn
		assert(turn.transcript == "Once upon a time there was a girl named Lily.", turn.transcript)
		assert(turn.said == "A dog sat by the sea." and turn.wer > 0.5, "wer " .. tostring(turn.wer))
		local s, p = turn.stamps, turn.parts
		assert(s.speech_end_ms < s.final_ms, "speech end " .. s.speech_end_ms .. " final " .. s.final_ms)
		assert(s.final_ms <= s.request_ms and s.request_ms <= s.ttft_ms and s.ttft_ms <= s.first_sentence_ms,
			"final " .. s.final_ms .. " request " .. s.request_ms .. " ttft " .. tostring(s.ttft_ms) .. " first sentence " .. tostring(s.first_sentence_ms))
		assert(s.first_sentence_ms <= s.tts_sent_ms and s.tts_sent_ms <= s.first_audio_ms, "tts sent " .. tostring(s.tts_sent_ms))
		assert(math.abs(s.ttft_ms - s.request_ms - info.ttft_ms) < 0.001, "ttft on the turn clock")
		local sum = p.stt_final_ms + p.handoff_ms + p.llm_ttft_ms + p.first_sentence_ms + p.tts_handoff_ms + p.tts_first_audio_ms
		assert(math.abs(sum - p.mouth_to_ear_ms) < 0.01, "parts add up to " .. sum .. ", mouth to ear " .. p.mouth_to_ear_ms)
		assert(math.abs(p.client_overhead_ms - p.handoff_ms - p.tts_handoff_ms) < 0.001, "client overhead")
		assert(turn.stt.api == "openai" and turn.stt.rate > 0 and turn.stt.queue_ms == 12.5, turn.stt.api)
		local ask = require("ask")
		local _, _, _, asked = ask("Who was there?", {stt = true, quiet = true, max_tokens = 8})
		assert(asked.turn.transcript == turn.transcript and asked.turn.parts.mouth_to_ear_ms == nil, "ask passes stt on")
		print("ok", p.mouth_to_ear_ms)`, "turn.lua")
	t.Log(out.String())
	if err != nil {
		t.Fatal(err)
	}
	rec.mu.Lock()
	defer rec.mu.Unlock()
	var asked []string
	for _, b := range rec.bodies {
		if strings.Contains(b, `"messages"`) {
			asked = append(asked, b)
		}
	}
	if len(asked) != 2 {
		t.Fatalf("want 2 chat requests, got %d: %q", len(asked), rec.bodies)
	}
	for _, b := range asked {
		if !strings.Contains(b, "girl named Lily") || strings.Contains(b, "dog") || strings.Contains(b, "Who was there") {
			t.Errorf("the LLM was not asked the transcript alone: %s", b)
		}
	}
	if !strings.Contains(asked[0], "Tell a story.") {
		t.Errorf("the other messages must go as given: %s", asked[0])
	}
}

// TestStreamSTTFails: a turn that cannot be heard fails stream() before
// any request, as a failed request does: raised with what to check, or
// with errors = "return" in info.error, its kind in info.error_kind.
func TestStreamSTTFails(t *testing.T) {
	f := &stttest.Server{Status: http.StatusTooManyRequests}
	llm := luatest.ClosedURL(t)
	vm, out := testVM(t, Config{Server: llm, STT: fakeCaller(t, f)})
	err := vm.RunString(`
		local chunks, total_ms, _, info = stream("Hello there.", {stt = true, errors = "return"})
		print(#chunks, info.error_kind, info.turn.said, info.turn.transcript, info.error ~= nil)
		local ok, e = pcall(stream, "Hello there.", {stt = {text = "Good day."}, max_tokens = 4})
		print(ok, e:find("429", 1, true) ~= nil, e:find("lower the load", 1, true) ~= nil)
		ok, e = pcall(stream, {{role = "system", content = "x"}}, {stt = true})
		print(e:find("has none", 1, true) ~= nil)
		ok, e = pcall(stream, "x", {stt = true, max_tokenz = 4})
		print(e:find("did you mean", 1, true) ~= nil)
		_, _, _, info = stream("Hello there.", {stt = {voice = "no-such-voice"}, errors = "return"})
		print(info.error_kind, info.turn.said, info.error:find("the caller's audio", 1, true) ~= nil)`, "fails.lua")
	if err != nil {
		t.Fatal(err)
	}
	want := "0\tstt_rate_limited\tHello there.\tnil\ttrue\nfalse\ttrue\ttrue\ntrue\ntrue\nstt_error\tHello there.\ttrue\n"
	if out.String() != want || len(f.Received()) != 2 {
		t.Errorf("got %q and %d uploads, want %q and 2 (no upload for a typo)", out.String(), len(f.Received()), want)
	}
}
