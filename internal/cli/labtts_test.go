package cli

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/runtime"
	"ttftlab/scripts"
)

// TestLabPreflightSaysSpeech: the built-in lab's preflight says a speech
// server is needed exactly when a step whose row says tts runs (the audio
// and call steps, by name or by file), and a speech-to-text server
// exactly when one whose row says stt does (the call step), so the
// command knows no step's name.
func TestLabPreflightSaysSpeech(t *testing.T) {
	for _, c := range []struct {
		args     []string
		tts, stt bool
	}{
		{nil, true, true},
		{[]string{"audio"}, true, false},
		{[]string{"ttft", "10_audio.lua"}, true, false},
		{[]string{"call"}, true, true},
		{[]string{"ttft", "11_call.lua"}, true, true},
		{[]string{"ttft"}, false, false},
		{[]string{"server", "stream", "report"}, false, false},
	} {
		vm, err := runtime.New(context.Background(), runtime.Config{Out: t.TempDir(), Args: c.args, Preflight: true})
		if err != nil {
			t.Fatal(err)
		}
		err = vm.RunFS(scripts.FS, "lab.lua")
		needs := vm.Needs()
		vm.Close()
		if err != nil {
			t.Fatalf("preflight of lab %v: %v", c.args, err)
		}
		if needs.TTS != c.tts || needs.STT != c.stt {
			t.Errorf("preflight of lab %v says tts %v, stt %v; want %v, %v", c.args, needs.TTS, needs.STT, c.tts, c.stt)
		}
	}
}

// TestLabSpeechStepFromScript: a lab whose speech step has another name
// (here "speak") gets the default speech engine when that step runs, and
// none when only another step runs: the command learns it from the
// script's preflight. With no engine to be had the run goes on without
// one and says so.
// Fails before this change: the command implied --tts default only for a
// step named "audio", so "speak" ran without a speech server.
func TestLabSpeechStepFromScript(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/health" {
			w.Write([]byte(`{"status":"ok"}`))
			return
		}
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte(`{"error":{"message":"not found"}}`))
	}))
	defer srv.Close()
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "scripts"), 0o755); err != nil {
		t.Fatal(err)
	}
	lab := `
local STEPS = { { name = "speak", tts = true }, { name = "plain" } }
local chosen = {}
for i = 1, #arg do chosen[arg[i]] = true end
if PREFLIGHT then
  local tts = false
  for _, s in ipairs(STEPS) do
    if (#arg == 0 or chosen[s.name]) and s.tts then tts = true end
  end
  return { tts = tts }
end
local info, why = tts_info()
write_json("speech.json", { speech = info ~= nil, why = why })
`
	if err := os.WriteFile(filepath.Join(dir, "scripts", "lab.lua"), []byte(lab), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(dir)
	for _, c := range []struct {
		step   string
		speech bool
	}{{"speak", true}, {"plain", false}} {
		t.Run(c.step, func(t *testing.T) {
			out := t.TempDir()
			code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--out", out, "--no-report", "--", c.step)
			if code != 0 {
				t.Fatalf("lab -- %s exited %d:\n%s%s", c.step, code, stdout, stderr)
			}
			var got struct {
				Speech bool   `json:"speech"`
				Why    string `json:"why"`
			}
			readJSON(t, filepath.Join(out, "speech.json"), &got)
			noEngine := strings.Contains(stderr, "speech: no default engine")
			switch {
			case c.speech && !got.Speech && !noEngine:
				t.Errorf("step %s needs speech: the script saw no speech server (%s) and the command said nothing of the engine:\n%s%s",
					c.step, got.Why, stdout, stderr)
			case !c.speech && (got.Speech || strings.Contains(stdout+stderr, "speech:")):
				t.Errorf("step %s needs no speech, but a speech engine was started or looked for:\n%s%s", c.step, stdout, stderr)
			}
		})
	}
}
