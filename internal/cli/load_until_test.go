package cli

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
	"ttftlab/internal/loadtext"
)

// crowdServer is llama-server as `ttftlab load` sees it, whose first
// token comes later the more requests are in flight (waiting for theirs):
// per for each of the most requests in flight it saw until then, the n-th request (from
// 0) offsets[n % len(offsets)] more; the answer follows at once. Rounds
// of len(offsets) requests each get every offset once.
type crowdServer struct {
	per         time.Duration
	offsets     []time.Duration
	inFlight, n atomic.Int64
}

func (s *crowdServer) start(t *testing.T) string {
	t.Helper()
	return fakeLlama(t, "crowd", 8, func(w http.ResponseWriter, r *http.Request) {
		s.inFlight.Add(1)
		offset := s.offsets[int(s.n.Add(1)-1)%len(s.offsets)]
		began, most := time.Now(), int64(0)
		for {
			most = max(most, s.inFlight.Load())
			if time.Since(began) >= time.Duration(most)*s.per+offset {
				break
			}
			time.Sleep(2 * time.Millisecond)
		}
		s.inFlight.Add(-1) // its answer follows at once
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, chatChunk("Yes, we open on Saturday.")+chatChunk(" Bye.")+chatEnd)
		w.(http.Flusher).Flush()
	})
}

// TestLoadUntilDecidedFlags: --until-decided needs an --slo of its own,
// takes no --search-budget, no --budget below a level's first round and
// no --shard; --budget without it is refused.
func TestLoadUntilDecidedFlags(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--until-decided"}, "set them with --slo"},
		{[]string{"--until-decided", "--slo", "ttft_ms<=100@p50", "--search", "--search-budget", "40"}, "drop --search-budget"},
		{[]string{"--budget", "10m", "--slo", "ttft_ms<=100@p50"}, "add --until-decided"},
		{[]string{"--until-decided", "--slo", "ttft_ms<=100@p50", "--requests", "10", "--turns", "2", "--budget", "19"},
			"--budget 19 requests is below a level's first round of 20"},
		{[]string{"--until-decided", "--slo", "ttft_ms<=100@p50", "--budget", "soon"}, "want a number of requests (5000) or a duration (10m)"},
		{[]string{"--until-decided", "--slo", "ttft_ms<=100@p50", "--shard", "0/2", "--duration", "10s", "--concurrency", "2",
			"--run-id", "r1", "--start-at", "2030-01-01T00:00:00Z"},
			"--until-decided adds a level's rounds from its verdicts"},
	} {
		args := append([]string{"load", "--server", "http://127.0.0.1:1", "--out", t.TempDir()}, c.args...)
		if code, _, stderr := runCLI(args...); code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 2 saying %q: %s", c.args, code, c.want, stderr)
		}
	}
}

// levelRounds splits a level's rows of requests.jsonl (in the order they
// ended: a round's all before the next's) into its rounds by the calls
// of each step of the search's path.
func levelRounds(rows []artifact.LoadRequest, steps []artifact.SearchStep, level float64) [][]artifact.LoadRequest {
	var mine []artifact.LoadRequest
	for _, r := range rows {
		if r.Level == level {
			mine = append(mine, r)
		}
	}
	var out [][]artifact.LoadRequest
	for _, st := range steps {
		if st.Level == level && st.Calls <= len(mine) {
			out, mine = append(out, mine[:st.Calls]), mine[st.Calls:]
		}
	}
	return out
}

// TestLoadUntilDecidedSearch: against a server whose first token comes
// 100 ms later for each request in flight (about 300 ms at 3 calls at
// once, 400 at 4, each round of 6 spread by -60 to +60 ms), a search
// --until-decided for ttft_ms<=350@p50 finds the capacity, 3, decided,
// and stops each level once its interval lies on one side of the limit:
// over the rounds before a level's last the interval still held the
// limit, over all of them it does not. It spends fewer requests than a
// search of fixed levels of 20 calls (--search-budget 20: no round more)
// that decides the same capacity.
func TestLoadUntilDecidedSearch(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	srv := &crowdServer{per: 100 * ms, offsets: []time.Duration{-60 * ms, -10 * ms, 0, 0, 10 * ms, 60 * ms}}
	url := srv.start(t)
	common := []string{"load", "--server", url, "--search", "--search-max", "8", "--docs", "0", "--no-report",
		"--slo", "ttft_ms<=350@p50"}
	until, fixed := t.TempDir(), t.TempDir()
	code, stdout, stderr := runCLI(append(common, "--out", until, "--requests", "6", "--until-decided", "--budget", "60")...)
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("--until-decided: exit %d", code)
	}
	code, fixedOut, stderr := runCLI(append(common, "--out", fixed, "--requests", "20", "--search-budget", "20")...)
	if code != 0 {
		t.Fatalf("fixed: exit %d\n%s%s", code, fixedOut, stderr)
	}
	doc, fixedDoc := strictLoad(t, until), strictLoad(t, fixed)
	rows, fixedRows := readRows(t, until), readRows(t, fixed)
	for _, d := range []artifact.Load{doc, fixedDoc} {
		if c := d.Capacity; c == nil || c.Level != 3 || c.Decided == nil || !*c.Decided {
			t.Fatalf("capacity %+v, want 3 decided\n%s", c, fixedOut)
		}
	}
	if len(rows) >= len(fixedRows) {
		t.Errorf("--until-decided spent %d requests, the fixed search %d", len(rows), len(fixedRows))
	}
	slo := load.SLOLimit{Percentile: 50, LimitMs: 350}
	values := func(rounds [][]artifact.LoadRequest) []float64 {
		var xs []float64
		for _, round := range rounds {
			for _, r := range round {
				if r.TTFTMs != nil {
					xs = append(xs, *r.TTFTMs)
				}
			}
		}
		return xs
	}
	// calls are the calls of values' requests, a round's apart from
	// another's, as the level's record counts them.
	calls := func(rounds [][]artifact.LoadRequest) []int {
		var ids []int
		for k, round := range rounds {
			for _, r := range round {
				if r.TTFTMs != nil {
					ids = append(ids, k<<24+r.Call)
				}
			}
		}
		return ids
	}
	for _, l := range doc.Levels {
		d := l.Decision
		rounds := levelRounds(rows, doc.Capacity.Search, l.Level)
		if d == nil || d.Ended != "decided" || d.Rounds != len(rounds) || l.Summary.Requests != len(values(rounds)) {
			t.Errorf("level %g: decision %+v over %d rounds, %d requests", l.Level, d, len(rounds), l.Summary.Requests)
			continue
		}
		for k := 1; k < len(rounds); k++ {
			if e := load.Estimate(values(rounds[:k]), calls(rounds[:k]), slo); e.Side != load.Straddles {
				t.Errorf("level %g: decided (%s) after %d of its %d rounds, but ran on", l.Level, e.Side, k, len(rounds))
			}
		}
		if e := load.Estimate(values(rounds), calls(rounds), slo); e.Side == load.Straddles || string(e.Side) != l.SLO[0].Side {
			t.Errorf("level %g: %s over every round, its verdict %q", l.Level, e.Side, l.SLO[0].Side)
		}
	}
	if !strings.Contains(stdout, "until decided: every level's verdict decided") {
		t.Errorf("the console does not say every level was decided")
	}
}

// TestLoadUntilDecidedBudget: a server whose first token comes right at
// the limit (100 ms, each round of 6 spread by -40 to +40 ms) leaves
// ttft_ms<=100@p50 undecided: --budget 24 requests ends the level after
// 4 rounds of 6, and the console and load.json say it is undecided and
// what would decide it (MoreToDecide over its verdict).
func TestLoadUntilDecidedBudget(t *testing.T) {
	t.Parallel()
	ms := time.Millisecond
	srv := &crowdServer{per: 100 * ms, offsets: []time.Duration{-40 * ms, -20 * ms, -5 * ms, 5 * ms, 20 * ms, 40 * ms}}
	url := srv.start(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", url, "--concurrency", "1", "--requests", "6", "--docs", "0", "--no-report",
		"--out", out, "--slo", "ttft_ms<=100@p50", "--until-decided", "--budget", "24")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	doc := strictLoad(t, out)
	if len(doc.Levels) != 1 || doc.Settings.UntilDecided == nil || doc.Settings.UntilDecided.BudgetRequests != 24 {
		t.Fatalf("levels %d, settings.until_decided %+v", len(doc.Levels), doc.Settings.UntilDecided)
	}
	l := doc.Levels[0]
	d := l.Decision
	if d == nil || d.Decided || d.Ended != "budget" || d.Rounds != 4 || d.Requests != 24 || len(readRows(t, out)) != 24 ||
		len(d.Undecided) != 1 || l.SLO[0].Side != "straddles" {
		t.Fatalf("decision %+v, SLO %+v: want undecided after 4 rounds of 6", d, l.SLO)
	}
	u := d.Undecided[0]
	if want := load.MoreToDecide(l.SLO[0]); u.Metric != "ttft_ms" || u.N != 24 || u.MoreRequests == nil && u.Why == "" ||
		fmtMore(u) != fmtMore(want) {
		t.Errorf("undecided %+v, want MoreToDecide's %+v", u, want)
	}
	for _, want := range []string{"  undecided after 4 rounds, 24 requests: --budget 24 requests leaves no further round\n",
		"    ttft_ms p50 (n=24): " + loadtext.MoreText(u) + "\n",
		"until decided: undecided after --budget 24 requests: at 1: ttft_ms p50 ("} {
		if !strings.Contains(stdout, want) {
			t.Errorf("console lacks %q", want)
		}
	}
}

// fmtMore is an undecided verdict's count as load.json has it.
func fmtMore(u artifact.UndecidedSLO) string {
	data, _ := json.Marshal(u)
	return string(data)
}
