package cli

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/tts"
)

// serving runs `ttftlab ARGS --port P -v` (an engine's serve command) on a
// free port and sends request to its URL until the command answers; the
// command exiting first fails t. stop presses Ctrl-C and returns its exit
// code, stdout and stderr.
func serving(t *testing.T, request func(url string) (*http.Response, error), args ...string) (resp *http.Response, url string, stop func() (int, string, string)) {
	t.Helper()
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, append(args, "--port", fmt.Sprint(port), "-v"), Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	}()
	t.Cleanup(cancel)
	url = fmt.Sprintf("http://127.0.0.1:%d", port)
	for {
		if resp, err = request(url); err == nil {
			break
		}
		select {
		case code := <-done:
			t.Fatalf("ttftlab %s exited %d:\n%s%s", strings.Join(args, " "), code, out.String(), errb.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	return resp, url, func() (int, string, string) {
		cancel()
		code := <-done
		return code, out.String(), errb.String()
	}
}

// TestSTTAndTTSUsage: the engines' commands' usage errors exit 2 and say
// what is wrong; -h shows their flags.
func TestSTTAndTTSUsage(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		output string
	}{
		{nil, 2, "serve"},
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"install", "extra"}, 2, `unexpected arguments ["extra"]`},
		{[]string{"install", "--no-such-flag"}, 2, "Usage: ttftlab %s install"},
		{[]string{"serve", "extra"}, 2, `unexpected arguments ["extra"]`},
		{[]string{"serve", "--port", "70000"}, 2, "-port"},
		{[]string{"serve", "-h"}, 0, "-port"},
		{[]string{"install", "-h"}, 0, "-force"},
	}
	for _, group := range []string{"stt", "tts"} {
		for _, c := range cases {
			args := append([]string{group}, c.args...)
			code, stdout, stderr := runCLI(args...)
			if want := strings.ReplaceAll(c.output, "%s", group); code != c.code || !strings.Contains(stdout+stderr, want) {
				t.Errorf("ttftlab %s: exit %d, want %d with %q in:\n%s%s", strings.Join(args, " "), code, c.code, want, stdout, stderr)
			}
		}
	}
}

// TestInstallFailureSaysWhatToDo: each install command whose script fails
// says the script's reason and what to do: a network, or a program of
// one's own, named in its own terms.
func TestInstallFailureSaysWhatToDo(t *testing.T) {
	for _, c := range []struct{ group, script, env, hint string }{
		{"server", "install-llama-server", llamaserver.InstallerEnv, "LLAMA_SERVER=PATH"},
		{"stt", "install-pocketsphinx", pocketsphinx.InstallerEnv, "TTFTLAB_POCKETSPHINX=/path/to/pocketsphinx"},
		{"tts", "install-espeak-ng", tts.InstallerEnv, "ESPEAK_NG=/path/to/espeak-ng"},
	} {
		t.Run(c.group, func(t *testing.T) {
			script := filepath.Join(t.TempDir(), "stand-in.sh")
			os.WriteFile(script, []byte("echo '"+c.script+": error: the mirror did not answer' >&2; exit 1\n"), 0o755)
			t.Setenv(c.env, script)
			code, stdout, stderr := runCLI(c.group, "install")
			for _, want := range []string{"failed: the mirror did not answer; connect to a network", c.hint} {
				if code != 1 || !strings.Contains(stderr, want) {
					t.Errorf("exit %d, stdout %q, stderr lacks %q:\n%s", code, stdout, want, stderr)
				}
			}
		})
	}
}
