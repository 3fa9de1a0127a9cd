package cli

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/interleave"
)

// TestABSplitsFlagsAsAShell: a side's flags are one argument, split into
// words as a POSIX shell splits them, nothing expanded.
func TestABSplitsFlagsAsAShell(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
	}{
		{``, nil},
		{`  `, nil},
		{`--kb small`, []string{"--kb", "small"}},
		{`--kb '/my docs' --model "a b.gguf"`, []string{"--kb", "/my docs", "--model", "a b.gguf"}},
		{`--kb /my\ docs`, []string{"--kb", "/my docs"}},
		{`--header "X-Note: say \"hi\""`, []string{"--header", `X-Note: say "hi"`}},
		{`--header 'X-Note: it'"'"'s'`, []string{"--header", "X-Note: it's"}},
		{`--kb=''`, []string{"--kb="}},
		{`--kb "" --api chat`, []string{"--kb", "", "--api", "chat"}},
		{`--kb ~/kb/*.md '$HOME'`, []string{"--kb", "~/kb/*.md", "$HOME"}},
		{"--kb a\t--api\tchat", []string{"--kb", "a", "--api", "chat"}},
	} {
		got, err := splitFlags(c.in)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("splitFlags(%q) = %q, %v; want %q", c.in, got, err, c.want)
		}
	}
	for _, in := range []string{`--kb 'open`, `--kb "open`, `--kb $HOME`, "--kb `pwd`", `--kb "$(pwd)"`, `--kb {a,b}`,
		`--kb a; --api chat`, `--kb a | x`, `--kb a > f`, "--kb a\n--api chat", `X=1 --kb a`, `--kb a &`} {
		if got, err := splitFlags(in); err == nil {
			t.Errorf("splitFlags(%q) = %q, want an error", in, got)
		}
	}
}

// TestABSideFlagErrors: a side's wrong flags are a usage error (exit 2)
// that names the side and what it was given, before anything starts.
func TestABSideFlagErrors(t *testing.T) {
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	out := t.TempDir()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--a", "--kb small --concurency 3"}, `--a "--kb small --concurency 3": flag provided but not defined: -concurency`},
		{[]string{"--b", "--repeat x"}, `--b "--repeat x": invalid value "x" for flag -repeat`},
		{[]string{"--b", "--kb 'small"}, `--b "--kb 'small": 1:6: reached EOF without closing quote`},
		{[]string{"--a", "--kb $KB"}, `--a "--kb $KB": $KB: nothing is expanded here`},
		{[]string{"--b", "--kb small cache"}, `--b "--kb small cache": "cache" is not a flag (steps go after -- and run on both sides)`},
		{[]string{"--b", "--out elsewhere"}, `--b "--out elsewhere": --out is both sides' folder`},
		{[]string{"--a", "--b x"}, `--a "--b x": flag provided but not defined: -b`},
		{[]string{"--b", "--server ftp://h"}, `--b "--server ftp://h": --server "ftp://h"`},
		{[]string{"--runs", "3"}, `flag provided but not defined: -runs`},
	} {
		args := append([]string{"ab", "--out", out}, c.args...)
		code, stdout, stderr := runCLI(append(args, "--", "ttft")...)
		if code != 2 || !strings.Contains(stderr, c.want) || !strings.Contains(stderr, "Usage: ttftlab ab") {
			t.Errorf("%q: exit %d, stderr:\n%s\nwant exit 2 and %q", c.args, code, stderr, c.want)
		}
		if stdout != "" {
			t.Errorf("%q: printed %q before refusing", c.args, stdout)
		}
	}
	if entries, _ := os.ReadDir(out); len(entries) > 0 {
		t.Errorf("a refused command wrote into OUT: %v", entries)
	}
}

// TestABSideFlagsOverCommon: each side has the common flags with its own
// over them, later flags winning, a repeatable flag added to.
func TestABSideFlagsOverCommon(t *testing.T) {
	e := newEnv(Stdio{Out: &strings.Builder{}, Err: &strings.Builder{}})
	e.cmd = "ab"
	var mu sync.Mutex
	se, _ := e.prefixed("A | ", &mu)
	s := &abSide{words: "--kb 'my kb' --repeat 3 --header 'X-Side: a'", env: se, out: "/o/A"}
	w, err := splitFlags(s.words)
	if err != nil {
		t.Fatal(err)
	}
	args := []string{"--repeat", "8", "--kb", "common", "--header", "X-Both: 1", "--keep-going=false", "--a", s.words, "--", "cache"}
	if err := s.parse("", args, w); err != nil {
		t.Fatal(err)
	}
	h := s.flags.host
	if s.flags.repeat != 3 || h.kb != "my kb" || s.flags.keepGoing || h.out != "/o/A" ||
		h.ep.Header["X-Both"] != "1" || h.ep.Header["X-Side"] != "a" {
		t.Fatalf("side flags: repeat %d, kb %q, keep-going %v, out %q, headers %v", s.flags.repeat, h.kb, s.flags.keepGoing, h.out, h.ep.Header)
	}
}

// TestABTakesTurnsABBA: two set-ups, each at a server of its own (two
// proxies in front of one llama-server, each recording its requests),
// the ttft step repeated 4 times: the requests come A B B A A B B A, one
// set-up at a time, and OUT holds A, B, the verdicts and the page.
func TestABTakesTurnsABBA(t *testing.T) {
	srv := startLlama(t)
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	var mu sync.Mutex
	type req struct {
		side       string
		start, end time.Time
	}
	var reqs []req
	record := func(side string, start, end time.Time) {
		mu.Lock()
		reqs = append(reqs, req{side, start, end})
		mu.Unlock()
	}
	proxy := func(side string) string {
		return chatProxy(t, srv.URL, 0, func(start, end time.Time) { record(side, start, end) })
	}
	a, b := proxy("A"), proxy("B")
	out := t.TempDir()
	code, stdout, stderr := runCLI("ab", "--out", out, "--repeat", "4", "--no-report",
		"--a", "--server "+a, "--b", "--server '"+b+"'", "--", "ttft")
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	// A request's turn may hold more than one request (a whole answer
	// in one read is streamed again), so the order is read as runs of
	// one side: A BB AA BB A.
	var order []string
	var runs []string
	for i, r := range reqs {
		order = append(order, r.side)
		if i == 0 || reqs[i-1].side != r.side {
			runs = append(runs, r.side)
		}
		if i > 0 && r.start.Before(reqs[i-1].end) {
			t.Errorf("request %d (%s) started before request %d (%s) ended", i, r.side, i-1, reqs[i-1].side)
		}
	}
	if got := strings.Join(runs, ""); got != "ABABA" {
		t.Fatalf("requests came %s (runs of one side: %s), want A BB AA BB A", strings.Join(order, " "), got)
	}
	for _, side := range []string{"A", "B"} {
		var ttft struct {
			Runs []any `json:"runs"`
		}
		readJSON(t, filepath.Join(out, side, "ttft.json"), &ttft)
		if len(ttft.Runs) != 4 {
			t.Errorf("%s's ttft.json has %d runs, want 4", side, len(ttft.Runs))
		}
		if !strings.Contains(stdout, side+" | ttft: ttft p50") {
			t.Errorf("no line of %s's lab prefixed %q", side, side+" | ")
		}
	}
	var cmp artifact.Compare
	readJSON(t, filepath.Join(out, artifact.CompareFile), &cmp)
	if len(cmp.Figures) == 0 {
		t.Fatal("compare.json holds no figure")
	}
	if _, err := os.Stat(filepath.Join(out, "report.html")); err != nil {
		t.Fatal(err)
	}
	verdicts := strings.Index(stdout, "\nB/A, ")
	where := strings.Index(stdout, "verdicts: "+filepath.Join(out, artifact.CompareFile))
	if verdicts < 0 || where < verdicts || !strings.Contains(stdout[verdicts:], "\nttft_ms ") {
		t.Fatalf("the verdicts (at %d) do not come before where they are (at %d)", verdicts, where)
	}
}

// TestABServersOfTheirOwn: set-ups that would start llama-server alike at
// one address share it; started differently, B's moves to a free local
// port, unless --b names the same --server itself.
func TestABServersOfTheirOwn(t *testing.T) {
	e := newEnv(Stdio{Out: &strings.Builder{}, Err: &strings.Builder{}})
	e.cmd = "ab"
	var mu sync.Mutex
	sides := func(a, b string) (*abSide, *abSide, []string) {
		args := []string{"--server", "http://127.0.0.1:8099", "--model", "m.gguf", "--a", a, "--b", b}
		var s [2]*abSide
		for i, words := range []string{a, b} {
			se, _ := e.prefixed("| ", &mu)
			s[i] = &abSide{side: []interleave.Side{interleave.A, interleave.B}[i], words: words, env: se}
			w, err := splitFlags(words)
			if err != nil {
				t.Fatal(err)
			}
			if err := s[i].parse("", args, w); err != nil {
				t.Fatal(err)
			}
		}
		return s[0], s[1], args
	}
	a, b, args := sides("--kb x", "--kb y")
	if err := ownServers(a, b, "", args); err != nil || b.flags.host.server != "http://127.0.0.1:8099" {
		t.Fatalf("alike: B at %s, %v; want the shared server", b.flags.host.server, err)
	}
	a, b, args = sides("", "--model n.gguf")
	if err := ownServers(a, b, "", args); err != nil || b.flags.host.server == a.flags.host.server ||
		!strings.HasPrefix(b.flags.host.server, "http://127.0.0.1:") || b.flags.host.start.model != "n.gguf" {
		t.Fatalf("another model: B at %s with %s, %v; want a port of its own", b.flags.host.server, b.flags.host.start.model, err)
	}
	a, b, args = sides("", "--ctx 2048 --server=http://127.0.0.1:8099")
	if err := ownServers(a, b, "", args); err == nil || !strings.Contains(err.Error(), "give each its own --server") {
		t.Fatalf("same --server named: %v", err)
	}
}

// TestABSetUpThatCannotRun: a set-up whose server does not answer ends
// the command with exit 1, naming the set-up.
func TestABSetUpThatCannotRun(t *testing.T) {
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	code, _, stderr := runCLI("ab", "--out", t.TempDir(), "--a", "--server http://127.0.0.1:1", "--", "ttft")
	if code != 1 || !strings.Contains(stderr, "set-up A: no LLM server answers at http://127.0.0.1:1/health") {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
}

// TestABLinesPrefixed: each whole line of a set-up's output starts with
// its name, also when written in pieces, and a last unended line is
// written by flush.
func TestABLinesPrefixed(t *testing.T) {
	var out strings.Builder
	var mu sync.Mutex
	e := &env{Stdio: Stdio{Out: &out, Err: &out}}
	a, flushA := e.prefixed("A | ", &mu)
	b, flushB := e.prefixed("B | ", &mu)
	fmt.Fprint(a.Out, "first ")
	fmt.Fprint(b.Out, "one\ntwo\n\n")
	fmt.Fprint(a.Out, "line\nsecond")
	fmt.Fprint(b.Err, "err")
	flushA()
	flushB()
	want := "B | one\nB | two\nB | \nA | first line\nA | second\nB | err\n"
	if out.String() != want {
		t.Fatalf("got\n%s\nwant\n%s", out.String(), want)
	}
}

// TestABFailedStepExitsOne: set-up B's server answers every request with
// a 500, A's streams: both labs run (A takes B's forfeited turns), the
// comparison is drawn from what both have, and the command exits 1
// naming B and its failed step.
func TestABFailedStepExitsOne(t *testing.T) {
	serverTestEnv(t)
	good := loadFaultServer(t, func(int64) (int, string, string) { return 0, "", "" })
	bad := loadFaultServer(t, func(int64) (int, string, string) { return 500, "server_error", "boom" })
	out := t.TempDir()
	code, stdout, stderr := runCLI("ab", "--out", out, "--no-report", "--repeat", "2",
		"--a", "--server "+good, "--b", "--server "+bad, "--", "ttft")
	t.Logf("%s%s", stdout, stderr)
	want := "set-up B: step ttft failed (" + invokedAs() + " check " + filepath.Join(out, "B") + " says why)"
	if code != 1 || !strings.Contains(stderr, want) || strings.Contains(stderr, "set-up A") {
		t.Fatalf("exit %d, want 1 and %q alone", code, want)
	}
	var ttft struct {
		Runs []any `json:"runs"`
	}
	readJSON(t, filepath.Join(out, "A", "ttft.json"), &ttft)
	if len(ttft.Runs) != 2 {
		t.Errorf("A's ttft.json has %d runs, want 2", len(ttft.Runs))
	}
	if code, _, _ := runCLI("check", filepath.Join(out, "A")); code != 0 {
		t.Errorf("check A: exit %d", code)
	}
}

// chatProxy serves a proxy of the server at target that holds each chat
// request back for delay, then streams its answer as it comes; done, when
// set, is told when each chat request started and ended.
func chatProxy(t *testing.T, target string, delay time.Duration, done func(start, end time.Time)) string {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	p := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost || !strings.HasSuffix(r.URL.Path, "/chat/completions") {
			rp.ServeHTTP(w, r)
			return
		}
		start := time.Now()
		time.Sleep(delay)
		rp.ServeHTTP(w, r)
		if done != nil {
			done(start, time.Now())
		}
	}))
	t.Cleanup(p.Close)
	return p.URL
}

// TestABUntilDecided: B's server answers 80 ms later than A's (a proxy
// holds its requests back), and two repetitions a run are too few for a
// verdict: --until-decided adds runs of the ttft step, taking turns, until
// B is decided slower, and stops there, well within its budget. With a
// budget that allows one round, an A/A comparison stops after it, saying
// what was not decided.
func TestABUntilDecided(t *testing.T) {
	srv := startLlama(t)
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	fast, slow := chatProxy(t, srv.URL, 0, nil), chatProxy(t, srv.URL, 80*time.Millisecond, nil)
	out := t.TempDir()
	code, stdout, stderr := runCLI("ab", "--out", out, "--repeat", "2", "--no-report", "--until-decided", "--budget", "30",
		"--a", "--server "+fast, "--b", "--server "+slow, "--", "ttft")
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	var cmp artifact.Compare
	readJSON(t, filepath.Join(out, artifact.CompareFile), &cmp)
	for _, f := range cmp.Figures {
		if f.Verdict != "slower" {
			t.Errorf("%s: %s, want slower", f.Name, f.Verdict)
		}
	}
	if cmp.RunsA < 2 || cmp.RunsA > 15 || cmp.RunsB != cmp.RunsA {
		t.Errorf("runs %d of A, %d of B: want the lab and at least one round, stopped before the budget's 15 rounds", cmp.RunsA, cmp.RunsB)
	}
	if !strings.Contains(stderr, "every figure decided after "+itoa(cmp.RunsA-1)+" round(s) beyond the lab") {
		t.Error("stderr does not say every figure was decided")
	}
	for _, side := range []string{"A", "B"} {
		if code, stdout, _ := runCLI("check", filepath.Join(out, side)); code != 0 {
			t.Errorf("check %s: exit %d\n%s", side, code, stdout)
		}
	}

	out = t.TempDir()
	code, stdout, stderr = runCLI("ab", "--out", out, "--repeat", "2", "--no-report", "--until-decided", "--budget", "3",
		"--a", "--server "+fast, "--b", "--server "+fast, "--", "ttft")
	t.Logf("stdout:\n%s\nstderr:\n%s", stdout, stderr)
	want := "not decided after 1 round(s) beyond the lab (the budget of 3 repetitions a side beyond the lab is spent: 2 used):\n  ttft_ms: too few samples"
	if code != 0 || !strings.Contains(stderr, want) {
		t.Fatalf("exit %d, want 0 and %q", code, want)
	}
	if _, err := os.Stat(filepath.Join(out, "A", "run-2", "ttft.json")); err != nil {
		t.Fatal(err)
	}
}

// TestABUndecidedFigures: a round is for a figure with too few samples,
// or no difference detected with fewer runs than would detect 5 % (or no
// count of them); not for a decided one, nor for one that is 0 in every
// sample of both (B is A exactly).
func TestABUndecidedFigures(t *testing.T) {
	n := func(v int) *int { return &v }
	c := &artifact.Compare{RunsA: 2, RunsB: 2, Figures: []artifact.CompareFigure{
		{Name: "few", Verdict: "too few samples"},
		{Name: "underpowered", Verdict: "no difference detected", RunsFor5Pct: n(9)},
		{Name: "unknown power", Verdict: "no difference detected"},
		{Name: "powered", Verdict: "no difference detected", RunsFor5Pct: n(2)},
		{Name: "slower", Verdict: "slower", RunsFor5Pct: n(40)},
		{Name: "stall", Verdict: "no difference detected", AllZero: true},
	}}
	var got []string
	for _, f := range undecided(c) {
		got = append(got, f.Name)
	}
	if strings.Join(got, ",") != "few,underpowered,unknown power" {
		t.Errorf("undecided %v, want few, underpowered, unknown power", got)
	}
}

// TestABSideFlagsHideKeys: a set-up's flags quoted in an error never show
// its API key nor a secret header's value, split or not, as the key is
// shown nowhere else; a header that is no secret is shown as typed.
func TestABSideFlagsHideKeys(t *testing.T) {
	for _, b := range []string{
		"--api-key sk-live-123 --kb 'x",
		"--api-key=sk-live-123 --out y",
		`--header "Authorization: Bearer sk-live-123" --kb 'x`,
		"--api-key 'sk-live-123' --bogus",
	} {
		code, stdout, stderr := runCLI("ab", "--b", b, "--", "ttft")
		if code != 2 || strings.Contains(stdout+stderr, "sk-live-123") || !strings.Contains(stderr, "[redacted]") {
			t.Errorf("--b %q: exit %d, output %q: want a usage error with the key redacted", b, code, stdout+stderr)
		}
	}
	if got := shownWords("--header 'X-Team: voice' --api-key k"); got != "--header 'X-Team: voice' --api-key [redacted]" {
		t.Errorf("shownWords: %q", got)
	}
}
