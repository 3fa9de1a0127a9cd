package cli

import (
	"strings"
	"testing"

	"ttftlab/internal/load"
)

// TestLoadSearchFlags: --search takes no --concurrency, one --rate (the
// rate it starts from) no higher than --search-max, a --search-budget no
// lower than --requests, and none that leaves a last round of warm-up
// alone.
func TestLoadSearchFlags(t *testing.T) {
	t.Parallel()
	for _, extra := range [][]string{{"--concurrency", "1,2"}, {"--rate", "1,2"}, {"--rate", "100"},
		{"--requests", "20", "--search-budget", "10"}} {
		args := append([]string{"load", "--server", "http://127.0.0.1:1", "--search", "--out", t.TempDir()}, extra...)
		if code, _, stderr := runCLI(args...); code != 2 {
			t.Errorf("%v: exit %d, want 2: %s", extra, code, stderr)
		}
	}
	// A last round the warm-up would leave out whole: refused, naming it.
	args := []string{"load", "--server", "http://127.0.0.1:1", "--search", "--out", t.TempDir(), "--requests", "20", "--warmup", "10"}
	code, _, stderr := runCLI(append(args, "--search-budget", "30")...)
	if code != 2 || !strings.Contains(stderr, "--search-budget 30 leaves a last round of 10 calls (10 requests), which --warmup 10 would leave out whole") {
		t.Errorf("a last round of warm-up alone: exit %d: %s", code, stderr)
	}
}

// TestLoadMaxErrorRate: one request of ten fails; --max-error-rate 0.05
// exits 3 naming the level, 0.2 exits 0; --fail-below 2 of a run whose
// largest level is 1 exits 3 naming the gate (TestLoadGates holds the
// gates' arithmetic).
func TestLoadMaxErrorRate(t *testing.T) {
	t.Parallel()
	url := loadFaultServer(t, func(n int64) (int, string, string) {
		if n == 4 {
			return 500, "server_error", "slot 0 crashed"
		}
		return 0, "", ""
	})
	for _, c := range []struct {
		gate []string
		code int
		want string
	}{{[]string{"--max-error-rate", "0.05"}, 3, "above --max-error-rate"}, {[]string{"--max-error-rate", "0.2"}, 0, ""},
		{[]string{"--fail-below", "2"}, 3, "below --fail-below 2"}} {
		args := append([]string{"load", "--server", url, "--concurrency", "1", "--requests", "10", "--docs", "0",
			"--out", t.TempDir(), "--no-report", "--slo", "ttft_ms<=60000@p50"}, c.gate...)
		code, stdout, stderr := runCLI(args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want %d\n%s%s", c.gate, code, c.code, stdout, stderr)
		}
	}
}

// TestLoadSearchRealServer: --search --search-max 4 on the real
// llama-server that load starts (4 slots) finishes, and its capacity is a
// level it tried and that held (or 0 when none did), the path being the
// one the search's rule gives for the verdicts it met.
func TestLoadSearchRealServer(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", "http://127.0.0.1:"+itoa(port), "--model", model,
		"--search", "--search-max", "4", "--requests", "4", "--docs", "0", "--out", out, "--no-report",
		"--slo", "ttft_ms<=60000@p50")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	compareWithRecorded(t, "load-search", out)
	if doc.Server == nil || doc.Server.Slots == nil || *doc.Server.Slots != 4 {
		t.Errorf("server %+v: want the 4 slots of --search-max", doc.Server)
	}
	c := doc.Capacity
	if c == nil || len(c.Search) == 0 {
		t.Fatalf("capacity %+v: no search", c)
	}
	// First rounds follow the rule on the verdicts met; later rounds
	// confirm a level already run (the capacity or the level above it).
	rule := load.Search{Start: 1, Most: 4, Calls: 1, Budget: 1} // the bracketing on verdicts alone
	var path []load.Step
	inside := c.Level == 0
	last := map[float64]bool{}
	distinct := 0
	for _, st := range c.Search {
		if st.Round > 1 {
			if _, ok := last[st.Level]; !ok {
				t.Errorf("round %d of level %g, which never ran", st.Round, st.Level)
			}
		} else {
			d, err := rule.Next(path)
			if err != nil || d.Done || d.Next != st.Level {
				t.Fatalf("search ran %g after %v; the rule gives %g (done %v, %v)", st.Level, path, d.Next, d.Done, err)
			}
			path = append(path, load.Step{Level: st.Level, Calls: 1, Met: st.Met})
			distinct++
		}
		if st.Requests < 1 || st.CIMs == nil {
			t.Errorf("step %+v: no requests or interval", st)
		}
		last[st.Level] = st.Met
	}
	if c.Level > 0 && last[c.Level] {
		inside = true
	}
	if !inside || c.Decided == nil {
		t.Errorf("capacity %g (decided %v): not a level that held (%v)", c.Level, c.Decided, last)
	}
	if len(doc.Levels) != distinct {
		t.Errorf("%d levels, %d levels searched", len(doc.Levels), distinct)
	}
}
