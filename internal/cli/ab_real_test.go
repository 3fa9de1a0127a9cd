package cli

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/scripts"
)

// TestABRealKBs: the bundled KB's documents as a small KB (A: one) and a
// large one (B: all of them, as many as the test model's context holds): in one run of each, B's cold
// cache TTFT is decided slower, every figure both sides have gets a
// verdict, and both folders pass check.
func TestABRealKBs(t *testing.T) {
	bin, model := needLlama(t)
	port := serverTestEnv(t)
	small, large := t.TempDir(), t.TempDir()
	docs, err := fs.ReadDir(scripts.KB, ".")
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range docs {
		data, err := fs.ReadFile(scripts.KB, d.Name())
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			writeFile(t, filepath.Join(small, d.Name()), data)
		}
		writeFile(t, filepath.Join(large, d.Name()), data)
	}
	out := t.TempDir()
	code, stdout, stderr := runCLI("ab", "--out", out, "--server", "http://127.0.0.1:"+itoa(port),
		"--model", model, "--llama-server", bin,
		"--a", "--kb "+small, "--b", "--kb '"+large+"'", "--", "cache", "sentence")
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var cmp artifact.Compare
	readJSON(t, filepath.Join(out, artifact.CompareFile), &cmp)
	found := false
	for _, f := range cmp.Figures {
		if f.Verdict == "too few samples" {
			t.Errorf("%s: too few samples (n %d, %d)", f.Name, f.NA, f.NB)
		}
		if f.Name == "cache first ttft_ms" {
			found = true
			if f.Verdict != "slower" {
				t.Errorf("cache first ttft_ms: %s, want slower", f.Verdict)
			}
		}
	}
	if !found {
		t.Error("compare.json has no cache first ttft_ms")
	}
	for _, side := range []string{"A", "B"} {
		code, stdout, stderr := runCLI("check", filepath.Join(out, side))
		if code != 0 {
			t.Errorf("check %s: exit %d\n%s%s", side, code, stdout, stderr)
		}
	}
}

// writeFile writes data at path or fails t.
func writeFile(t *testing.T, path string, data []byte) {
	t.Helper()
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
}
