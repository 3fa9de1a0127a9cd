// Package llamatest gives tests the real llama-server with the project's
// tiny test model. Tests skip when either is missing, unless
// TTFTLAB_REQUIRE_LLAMA is set (as in CI): then they fail.
package llamatest

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
)

// Model is the test model: $TTFTLAB_MODEL, else
// shared/models/stories260K.gguf beside the checkout (../shared from the
// module root).
func Model() string {
	if m := os.Getenv("TTFTLAB_MODEL"); m != "" {
		return m
	}
	root := moduleRoot()
	return filepath.Join(filepath.Dir(root), "shared", "models", "stories260K.gguf")
}

// moduleRoot walks up from the working directory (a test runs in its
// package's folder) to the folder holding go.mod.
func moduleRoot() string {
	dir, _ := os.Getwd()
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

// Need returns the llama-server binary and the test model, or skips t.
func Need(t testing.TB) (bin, model string) {
	t.Helper()
	bin = Binary(t)
	model = Model()
	if err := llamaserver.CheckModel(model); err != nil {
		skip(t, err, "put the test model there or name another with TTFTLAB_MODEL=FILE.gguf")
	}
	return bin, model
}

// Binary returns the llama-server binary, or skips t.
func Binary(t testing.TB) string {
	t.Helper()
	bin, err := findBinary()
	if err != nil {
		skip(t, err, "")
	}
	return bin
}

// skip skips t, or fails it when TTFTLAB_REQUIRE_LLAMA is set (as in CI),
// and remembers why for Report.
func skip(t testing.TB, err error, fix string) {
	t.Helper()
	if os.Getenv("TTFTLAB_REQUIRE_LLAMA") != "" {
		t.Fatalf("%v (TTFTLAB_REQUIRE_LLAMA is set)", err)
	}
	skipsMu.Lock()
	why := err.Error()
	if fix != "" {
		why += "; " + fix
	}
	skips = append(skips, t.Name()+": "+why)
	skipsMu.Unlock()
	t.Skipf("skipping: %s (TTFTLAB_REQUIRE_LLAMA=1 fails instead)", why)
}

var (
	skipsMu sync.Mutex
	skips   []string
)

// Main runs a package's tests, then reports the end-to-end tests it
// skipped (see Report). Call it from TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Report()
	os.Exit(code)
}

// Report prints one line per end-to-end test skipped for want of
// llama-server or the test model, with the fix. `go test ./...` shows a
// passing package's output only with -v, so the lines also go to the
// terminal the tests run on, when there is one: a skipped end-to-end test
// must never pass unnoticed.
func Report() {
	text := summary()
	if text == "" {
		return
	}
	os.Stderr.WriteString(text)
	if tty, err := os.OpenFile("/dev/tty", os.O_WRONLY, 0); err == nil {
		tty.WriteString(text)
		tty.Close()
	}
}

// summary is Report's text: a line per skipped test.
func summary() string {
	skipsMu.Lock()
	defer skipsMu.Unlock()
	var b strings.Builder
	for _, s := range skips {
		fmt.Fprintf(&b, "SKIPPED end-to-end test %s\n", s)
	}
	return b.String()
}

// Start serves the test model with the lab's reference setup (-c 4096
// -np 1 --cache-ram 0) on a free loopback port, logging to a temporary
// file, and stops it when the test ends. extra are more llama-server
// arguments.
func Start(t testing.TB, extra ...string) *llamaserver.Server {
	t.Helper()
	bin, model := Need(t)
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "llama-server.log")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := llamaserver.Start(ctx, llamaserver.Options{Binary: bin, Model: model, Port: port,
		LogPath: logPath, Extra: extra})
	if err != nil {
		t.Fatalf("starting llama-server: %v", err)
	}
	t.Cleanup(func() {
		if err := srv.Stop(10 * time.Second); err != nil {
			t.Errorf("stopping llama-server: %v", err)
		}
		if t.Failed() {
			t.Logf("llama-server log tail:\n%s", llamaserver.TailFile(logPath, 30))
		}
	})
	return srv
}

func findBinary() (string, error) { return llamaserver.Find("") }
