package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadSpeaksLive: `load --tts default` against the real llama-server it
// starts and the real espeak-ng at 1 and 4 calls at once: every answer is
// spoken sentence by sentence; each request's first audio comes after its
// first sentence (so each level's p50 does too), load.json has the
// distributions of first_audio_ms and underrun_ms and the engine's CPU per
// second of audio, the SLO on first audio agrees with its own value and
// limit, and check passes on the folder. An SLO on audio without --tts is a
// usage error.
func TestLoadSpeaksLive(t *testing.T) {
	realEspeak(t)
	_, model := needLlama(t)
	port := serverTestEnv(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", "http://127.0.0.1:"+itoa(port), "--model", model, "--tts", "default",
		"--concurrency", "1,4", "--requests", "8", "--out", out, "--slo", "first_audio_ms<=60000@p50")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	compareWithRecorded(t, "load-tts", out)
	if doc.Settings.TTS == nil || !strings.HasPrefix(doc.Settings.TTS.Engine, "espeak-ng") || doc.Settings.TTS.Source != "--tts default" {
		t.Fatalf("settings.tts %+v", doc.Settings.TTS)
	}
	if len(doc.Levels) != 2 {
		t.Fatalf("%d levels", len(doc.Levels))
	}
	for _, l := range doc.Levels {
		s := l.Summary
		fa, fs := s.FirstAudioMs, s.FirstSentenceMs
		if fa == nil || s.UnderrunMs == nil || fa.N != s.OK || fa.P50 == nil || fs.P50 == nil || *fa.P50 < *fs.P50 {
			t.Fatalf("level %g: first audio %+v, first sentence %+v", l.Level, fa, fs)
		}
		if l.TTSCPUMsPerAudioS == nil || !(*l.TTSCPUMsPerAudioS > 0) {
			t.Errorf("level %g: tts_cpu_ms_per_audio_s %v", l.Level, l.TTSCPUMsPerAudioS)
		}
		v := l.SLO[0]
		if held := v.ValueMs != nil && *v.ValueMs <= v.LimitMs; v.Metric != "first_audio_ms" || v.Met != held {
			t.Errorf("level %g: SLO %+v disagrees with its value and limit", l.Level, v)
		}
	}
	for _, r := range jsonlRows(t, filepath.Join(out, "requests.jsonl")) {
		fa, ok := r["first_audio_ms"].(float64)
		if !ok || fa < r["first_sentence_ms"].(float64) {
			t.Fatalf("row %v: first audio before the first sentence, or none", r)
		}
	}
	if !strings.Contains(stdout, "1st audio p50") || !strings.Contains(stdout, "of CPU per second of audio") {
		t.Errorf("the console lacks the audio figures")
	}
	if html, err := os.ReadFile(filepath.Join(out, "report.html")); err != nil || !strings.Contains(string(html), "First audio (when the caller first hears the answer) by level") {
		t.Errorf("the load report does not draw the first audio by level (%v)", err)
	}
	if code, stdout, stderr := runCLI("check", out); code != 0 {
		t.Fatalf("check exited %d:\n%s%s", code, stdout, stderr)
	}
	code, _, stderr = runCLI("load", "--server", "http://127.0.0.1:1", "--slo", "underrun_ms<=100@p95", "--out", t.TempDir())
	if code != 2 || !strings.Contains(stderr, "needs answers spoken: add --tts") {
		t.Fatalf("an audio SLO without --tts: exit %d\n%s", code, stderr)
	}
}
