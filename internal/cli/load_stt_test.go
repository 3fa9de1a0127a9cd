package cli

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/stt/stttest"
)

// TestLoadListensLive: `load --stt URL --tts default` against the real
// llama-server it starts, 2 calls of 2 turns at once, every turn's
// question spoken by espeak-ng to a fake of OpenAI's transcription whose
// third request is refused with 429. Every turn that was transcribed has
// mouth_to_ear_ms, stt_final_ms and the server's queue time in its row,
// its first audio after its final transcript; the refused turn is a
// failed row of kind stt_rate_limited (status 429), its call ends there
// and the other goes on; the level has the distributions of the spoken
// turns and counts the failure, the SLO on mouth to ear agrees with its
// value, the console and the report show them and the run's heading
// names the server; check passes on the folder. --stt without --tts, and an SLO on
// mouth_to_ear_ms without --stt, are usage errors.
func TestLoadListensLive(t *testing.T) {
	realEspeak(t)
	_, model := needLlama(t)
	port := serverTestEnv(t)
	fake := &stttest.Server{Kind: stttest.OpenAI, Text: "What time do you open tomorrow?", QueueMs: "2.5"}
	var n atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n.Add(1) == 3 {
			io.Copy(io.Discard, r.Body)
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusTooManyRequests)
			w.Write([]byte(`{"error":{"message":"too many requests","type":"rate_limit"}}`))
			return
		}
		fake.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", "http://127.0.0.1:"+itoa(port), "--model", model, "--tts", "default",
		"--stt", srv.URL, "--concurrency", "2", "--requests", "2", "--turns", "2", "--think", "10ms", "--docs", "0", "--max-tokens", "16",
		"--out", out, "--slo", "mouth_to_ear_ms<=60000@p50")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	rows := strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl"))
	turns := map[int]int{}
	failed := 0
	for _, r := range rows {
		turns[r.Call]++
		if r.CallerAudioMs == nil || !(*r.CallerAudioMs > 0) {
			t.Errorf("row %d: caller_audio_ms %v", r.Index, r.CallerAudioMs)
		}
		if r.ErrorKind != nil {
			failed++
			if *r.ErrorKind != "stt_rate_limited" || r.ErrorStatus != 429 || r.TTFTMs != nil || r.MouthToEarMs != nil {
				t.Errorf("the refused turn's row: kind %s, status %d, %+v", *r.ErrorKind, r.ErrorStatus, r)
			}
			continue
		}
		if r.MouthToEarMs == nil || r.SttFinalMs == nil || r.SttQueueMs == nil || *r.SttQueueMs != 2.5 || r.WER == nil || r.FirstAudioMs == nil {
			t.Errorf("row %d lacks the spoken turn's figures: %+v", r.Index, r)
			continue
		}
		if !(*r.MouthToEarMs > *r.SttFinalMs) || !(*r.SttFinalMs >= 0) {
			t.Errorf("row %d: mouth to ear %g, final transcript %g after the speech end", r.Index, *r.MouthToEarMs, *r.SttFinalMs)
		}
	}
	if len(rows) != 4 || failed != 1 || turns[1]+turns[2] != 4 {
		t.Fatalf("%d rows, %d failed, turns by call %v: want 4, 1 and 4 (the refused turn is a second one: it ends its call, the other goes on)",
			len(rows), failed, turns)
	}
	doc := strictLoad(t, out)
	if st := doc.Settings.STT; st == nil || st.URL != srv.URL || st.API != "openai" || st.Engine != "" || st.CallerAudio != "" {
		t.Fatalf("settings.stt %+v", doc.Settings.STT)
	}
	l := doc.Levels[0]
	s := l.Summary
	if s.MouthToEarMs == nil || s.MouthToEarMs.N != 3 || s.SttFinalMs == nil || s.SttFinalMs.N != 3 || s.EndpointingMs == nil || s.EndpointingMs.N != 0 {
		t.Fatalf("the level's spoken turns: %+v, %+v, %+v", s.MouthToEarMs, s.SttFinalMs, s.EndpointingMs)
	}
	if s.Failed != 1 || s.Failures[0].Kind != "stt_rate_limited" || s.Failures[0].Status != 429 || l.SLOMet {
		t.Errorf("failures %+v, slo_met %v", s.Failures, l.SLOMet)
	}
	if l.STTCPUMsPerAudioS != nil {
		t.Errorf("stt_cpu_ms_per_audio_s %v for a server of the user's", *l.STTCPUMsPerAudioS)
	}
	if v := l.SLO[0]; v.Metric != "mouth_to_ear_ms" || v.Failed != 1 || v.Met != (v.ValueMs != nil && *v.ValueMs <= v.LimitMs) {
		t.Errorf("SLO %+v disagrees with its value and limit", v)
	}
	for _, want := range []string{"callers speak: every turn's question spoken by espeak-ng", "mouth-ear p50", "stt final p50", "stt_rate_limited 429"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the console lacks %q", want)
		}
	}
	if html, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(html), "Mouth to ear (the caller&#39;s speech end to the answer&#39;s first audio) by level") {
		t.Errorf("the load report does not draw mouth to ear by level (%v)", err)
	}
	if code, stdout, stderr := runCLI("check", out); code != 0 {
		t.Fatalf("check exited %d:\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI("load", "--server", "http://127.0.0.1:1", "--stt", srv.URL, "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "mouth to ear): add --tts") {
		t.Errorf("--stt without --tts: exit %d\n%s", code, stderr)
	}
	code, _, stderr = runCLI("load", "--server", "http://127.0.0.1:1", "--tts", "default", "--slo", "mouth_to_ear_ms<=1500@p95", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "needs the callers' turns spoken: add --stt") {
		t.Errorf("a mouth-to-ear SLO without --stt: exit %d\n%s", code, stderr)
	}
}

// TestLoadListensDefaultLive: `load --stt default --tts default` against
// the real llama-server and the real pocketsphinx, at 1 and 2 calls of
// 2 turns: every turn is spoken, transcribed and counted (each level has
// its 4 requests, every row its caller's audio and, when transcribed,
// its final transcript after the speech end), the level gives the
// engine's CPU per second of the callers' audio, and the run's heading
// names the engine. Without pocketsphinx it is skipped, saying why, or
// fails when TTFTLAB_REQUIRE_STT is set.
func TestLoadListensDefaultLive(t *testing.T) {
	if _, err := pocketsphinx.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_STT is set and pocketsphinx cannot be had: %v", err)
		}
		t.Skipf("no pocketsphinx (set TTFTLAB_REQUIRE_STT=1 to make this a failure): %v", err)
	}
	realEspeak(t)
	_, model := needLlama(t)
	port := serverTestEnv(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", "http://127.0.0.1:"+itoa(port), "--model", model, "--tts", "default",
		"--stt", "default", "--concurrency", "1,2", "--requests", "2", "--turns", "2", "--think", "10ms", "--docs", "0",
		"--max-tokens", "16", "--out", out, "--no-report")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	if st := doc.Settings.STT; st == nil || !strings.HasPrefix(st.Engine, "pocketsphinx") {
		t.Fatalf("settings.stt %+v", doc.Settings.STT)
	}
	if len(doc.Levels) != 2 {
		t.Fatalf("%d levels", len(doc.Levels))
	}
	for _, l := range doc.Levels {
		s := l.Summary
		if s.Requests != 4 || s.OK != 4 {
			t.Errorf("level %g: %d of %d turns ok, want 4 of 4: failures %+v", l.Level, s.OK, s.Requests, s.Failures)
		}
		if s.SttFinalMs == nil || s.SttFinalMs.N != s.OK || s.MouthToEarMs == nil || s.MouthToEarMs.N != s.OK {
			t.Errorf("level %g: stt final %+v, mouth to ear %+v over %d turns", l.Level, s.SttFinalMs, s.MouthToEarMs, s.OK)
		}
		if l.STTCPUMsPerAudioS == nil || !(*l.STTCPUMsPerAudioS > 0) {
			t.Errorf("level %g: stt_cpu_ms_per_audio_s %v", l.Level, l.STTCPUMsPerAudioS)
		}
	}
	for _, r := range strictLines[artifact.LoadRequest](t, filepath.Join(out, "requests.jsonl")) {
		if r.CallerAudioMs == nil || r.ErrorKind == nil && (r.SttFinalMs == nil || !(*r.SttFinalMs >= 0) || r.WER == nil) {
			t.Errorf("row %d of level %g: %+v", r.Index, r.Level, r)
		}
	}
	if !strings.Contains(stdout, "to speech-to-text pocketsphinx") || !strings.Contains(stdout, "of CPU per second of the callers' audio") {
		t.Errorf("the console does not name the engine or its CPU")
	}
}
