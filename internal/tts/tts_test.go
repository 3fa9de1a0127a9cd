package tts

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"ttftlab/internal/audio"
)

func TestVoice(t *testing.T) {
	if voice("alloy", "你好") != "cmn" || voice("en-us", "你好") != "en-us" {
		t.Error("an OpenAI voice name follows the text; an espeak-ng one is kept")
	}
}

// espeakBin is the espeak-ng the tests run: Debian's, on PATH (.ci/run
// installs it), or ttftlab's installed copy.
func espeakBin(t *testing.T) string {
	t.Helper()
	bin, err := Find()
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_TTS is set: %v", err)
		}
		t.Skip(err)
	}
	return bin
}

func say(t *testing.T, url, body string) (int, []byte) {
	t.Helper()
	resp, err := http.Post(url+"/v1/audio/speech", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, b
}

func meter(t *testing.T, b []byte, pcm bool) audio.Result {
	t.Helper()
	m := audio.NewWAV(audio.DefaultThreshold)
	if pcm {
		var err error
		if m, err = audio.NewPCM(audio.OpenAIPCM, audio.DefaultThreshold); err != nil {
			t.Fatal(err)
		}
	}
	m.Feed(0, b)
	if m.Err() != nil {
		t.Fatal(m.Err())
	}
	return m.Result()
}

func TestSpeechFromEspeak(t *testing.T) {
	var log bytes.Buffer
	srv := &Server{Bin: espeakBin(t), Log: &log}
	ts := httptest.NewServer(srv)
	defer ts.Close()

	code, short := say(t, ts.URL, `{"model":"espeak-ng","input":"Hello there.","voice":"alloy","response_format":"wav"}`)
	if code != 200 {
		t.Fatalf("%d %s", code, short)
	}
	code, long := say(t, ts.URL, `{"model":"espeak-ng","input":"Hello there. Your appointment is on Tuesday at ten in the morning, with doctor Lee.","response_format":"wav"}`)
	if code != 200 {
		t.Fatalf("%d %s", code, long)
	}
	rs, rl := meter(t, short, false), meter(t, long, false)
	if rs.Format.SampleRate != 22050 || rs.HeaderBytes != 44 || !(rs.AudioMs > 0) || rs.FirstVoicedMs == nil {
		t.Fatalf("short: %+v", rs)
	}
	if !(rl.AudioMs > 2*rs.AudioMs) {
		t.Fatalf("audio of the long text %.0f ms, of the short %.0f ms: want it to grow with the text", rl.AudioMs, rs.AudioMs)
	}
	// The same text as 24 kHz PCM lasts as long as its WAV.
	code, pcm := say(t, ts.URL, `{"input":"Hello there.","response_format":"pcm"}`)
	if code != 200 {
		t.Fatalf("%d %s", code, pcm)
	}
	if rp := meter(t, pcm, true); math.Abs(rp.AudioMs-rs.AudioMs) > 0.1 {
		t.Fatalf("pcm lasts %.2f ms, the wav %.2f ms", rp.AudioMs, rs.AudioMs)
	}
	// Mandarin and Korean, each in its own voice.
	for _, c := range []struct{ text, voice string }{{"你好，今天的预约在上午十点。", "cmn"}, {"안녕하세요. 예약은 화요일입니다.", "ko"}} {
		body, _ := json.Marshal(map[string]string{"input": c.text, "voice": "alloy"})
		code, b := say(t, ts.URL, string(body))
		if code != 200 {
			t.Fatalf("%s: %d %s", c.voice, code, b)
		}
		if r := meter(t, b, false); !(r.AudioMs > 500) || r.FirstVoicedMs == nil {
			t.Fatalf("%s: %+v", c.voice, r)
		}
		if !strings.Contains(log.String(), "voice "+c.voice+",") {
			t.Fatalf("log %q: want voice %s", log.String(), c.voice)
		}
	}
	if v := Version(srv.Bin); !strings.HasPrefix(v, "espeak-ng 1.") {
		t.Fatalf("version %q", v)
	}
	if srv.CPU.Load() <= 0 {
		t.Fatal("no espeak-ng CPU time counted")
	}
}

func TestSpeechErrors(t *testing.T) {
	ts := httptest.NewServer(&Server{Bin: espeakBin(t)})
	defer ts.Close()
	for body, want := range map[string]string{
		`{"input":"hi","voice":"no-such-voice"}`: "no-such-voice",
		`{"input":"hi","response_format":"mp3"}`: "mp3",
		`{"input":"  "}`:                         "empty",
		`{"input":"hi","speed":9}`:               "speed 9",
		`not json`:                               "not a JSON",
	} {
		code, b := say(t, ts.URL, body)
		if code != 400 || !strings.Contains(string(b), want) || !json.Valid(b) {
			t.Errorf("%s: %d %.200q, want 400 naming %q", body, code, b, want)
		}
	}
	resp, err := http.Get(ts.URL + "/v1/models")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(b), `"espeak-ng"`) {
		t.Fatalf("models: %s", b)
	}
}

// TestSpeechBodyTooLarge: a 20 MB body is answered 413 saying it is too
// large, not with the JSON decoder's "unexpected EOF" of a cut body.
// Fails before this change.
func TestSpeechBodyTooLarge(t *testing.T) {
	ts := httptest.NewServer(&Server{})
	defer ts.Close()
	code, b := say(t, ts.URL, `{"input":"`+strings.Repeat("a", 20<<20)+`"}`)
	if code != http.StatusRequestEntityTooLarge || !strings.Contains(string(b), "too large") || !json.Valid(b) {
		t.Errorf("20 MB body: %d %.200q, want 413 saying too large", code, b)
	}
}

// TestSpeak: Speak hands over the pcm answer's audio (24 kHz PCM16, the
// same bytes the endpoint sends), and a put that refuses more stops
// espeak-ng with its error.
func TestSpeak(t *testing.T) {
	srv := &Server{Bin: espeakBin(t)}
	const text = "The clinic opens at nine on Saturday."
	var got bytes.Buffer
	if err := srv.Speak(context.Background(), text, "alloy", func(b []byte) error { got.Write(b); return nil }); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	code, want := say(t, hs.URL, `{"input":"`+text+`","response_format":"pcm"}`)
	if code != 200 || len(want) == 0 || !bytes.Equal(got.Bytes(), want) {
		t.Fatalf("Speak gave %d bytes, the endpoint %d (status %d)", got.Len(), len(want), code)
	}
	stop := errors.New("enough")
	calls := 0
	err := srv.Speak(context.Background(), strings.Repeat(text+" ", 20), "", func([]byte) error { calls++; return stop })
	if !errors.Is(err, stop) || calls != 1 {
		t.Errorf("a put that refuses: %v after %d calls", err, calls)
	}
	if err := srv.Speak(context.Background(), text, "no-such-voice", func([]byte) error { return nil }); err == nil || !strings.Contains(err.Error(), "no voice") {
		t.Errorf("an unknown voice: %v", err)
	}
}
