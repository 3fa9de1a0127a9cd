package cli

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/synth"
)

func TestModelSynthCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "m.gguf")
	text := filepath.Join(dir, "answer.txt")
	os.WriteFile(text, []byte("We open at 8 a.m. on Monday.\nBring 2.5 forms."), 0o644)

	code, stdout, stderr := runCLI("model", "synth", "--out", out, "--preset", "tiny", "--quant", "f16", "--layers", "3", "--text", text)
	if code != 0 {
		t.Fatalf("exit %d: %s%s", code, stdout, stderr)
	}
	for _, want := range []string{"ttftlab-synthetic-tiny-custom-f16", "3 blocks, embd 256", "f16", `"We open at 8 a.m. on Monday. Bring 2.5 forms."`, "synthetic"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, stdout)
		}
	}
	data, err := os.ReadFile(out)
	if err != nil || !bytes.HasPrefix(data, []byte("GGUF")) || !bytes.Contains(data, []byte("ttftlab-synthetic-tiny-custom-f16")) {
		t.Fatalf("%s is not the named GGUF file (%v)", out, err)
	}

	failures := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"model", "synth", "--preset", "tiny"}, 2, "--out FILE is required"},
		{[]string{"model", "synth", "--out", out, "--preset", "huge"}, 1, `unknown preset "huge"`},
		{[]string{"model", "synth", "--out", out, "--quant", "q8_0"}, 1, "--quant: unknown tensor type"},
		{[]string{"model", "synth", "--out", out, "--preset", "tiny", "--embd", "136"}, 1, "multiples of 32"},
		{[]string{"model", "synth", "--out", out, "--text", filepath.Join(dir, "missing.txt")}, 1, "missing.txt"},
		{[]string{"model", "synth", "--out", filepath.Join(dir, "no", "such", "dir.gguf"), "--preset", "tiny"}, 1, "no/such"},
		{[]string{"model"}, 2, "ttftlab model synth --out FILE"},
		{[]string{"model", "train"}, 2, `unknown command "train"`},
	}
	for _, f := range failures {
		code, _, stderr := runCLI(f.args...)
		if code != f.code || !strings.Contains(stderr, f.want) {
			t.Errorf("%v: exit %d, %q; want exit %d mentioning %q", f.args, code, stderr, f.code, f.want)
		}
	}
}

// TestLabServesSyntheticModel: with nothing at --server and no --model, the
// lab builds the synthetic model into the cache folder, serves it, and
// every check passes; the report says the model was synthetic.
func TestLabServesSyntheticModel(t *testing.T) {
	bin := llamatest.Binary(t)
	// The cache folder moves to a temporary one; llama-server's installed
	// copy lives under the real one, so name it explicitly.
	t.Setenv("LLAMA_SERVER", bin)
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	port := serverTestEnv(t)
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	out := t.TempDir()

	code, stdout, stderr := runCLI("lab", "--server", url, "--out", out, "--synth-preset", "tiny")
	if code != 0 {
		t.Fatalf("lab without a server or model exited %d:\n%s%s", code, stdout, stderr)
	}
	if !strings.Contains(stdout, "serving the SYNTHETIC model ttftlab-synthetic-tiny-q4_0") {
		t.Errorf("the lab did not say it serves the synthetic model:\n%s", stdout)
	}
	cacheDir, _ := synth.CacheDir()
	model := filepath.Join(cacheDir, fmt.Sprintf("ttftlab-synthetic-tiny-q4_0-v%d.gguf", synth.Version))
	if _, err := os.Stat(model); err != nil {
		t.Errorf("the model is not in the cache folder: %v", err)
	}
	logPath := testRegistry(t).LogPath(port)
	requireCheckPasses(t, out, logPath)

	var report struct {
		Model struct {
			Name      string `json:"name"`
			Path      string `json:"path"`
			Synthetic bool   `json:"synthetic"`
		} `json:"model"`
	}
	readJSON(t, filepath.Join(out, "report.json"), &report)
	if report.Model.Name != "ttftlab-synthetic-tiny-q4_0" || report.Model.Path != model || !report.Model.Synthetic {
		t.Errorf("report.json model = %+v, want the synthetic tiny model at %s", report.Model, model)
	}
	var props map[string]any
	readJSON(t, filepath.Join(out, "props.json"), &props)
	if props["model_path"] != model {
		t.Errorf("props.json model_path = %v, want %s", props["model_path"], model)
	}
	if err := llamaserver.PortFree("127.0.0.1", port); err != nil {
		t.Errorf("the server still listens after the lab: %v", err)
	}
}
