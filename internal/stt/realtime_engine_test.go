package stt

import (
	"context"
	"net/http/httptest"
	"os"
	"testing"
	"time"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/tts"
	"ttftlab/internal/turn"
)

// TestRealtimeAgainstPocketsphinx: a question espeak-ng says, sent to the
// default engine's Realtime session as a phone line sends it, is heard
// and transcribed: the server's speech start comes while the caller
// speaks, its speech stop and the final transcript after the speech end.
// Without pocketsphinx or espeak-ng the test is skipped with the reason,
// or fails when TTFTLAB_REQUIRE_STT is set.
func TestRealtimeAgainstPocketsphinx(t *testing.T) {
	need := func(what string, err error) {
		t.Helper()
		if err == nil {
			return
		}
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_STT is set: %s: %v", what, err)
		}
		t.Skipf("%s: %v", what, err)
	}
	bin, err := pocketsphinx.Find()
	need("pocketsphinx", err)
	espeak, err := tts.Find()
	need("espeak-ng", err)
	const question = "What time does the clinic open on Saturday?"
	clip, err := callaudio.Synthesize(context.Background(), espeak, question, "en-us")
	if err != nil {
		t.Fatal(err)
	}
	srv := &pocketsphinx.Server{Bin: bin}
	defer srv.Close()
	if err := srv.Warm(); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()

	cfg := Config{Endpoint: &endpoint.Endpoint{Base: hs.URL}, API: APIRealtime, Language: "en", Timeout: 10 * time.Second}
	res, err := Transcribe(context.Background(), cfg, clip)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text == "" || res.Dialect != DialectGA || res.SilenceFrames == 0 {
		t.Fatalf("result %+v", res)
	}
	if res.SpeechStartedMs == nil || *res.SpeechStartedMs >= res.SpeechEndMs {
		t.Fatalf("speech started %v, speech end %.1f: the server did not hear the speech as it came", res.SpeechStartedMs, res.SpeechEndMs)
	}
	if res.SpeechStoppedMs == nil || *res.SpeechStoppedMs <= res.SpeechEndMs || res.FinalMs < *res.SpeechStoppedMs {
		t.Fatalf("speech end %.1f, stopped %v, final %.1f", res.SpeechEndMs, res.SpeechStoppedMs, res.FinalMs)
	}
	t.Logf("%q (WER %.2f): speech end %.0f ms, speech stopped +%.0f ms, final +%.0f ms, %d silence frames",
		res.Text, turn.WER(question, res.Text), res.SpeechEndMs, *res.SpeechStoppedMs-res.SpeechEndMs, res.FinalMs-res.SpeechEndMs, res.SilenceFrames)
}
