package main

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"ttftlab/llamaserver"
)

// startLlama starts the real llama-server with the test model on a free port
// and stops it when the test ends. It skips when the server or model is
// missing, unless TTFTLAB_REQUIRE_LLAMA is set (as in CI), then it fails.
func startLlama(t *testing.T) *llamaserver.Server {
	t.Helper()
	missing := func(what string, err error) {
		if os.Getenv("TTFTLAB_REQUIRE_LLAMA") != "" {
			t.Fatalf("%s: %v (TTFTLAB_REQUIRE_LLAMA is set)", what, err)
		}
		t.Skipf("skipping: %s: %v (install with scripts/install-llama-server.sh; set TTFTLAB_REQUIRE_LLAMA=1 to fail instead)", what, err)
	}
	bin, err := llamaserver.Find("")
	if err != nil {
		missing("llama-server", err)
	}
	model := testModel()
	if err := llamaserver.CheckModel(model); err != nil {
		missing("test model (set TTFTLAB_MODEL)", err)
	}
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	logPath := filepath.Join(t.TempDir(), "llama-server.log")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	srv, err := llamaserver.Start(ctx, llamaserver.Options{Binary: bin, Model: model, Port: port, LogPath: logPath})
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

func testModel() string {
	if m := os.Getenv("TTFTLAB_MODEL"); m != "" {
		return m
	}
	abs, _ := filepath.Abs(filepath.Join("..", "shared", "models", "stories260K.gguf"))
	return abs
}
