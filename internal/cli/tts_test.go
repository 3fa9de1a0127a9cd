package cli

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"ttftlab/internal/audio"
	"ttftlab/internal/tts"
)

// TestTTSInstallThenServe: with no espeak-ng anywhere, `tts serve` installs
// it (through a stand-in installer that wraps the real one, so nothing is
// downloaded), then answers a speech request with WAV audio that the
// meter reads; Ctrl-C stops it. `tts install` then finds the installed copy.
func TestTTSInstallThenServe(t *testing.T) {
	real := realEspeak(t)
	// A PATH of the few tools the installer runs: Debian's espeak-ng sits
	// in /usr/bin beside them.
	bin := t.TempDir()
	for _, tool := range []string{"bash", "sh", "mkdir", "chmod"} {
		p, err := exec.LookPath(tool)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(p, filepath.Join(bin, tool)); err != nil {
			t.Fatal(err)
		}
	}
	prefix := filepath.Join(t.TempDir(), "espeak-ng")
	script := filepath.Join(t.TempDir(), "fake-install.sh")
	if err := os.WriteFile(script, []byte(fmt.Sprintf(`set -eu
echo "install-espeak-ng: stand-in install" >&2
mkdir -p "$TTFTLAB_ESPEAK_PREFIX/bin"
printf '#!/bin/sh\nexec %%s "$@"\n' %q > "$TTFTLAB_ESPEAK_PREFIX/bin/espeak-ng"
chmod +x "$TTFTLAB_ESPEAK_PREFIX/bin/espeak-ng"
echo "$TTFTLAB_ESPEAK_PREFIX/bin/espeak-ng"
`, real)), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("ESPEAK_NG", "")
	t.Setenv("PATH", bin)
	t.Setenv("TTFTLAB_ESPEAK_PREFIX", prefix)
	t.Setenv(tts.InstallerEnv, script)
	if _, err := tts.Find(); err == nil {
		t.Fatal("an espeak-ng is still found; the test cannot see the install")
	}

	resp, url, stop := serving(t, func(url string) (*http.Response, error) {
		return http.Post(url+"/v1/audio/speech", "application/json", strings.NewReader(`{"input":"Your table is ready.","voice":"alloy","response_format":"wav"}`))
	}, "tts", "serve")
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := audio.NewWAV(audio.DefaultThreshold)
	m.Feed(0, body)
	if r := m.Result(); resp.StatusCode != 200 || m.Err() != nil || !(r.AudioMs > 0) || r.FirstVoicedMs == nil {
		t.Fatalf("%d, %v, %+v", resp.StatusCode, m.Err(), r)
	}
	code, stdout, stderr := stop()
	for _, want := range []string{"espeak-ng not found: installing it", "install-espeak-ng: stand-in install", "espeak-ng installed: " + prefix, "voice en,"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	if code != 130 || !strings.Contains(stdout, "speech server: "+url+" (POST /v1/audio/speech; espeak-ng") {
		t.Errorf("exit %d (want 130 for Ctrl-C), stdout %q", code, stdout)
	}
	code, stdout, stderr = runCLI("tts", "install")
	if code != 0 || stdout != "espeak-ng: "+filepath.Join(prefix, "bin", "espeak-ng")+"\n" {
		t.Fatalf("tts install: %d %q %q", code, stdout, stderr)
	}
}

// syncBuffer is a bytes.Buffer safe to read while a command writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestTTSKeyAndHeaders: a speech server of one's own that wants a key and
// a header gets them from --tts-api-key and --tts-header, not the LLM's;
// the key is shown nowhere. The speech flags without --tts are a usage
// error.
func TestTTSKeyAndHeaders(t *testing.T) {
	const key = "sk-voice-7f3e9a"
	var got http.Header
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got = r.Header.Clone()
		if r.Header.Get("Authorization") != "Bearer "+key {
			http.Error(w, `{"error":{"message":"bad key"}}`, 401)
			return
		}
		w.Header().Set("Content-Type", "audio/pcm")
		w.Write(make([]byte, 4800))
	}))
	defer srv.Close()
	script := filepath.Join(t.TempDir(), "s.lua")
	os.WriteFile(script, []byte(`local i = speak("Hello.") print(i.audio_ms, tts_info().api_key)`), 0o644)
	t.Setenv("TTFTLAB_API_KEY", "sk-llm-not-this-one")
	code, stdout, stderr := runCLI("run", script, "--server", "http://127.0.0.1:1", "--out", t.TempDir(), "--tts", srv.URL,
		"--tts-api-key", key, "--tts-header", "X-Team: voice")
	if code != 0 || stdout != "100\tset from --tts-api-key\n" || got.Get("X-Team") != "voice" {
		t.Fatalf("exit %d, stdout %q, stderr %q, headers %v", code, stdout, stderr, got)
	}
	if strings.Contains(stdout+stderr, key) || !strings.Contains(stderr, "speech: API key from --tts-api-key") {
		t.Fatalf("the key shown, or its source not said: %q", stderr)
	}
	code, _, stderr = runCLI("run", script, "--tts-api-key", key)
	if code != 2 || !strings.Contains(stderr, "need --tts URL") {
		t.Fatalf("--tts-api-key without --tts: exit %d, %s", code, stderr)
	}
}
