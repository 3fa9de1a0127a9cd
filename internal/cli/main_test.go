package cli

import (
	"context"
	"os"
	"testing"

	"ttftlab/internal/llamaserver/llamatest"
)

// TestMain lets tests run ttftlab as a separate process: with
// TTFTLAB_AS_MAIN=1 the test binary behaves as the ttftlab command, so
// signal handling and exit codes are tested on a real process.
func TestMain(m *testing.M) {
	if os.Getenv("TTFTLAB_AS_MAIN") == "1" {
		os.Exit(Main(context.Background(), os.Args[1:], OS()))
	}
	llamatest.Main(m)
}
