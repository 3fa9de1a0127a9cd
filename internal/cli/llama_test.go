package cli

import (
	"testing"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/llamaserver/llamatest"
)

// startLlama starts the real llama-server with the test model on a free
// port, with extra arguments, and stops it when the test ends (see
// llamatest).
func startLlama(t *testing.T, extra ...string) *llamaserver.Server {
	return llamatest.Start(t, extra...)
}

// needLlama returns the llama-server binary and test model, or skips.
func needLlama(t *testing.T) (bin, model string) { return llamatest.Need(t) }

func testModel() string { return llamatest.Model() }

// testRegistry is the server registry in the test's state folder.
func testRegistry(t *testing.T) *llamaserver.Registry {
	t.Helper()
	reg, err := llamaserver.OpenRegistry()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}
