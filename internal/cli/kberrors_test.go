package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLabKBErrorsWithoutTraceback: the lab refuses a KB that is missing or
// too small before it looks for a server, with the message and its line
// but no Lua stack traceback, and an empty file in the KB is named once;
// a KB too small names the step that needs more and the way round it.
// Fails before this change: both came with a traceback, and the empty
// file counted as a document without a word.
func TestLabKBErrorsWithoutTraceback(t *testing.T) {
	small := t.TempDir()
	os.WriteFile(filepath.Join(small, "a.md"), []byte("# A\nOpen 9 to 5.\n"), 0o644)
	os.WriteFile(filepath.Join(small, "b.md"), nil, 0o644)
	for _, c := range []struct {
		kb   string
		want []string
	}{
		{filepath.Join(t.TempDir(), "nope"), []string{"does not exist", "--kb names a folder"}},
		{small, []string{"has 1 documents", "step prefill needs at least 12 (pass --kb DIR, or run the other steps alone: -- STEP...)", "warning: kb: " + filepath.Join(small, "b.md") + " is empty"}},
	} {
		code, _, stderr := runCLI("lab", "--kb", c.kb, "--server", noServer, "--out", t.TempDir())
		if code != 1 || strings.Contains(stderr, "stack traceback") {
			t.Errorf("--kb %s: exit %d, stderr:\n%s\nwant 1 and no traceback", c.kb, code, stderr)
		}
		for _, w := range c.want {
			if strings.Count(stderr, w) != 1 {
				t.Errorf("--kb %s: stderr should say %q once:\n%s", c.kb, w, stderr)
			}
		}
	}
}
