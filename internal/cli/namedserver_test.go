package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/llamaserver"
)

// TestNamedServerNotAnswering: a server the user named (--server, or
// TTFTLAB_SERVER) where nothing answers is an error, exit 1, with the ways
// out (the synthetic model among them); lab and load start nothing and
// write no synthetic model.
// Fails before this change: the typo was served the synthetic model and
// the lab exited 0 (here, with no llama-server to start, it went as far as
// looking for one for the synthetic model).
func TestNamedServerNotAnswering(t *testing.T) {
	t.Setenv("LLAMA_SERVER", filepath.Join(t.TempDir(), "no-llama-server"))
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for _, c := range []struct {
		name, from string
		args       []string
	}{
		{"lab", "--server", []string{"lab", "--server", url}},
		{"load", "--server", []string{"load", "--server", url, "--concurrency", "1", "--requests", "1"}},
		{"lab env", "TTFTLAB_SERVER", []string{"lab"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if c.from == "TTFTLAB_SERVER" {
				t.Setenv("TTFTLAB_SERVER", url)
			}
			code, stdout, stderr := runCLI(append(c.args, "--out", t.TempDir())...)
			t.Logf("%s:\n%s%s", c.name, stdout, stderr)
			if code != 1 {
				t.Errorf("exit %d, want 1", code)
			}
			for _, want := range []string{"no LLM server answers at " + url + "/health (named by " + c.from, "--server URL", "--model FILE.gguf", "--synth-preset"} {
				if !strings.Contains(stderr, want) {
					t.Errorf("stderr lacks %q", want)
				}
			}
			for _, wrong := range []string{"SYNTHETIC", "llama-server is up", "LLAMA_SERVER"} {
				if strings.Contains(stdout+stderr, wrong) {
					t.Errorf("the output says %q: the synthetic model was sought", wrong)
				}
			}
		})
	}
	if files, _ := filepath.Glob(filepath.Join(cache, "*", "*")); len(files) > 0 {
		t.Errorf("files written to the cache: %v", files)
	}
	if _, err := os.Stat(filepath.Join(cache, "ttftlab")); err == nil {
		t.Errorf("a cache folder was made")
	}
}
