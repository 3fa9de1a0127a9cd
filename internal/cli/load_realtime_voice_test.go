package cli

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/pocketsphinx"
)

// TestLoadRealtimeVoiceServe: load --realtime against `ttftlab voice
// serve` (pocketsphinx, the real llama-server with the test model,
// espeak-ng), one session of 2 turns and 8 sessions at once: every turn
// is a row and counted in its level, by kind when it failed, and a turn
// that was answered has its mouth to ear.
func TestLoadRealtimeVoiceServe(t *testing.T) {
	if _, err := pocketsphinx.Find(); err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_STT") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_STT is set: %v", err)
		}
		t.Skip(err)
	}
	realEspeak(t)
	_, model := llamatest.Need(t)
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	llamaPort, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	ctx, cancel := context.WithCancel(context.Background())
	var out, errb syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"voice", "serve", "--server", fmt.Sprintf("http://127.0.0.1:%d", llamaPort), "--model", model,
			"--slots", "8", "--port", strconv.Itoa(port), "--max-tokens", "24"}, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	}()
	t.Cleanup(func() {
		cancel()
		select {
		case <-done:
		case <-time.After(time.Minute):
			t.Errorf("voice serve still runs a minute after its stop")
		}
	})
	listening := fmt.Sprintf("listening on ws://127.0.0.1:%d/v1/realtime\n", port)
	for !strings.Contains(out.String(), listening) {
		select {
		case code := <-done:
			t.Fatalf("voice serve exited %d:\n%s%s", code, out.String(), errb.String())
		case <-time.After(50 * time.Millisecond):
		}
	}
	url := fmt.Sprintf("ws://127.0.0.1:%d", port)
	for _, c := range []struct{ at, sessions, turns int }{{1, 1, 2}, {8, 8, 1}} {
		dir := t.TempDir()
		code, stdout, stderr := runCLI("load", "--realtime", url, "--concurrency", itoa(c.at), "--requests", itoa(c.sessions),
			"--turns", itoa(c.turns), "--out", dir, "--no-report")
		t.Logf("%s%s", stdout, stderr)
		turns := c.sessions * c.turns
		rows := realtimeRows(t, dir)
		if code == 2 || len(rows) != turns {
			t.Fatalf("%d at once: exit %d, %d rows, want %d", c.at, code, len(rows), turns)
		}
		s := strictLoad(t, dir).Levels[0].Summary
		failed := 0
		for _, f := range s.Failures {
			failed += f.N
		}
		if s.Requests != turns || s.Calls != c.sessions || s.OK+failed != turns {
			t.Errorf("%d at once: %d turns (%d ok, failures %+v) of %d sessions, want %d of %d", c.at, s.Requests, s.OK, s.Failures, s.Calls, turns, c.sessions)
		}
		for _, r := range rows {
			if r.ErrorKind == nil && (r.MouthToEarMs == nil || *r.MouthToEarMs <= 0) {
				t.Errorf("%d at once: call %d turn %d was answered without a mouth to ear: %v", c.at, r.Call, r.Turn, r.MouthToEarMs)
			}
		}
		if c.at == 1 && s.OK != turns {
			t.Errorf("one session at a time: %d of %d turns answered (%+v)", s.OK, turns, s.Failures)
		}
	}
}
