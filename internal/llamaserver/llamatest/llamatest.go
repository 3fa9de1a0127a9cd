// Package llamatest gives tests the real llama-server with the project's
// tiny test model. Tests skip when either is missing, unless
// TTFTLAB_REQUIRE_LLAMA is set (as in CI): then they fail.
package llamatest

import (
	"context"
	"os"
	"path/filepath"
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
	bin, err := llamaserver.Find("")
	model = Model()
	if err == nil {
		err = llamaserver.CheckModel(model)
	}
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_LLAMA") != "" {
			t.Fatalf("%v (TTFTLAB_REQUIRE_LLAMA is set)", err)
		}
		t.Skipf("skipping: %v (install with scripts/install-llama-server.sh; set TTFTLAB_MODEL for another model; TTFTLAB_REQUIRE_LLAMA=1 fails instead)", err)
	}
	return bin, model
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
