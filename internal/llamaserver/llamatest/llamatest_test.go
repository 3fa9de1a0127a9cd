package llamatest

import (
	"strings"
	"testing"
)

// TestSkipsAreReported: a test skipped for want of the model is named in
// the summary with the right fix (the model, not llama-server's install).
func TestSkipsAreReported(t *testing.T) {
	t.Setenv("TTFTLAB_REQUIRE_LLAMA", "")
	t.Setenv("TTFTLAB_MODEL", "/nonexistent/model.gguf")
	if _, err := findBinary(); err != nil {
		t.Skip("needs llama-server to reach the model check")
	}
	t.Run("needs the model", func(t *testing.T) { Need(t) })
	got := summary()
	if !strings.Contains(got, "SKIPPED end-to-end test TestSkipsAreReported/needs_the_model:") ||
		!strings.Contains(got, "/nonexistent/model.gguf") || !strings.Contains(got, "TTFTLAB_MODEL") ||
		strings.Contains(got, "install") {
		t.Errorf("summary:\n%s", got)
	}
	skips = nil // the skip above was on purpose
}

// TestSkipNamesTheInstallCommand: with no llama-server anywhere, an
// end-to-end test skips (it downloads nothing) and says which command
// installs one.
func TestSkipNamesTheInstallCommand(t *testing.T) {
	t.Setenv("TTFTLAB_REQUIRE_LLAMA", "")
	t.Setenv("LLAMA_SERVER", "")
	t.Setenv("PATH", t.TempDir())
	t.Setenv("TTFTLAB_LLAMA_PREFIX", t.TempDir())
	t.Run("needs llama-server", func(t *testing.T) { Binary(t) })
	got := summary()
	skips = nil // the skip above was on purpose
	if !strings.Contains(got, "needs_llama-server") || !strings.Contains(got, "go run . lab") || !strings.Contains(got, "go run . server install") {
		t.Errorf("summary:\n%s", got)
	}
}
