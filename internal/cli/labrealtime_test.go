package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/realtime/realtimetest"
	"ttftlab/internal/tts"
)

// TestLabRealtimeSkippedWithoutServer: without --realtime the realtime
// step is skipped, saying how to name a server, writes no realtime.json,
// and the folder passes check, which says why it did not check it.
func TestLabRealtimeSkippedWithoutServer(t *testing.T) {
	srv := startLlama(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--out", out, "--no-report", "--", "realtime")
	if code != 0 || !strings.Contains(stdout, "\n1 skipped (realtime), 12 not run;") {
		t.Fatalf("lab -- realtime exited %d:\n%s%s", code, stdout, stderr)
	}
	var steps artifact.Steps
	readJSON(t, filepath.Join(out, "steps.json"), &steps)
	st, ok := steps.Of(artifact.RealtimeFile)
	if !ok || st.Name != "realtime" || st.Status != artifact.StepSkipped || !strings.HasPrefix(st.Detail, "no Realtime server: run with --realtime URL") {
		t.Errorf("steps.json: %+v", st)
	}
	if _, err := os.Stat(filepath.Join(out, artifact.RealtimeFile)); err == nil {
		t.Errorf("a skipped step wrote realtime.json")
	}
	code, stdout, _ = runCLI("check", out)
	if code != 0 || !strings.Contains(stdout, "SKIP file realtime.json: not checked: step realtime was skipped (no Realtime server") {
		t.Errorf("check exited %d:\n%s", code, stdout)
	}
}

// TestLabRealtimeStep: with --realtime (here the fake, its answer audio
// still coming after the cancel), the step holds two sessions of three
// turns, the second barged into; realtime.json holds them as the record
// says, check passes it with the warning of the audio after the cancel,
// the console has a line a turn and the medians; the key is nowhere.
func TestLabRealtimeStep(t *testing.T) {
	if _, err := tts.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_TTS is set: %v", err)
		}
		t.Skipf("the step speaks its turns with espeak-ng: %v", err)
	}
	const key = "sk-rt-lab-3e9a"
	srv := startLlama(t)
	fake := &realtimetest.Server{StopAfterMs: 600, Delay: 40 * time.Millisecond, Deltas: 8, DeltaMs: 100, AfterCancelMs: 200}
	url := fake.Start(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--out", out, "--no-report", "--realtime", url, "--realtime-api-key", key, "--", "realtime")
	t.Logf("lab output:\n%s%s", stdout, stderr)
	if code != 0 || !strings.Contains(stdout, "\n1 passed, 12 not run;") {
		t.Fatalf("lab -- realtime exited %d", code)
	}
	for _, want := range []string{"realtime session 1 turn 1: mouth to ear ", "realtime session 2 turn 3: mouth to ear ",
		"realtime: mouth to ear p50 ", " over 6 turns, audio after the cancel p50 ", " over 2 barge-ins, " + url + " (openai-ga); warning: the server kept sending"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the console lacks %q", want)
		}
	}
	data, err := os.ReadFile(filepath.Join(out, artifact.RealtimeFile))
	if err != nil {
		t.Fatal(err)
	}
	var rt artifact.Realtime
	if err := artifact.Decode(data, &rt); err != nil {
		t.Fatalf("realtime.json: %v", err)
	}
	if rt.Step != "realtime" || rt.Server != url || rt.Dialect != "openai-ga" || rt.Rate != 24000 || len(rt.Sessions) != 2 || len(rt.Plan) != 3 {
		t.Fatalf("realtime.json: step %q server %q dialect %q rate %d, %d sessions, plan %d", rt.Step, rt.Server, rt.Dialect, rt.Rate, len(rt.Sessions), len(rt.Plan))
	}
	for i, s := range rt.Sessions {
		if len(s.Turns) != 3 || s.ErrorKind != nil {
			t.Fatalf("session %d: %d turns, error %v", i+1, len(s.Turns), s.ErrorKind)
		}
		if b := s.Turns[1]; b.CancelMs == nil || b.AudioAfterCancelMs == nil || *b.AudioAfterCancelMs <= 0 || len(b.Events) == 0 {
			t.Errorf("session %d: turn 2 barged into without its fields or events: %+v", i+1, b)
		}
	}
	for _, s := range fake.Sessions() {
		if s.Auth != "Bearer "+key {
			t.Errorf("the fake got Authorization %q", s.Auth)
		}
	}
	if strings.Contains(stdout+stderr+string(data), key) {
		t.Errorf("the key was shown or written")
	}
	code, stdout, _ = runCLI("check", out)
	if code != 0 || !strings.Contains(stdout, "PASS realtime turns: 2 sessions, 6 turns, dialect openai-ga, 24000 Hz") ||
		!strings.Contains(stdout, "WARN realtime audio after cancel: the server kept sending") || !strings.Contains(stdout, "PASS realtime barge-in: ") {
		t.Errorf("check exited %d:\n%s", code, stdout)
	}
}
