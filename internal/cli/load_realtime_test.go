package cli

import (
	"strings"
	"testing"
)

// TestLoadRealtimeFlags: a --realtime-* flag without --realtime is
// refused naming it; with --realtime, a flag of the LLM's requests
// (--server, --tts, --trace, ...) and an SLO on a figure a session has no
// (ttft_ms) are refused before anything starts, and --realtime-barge-after
// needs a turn after the one it barges into.
func TestLoadRealtimeFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--realtime-barge-after", "800ms"}, "--realtime-barge-after: these are the Realtime server's: give --realtime URL"},
		{[]string{"--realtime-api-key", "k", "--realtime-voice", "alloy"}, "--realtime-api-key, --realtime-voice: these are the Realtime server's: give --realtime URL"},
		{[]string{"--realtime", "ws://127.0.0.1:1", "--server", "http://127.0.0.1:1"}, "--server with --realtime: the load is sessions with the Realtime server alone"},
		{[]string{"--realtime", "ws://127.0.0.1:1", "--tts", "default", "--max-tokens", "9"}, "--max-tokens, --tts with --realtime"},
		{[]string{"--realtime", "ws://127.0.0.1:1", "--slo", "ttft_ms<=500@p95"}, `--slo "ttft_ms<=500@p95": a speech-to-speech session has no ttft_ms`},
		{[]string{"--realtime", "ws://127.0.0.1:1", "--realtime-barge-after", "800ms"}, "--realtime-barge-after barges into every turn's answer but a session's last: give --turns above 1"},
		{[]string{"--realtime", "ftp://127.0.0.1:1"}, `--realtime "ftp://127.0.0.1:1"`},
	} {
		args := append([]string{"load", "--out", t.TempDir()}, c.args...)
		code, stdout, stderr := runCLI(args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q\n%s%s", c.args, code, c.want, stdout, stderr)
		}
	}
}
