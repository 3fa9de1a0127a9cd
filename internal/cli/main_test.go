package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

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
	state := ownState()
	code := m.Run()
	closeShared()
	if state != "" {
		os.RemoveAll(state)
	}
	llamatest.Report()
	os.Exit(code)
}

// noSpeechDownloads keeps the tests from downloading espeak-ng: without one
// (.ci/run installs Debian's; TTFTLAB_REQUIRE_TTS), the installer the lab
// would run is a stand-in that fails, so the lab's audio step is skipped
// with the reason. Tests of the install set their own stand-in.
func noSpeechDownloads() {
	if _, err := tts.Find(); err == nil || os.Getenv(tts.InstallerEnv) != "" {
		return
	}
	dir, err := os.MkdirTemp("", "ttftlab-no-download")
	if err != nil {
		return
	}
	script := filepath.Join(dir, "install-espeak-ng.sh")
	if os.WriteFile(script, []byte("echo 'install-espeak-ng: error: the tests do not download espeak-ng (apt-get install espeak-ng)' >&2\nexit 1\n"), 0o755) == nil {
		os.Setenv(tts.InstallerEnv, script)
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
