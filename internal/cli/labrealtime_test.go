package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/artifact"
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
