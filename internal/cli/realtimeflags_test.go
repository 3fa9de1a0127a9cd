package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRealtimeFlagsRefused: Realtime flags that cannot work are usage
// errors (exit 2) before anything starts, on run, repl, lab and load; the
// key is shown in none of them.
func TestRealtimeFlagsRefused(t *testing.T) {
	const key = "sk-mouth-77a1e0"
	dir := t.TempDir()
	script := filepath.Join(dir, "s.lua")
	os.WriteFile(script, []byte(`print("ran")`), 0o644)
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte(key), 0o600)
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"a URL of another scheme", []string{"--realtime", "ftp://127.0.0.1:9"}, `--realtime "ftp://127.0.0.1:9": want http://HOST:PORT or ws://HOST:PORT/PATH`},
		{"a key and a key file", []string{"--realtime", "ws://127.0.0.1:9", "--realtime-api-key", key, "--realtime-api-key-file", keyFile}, "--realtime-api-key and --realtime-api-key-file both set"},
		{"a key without a server", []string{"--realtime-api-key", key}, "--realtime-api-key: these are the Realtime server's: give --realtime URL"},
		{"a header without a server", []string{"--realtime-header", "X-A: b"}, "--realtime-header: these are the Realtime server's"},
		{"a bad header", []string{"--realtime", "ws://127.0.0.1:9", "--realtime-header", "nocolon"}, "realtime-header"},
	} {
		for _, cmd := range [][]string{{"run", script}, {"repl"}, {"lab"}} {
			t.Run(c.name+" "+cmd[0], func(t *testing.T) {
				args := append(append(append([]string(nil), cmd...), "--server", "http://127.0.0.1:1", "--out", t.TempDir()), c.args...)
				code, stdout, stderr := runCLI(args...)
				if code != 2 || !strings.Contains(stderr, c.want) {
					t.Fatalf("exit %d, stderr %q; want exit 2 and %q", code, stderr, c.want)
				}
				if strings.Contains(stdout+stderr, key) || strings.Contains(stdout, "ran") {
					t.Errorf("the key shown, or the script ran: stdout %q, stderr %q", stdout, stderr)
				}
			})
		}
	}
	code, _, stderr := runCLI("load", "--server", "http://127.0.0.1:1", "--realtime-api-key", key)
	if code != 2 || !strings.Contains(stderr, "--realtime-api-key: these are the Realtime server's: give --realtime URL") || strings.Contains(stderr, key) {
		t.Errorf("load --realtime-api-key without --realtime: exit %d, %q", code, stderr)
	}
}

// TestRealtimeKeyFromFile: --realtime-api-key-file's key reaches the
// session's endpoint, stderr names its source, and neither the script
// (realtime_info()) nor the console ever shows the key.
func TestRealtimeKeyFromFile(t *testing.T) {
	const key = "sk-mouth-5f02c9"
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "key")
	os.WriteFile(keyFile, []byte(key+"\n"), 0o600)
	script := writeScript(t, `local i = realtime_info() print(i.url, i.api_key)`)
	code, stdout, stderr := runCLI("run", script, "--server", "http://127.0.0.1:1", "--out", t.TempDir(),
		"--realtime", "ws://127.0.0.1:9", "--realtime-api-key-file", keyFile, "--realtime-header", "X-Team: a")
	if code != 0 || !strings.Contains(stdout, "ws://127.0.0.1:9\tset from --realtime-api-key-file "+keyFile) ||
		!strings.Contains(stderr, "realtime: API key from --realtime-api-key-file "+keyFile) {
		t.Fatalf("exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	if strings.Contains(stdout+stderr, key) {
		t.Errorf("the key was shown: %q %q", stdout, stderr)
	}
}
