package cli

import (
	"strings"
	"testing"
)

// TestLoadSizesItsServer: a server load starts gets --ctx per slot; with
// --concurrency as many slots as the largest level; with --rate as many as
// calls are in flight (docs/load.md's example: 2 calls/s of 3 turns of 64
// tokens at 25 tokens/s with 2 s of thought between them, 11.68 s a call,
// 24 slots), not one, on which its requests queue into idle timeouts;
// --slots decides when given.
func TestLoadSizesItsServer(t *testing.T) {
	for _, tc := range []struct {
		args  []string
		slots int
	}{
		{[]string{"--concurrency", "1,2,4,8"}, 8},
		{[]string{}, 4},
		{[]string{"--rate", "0.5,1,2", "--arrival", "poisson", "--requests", "60", "--turns", "3", "--think", "2s"}, 24},
		{[]string{"--rate", "2", "--requests", "10", "--turns", "3", "--think", "2s"}, 10}, // no more than the calls
		{[]string{"--rate", "0.1", "--max-tokens", "8"}, 1},
		{[]string{"--rate", "0.5,1,2", "--turns", "3", "--slots", "3"}, 3},
		{[]string{"--concurrency", "1,2,4,8", "--slots", "2"}, 2},
	} {
		c := sizedLoad(t, append(tc.args, "--ctx", "1000")...)
		if got := c.flags.start.slots; got != tc.slots || c.flags.start.ctx != 1000*tc.slots {
			t.Errorf("%v: %d slots, ctx %d; want %d slots of 1000 tokens", tc.args, got, c.flags.start.ctx, tc.slots)
		}
	}
}

// TestLoadHelpSaysWhatItDoes: load -h describes --ctx and --slots as load
// uses them: context per slot, and slots that follow the levels (no fixed
// "default 1").
func TestLoadHelpSaysWhatItDoes(t *testing.T) {
	code, stdout, stderr := runCLI("load", "-h")
	help := stdout + stderr
	if code != 0 {
		t.Fatalf("exit %d:\n%s", code, help)
	}
	lines := map[string]string{}
	var last string
	for _, line := range strings.Split(help, "\n") {
		if f := strings.Fields(line); len(f) > 0 && strings.HasPrefix(f[0], "-") && strings.HasPrefix(line, "  -") {
			last = strings.TrimLeft(f[0], "-")
			continue
		}
		if last != "" {
			lines[last] += line
		}
	}
	if ctx := lines["ctx"]; !strings.Contains(ctx, "each slot") || strings.Contains(ctx, "split between") {
		t.Errorf("--ctx: %q", ctx)
	}
	if slots := lines["slots"]; strings.Contains(slots, "(default 1)") || !strings.Contains(slots, "--rate") ||
		!strings.Contains(slots, "--concurrency") {
		t.Errorf("--slots: %q", slots)
	}
}
