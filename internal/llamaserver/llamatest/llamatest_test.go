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
