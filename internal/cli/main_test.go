package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/tts"

	"ttftlab/internal/llamaserver/llamatest"
)

// TestMain lets tests run ttftlab as a separate process: with
// TTFTLAB_AS_MAIN=1 the test binary behaves as the ttftlab command, so
// signal handling and exit codes are tested on a real process. Run under
// the name llama-server (standInServer), it is a stand-in llama-server.
func TestMain(m *testing.M) {
	if filepath.Base(os.Args[0]) == standInName {
		os.Exit(serveStandIn(os.Args[1:]))
	}
	if os.Getenv("TTFTLAB_AS_MAIN") == "1" {
		os.Exit(Main(context.Background(), os.Args[1:], OS()))
	}
	noSpeechDownloads()
	// A whole lab's call step speaks ten turns in real time (half a
	// minute): the tests run without it (--stt none) unless they name a
	// speech-to-text server or set TTFTLAB_STT themselves.
	if os.Getenv("TTFTLAB_STT") == "" {
		os.Setenv("TTFTLAB_STT", sttNone)
	}
	state := ownState()
	code := m.Run()
	closeShared()
	if state != "" {
		os.RemoveAll(state)
	}
	llamatest.Report()
	os.Exit(code)
}

// noSpeechDownloads keeps the tests from downloading espeak-ng or
// pocketsphinx: without one (.ci/run installs both; TTFTLAB_REQUIRE_TTS,
// TTFTLAB_REQUIRE_STT), the installer the lab would run is a stand-in that
// fails, so the lab's audio or call step is skipped with the reason. Tests
// of the install set their own stand-in.
func noSpeechDownloads() {
	for _, tool := range []struct {
		find         func() (string, error)
		env, script  string
		name, advice string
	}{
		{tts.Find, tts.InstallerEnv, "install-espeak-ng.sh", "espeak-ng", "apt-get install espeak-ng"},
		{pocketsphinx.Find, pocketsphinx.InstallerEnv, "install-pocketsphinx.sh", "pocketsphinx", "go run . stt install"},
	} {
		if _, err := tool.find(); err == nil || os.Getenv(tool.env) != "" {
			continue
		}
		dir, err := os.MkdirTemp("", "ttftlab-no-download")
		if err != nil {
			continue
		}
		script := filepath.Join(dir, tool.script)
		text := fmt.Sprintf("echo '%s: error: the tests do not download %s (%s)' >&2\nexit 1\n", strings.TrimSuffix(tool.script, ".sh"), tool.name, tool.advice)
		if os.WriteFile(script, []byte(text), 0o755) == nil {
			os.Setenv(tool.env, script)
		}
	}
}

// ownState points $TTFTLAB_STATE at a folder of the tests' own, so that
// no test reads or writes the servers of the machine's user, and returns
// it. A test that starts a server gives it a folder of its own
// (serverTestEnv); the tests that only reach a fake server by --server
// share this one, each on a port of its own, and so can run side by side.
// A test binary run as a child by a test (childCommand) keeps the folder
// its parent gave it: "" then.
func ownState() string {
	if os.Getenv("TTFTLAB_REPL_CHILD") == "1" {
		return ""
	}
	dir, err := os.MkdirTemp("", "ttftlab-test-state")
	if err != nil {
		fmt.Fprintln(os.Stderr, "the tests' state folder:", err)
		os.Exit(1)
	}
	os.Setenv("TTFTLAB_STATE", dir)
	return dir
}
