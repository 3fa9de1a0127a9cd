package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/load"
)

// stepServer is llama-server as `ttftlab load` sees it, whose first token
// is a step function of concurrency: it serves k streams at once, and a
// request that arrives when more than k have been in flight within the
// window (and the server has not been idle since) waits as if queued
// behind a whole answer (queued) before its first token; one that is served starts in served. An answer lasts
// queued after its first token. A request stops counting as in flight
// before its last bytes are written, so a closed loop of k calls never
// shows the server k+1.
type stepServer struct {
	k              int
	served, queued time.Duration
	window         time.Duration

	mu       sync.Mutex
	inFlight int
	// crowdedUntil is when the count last fell back to k (zero before it
	// ever rose above k).
	crowdedUntil time.Time
}

// arrive counts a request in and says whether it must wait: more than k
// in flight now, or within the window since there last were.
func (s *stepServer) arrive() (crowded bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inFlight++
	return s.inFlight > s.k || (!s.crowdedUntil.IsZero() && time.Since(s.crowdedUntil) <= s.window)
}

func (s *stepServer) leave() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.inFlight == s.k+1 {
		s.crowdedUntil = time.Now()
	}
	s.inFlight--
	if s.inFlight == 0 {
		s.crowdedUntil = time.Time{} // idle: the queue has drained
	}
}

func (s *stepServer) start(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			io.WriteString(w, `{"status":"ok"}`)
		case "/props":
			io.WriteString(w, `{"default_generation_settings":{"n_ctx":4096},"total_slots":8,"model_path":"/models/step.gguf","build_info":"b1-step"}`)
		case "/slots":
			io.WriteString(w, `[]`)
		case "/v1/chat/completions":
			io.ReadAll(r.Body)
			wait := s.served
			left := false
			leave := func() {
				if !left {
					left = true
					s.leave()
				}
			}
			defer leave()
			if s.arrive() {
				wait = s.queued
			}
			w.Header().Set("Content-Type", "text/event-stream")
			send := func(piece string) {
				io.WriteString(w, piece)
				w.(http.Flusher).Flush()
			}
			chunk := func(text string) string {
				q, _ := json.Marshal(text)
				return `data: {"choices":[{"delta":{"content":` + string(q) + `},"finish_reason":null,"index":0}],"object":"chat.completion.chunk"}` + "\n\n"
			}
			time.Sleep(wait)
			send(chunk("Yes, we open on Saturday."))
			time.Sleep(s.queued)
			leave()
			send(chunk(" Bye.") + `data: {"choices":[{"delta":{},"finish_reason":"stop","index":0}]}` + "\n\n" + "data: [DONE]\n\n")
		default:
			w.WriteHeader(http.StatusNotImplemented)
			io.WriteString(w, `{"error":{"code":501,"message":"not supported","type":"not_supported_error"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestLoadSearchFindsK: against a server that serves 5 streams at once
// and makes the rest wait a whole answer (300 ms against 5 ms), with the
// SLO ttft_ms<=150@p50 between the two, --search finds 5 exactly by the
// path 1, 2, 4, 8 (missed), 6 (missed), 5; load.json holds the capacity
// and the path strictly; --fail-below 5 passes and --fail-below 6 exits 3.
// --warmup 6 leaves out each level's first wave, which a closed loop of 6
// calls starts at once and this server serves 5 of at once: with it the
// intervals decide every level on its first round (without it, see
// TestLoadSearchUndecided).
func TestLoadSearchFindsK(t *testing.T) {
	serverTestEnv(t)
	s := &stepServer{k: 5, served: 5 * time.Millisecond, queued: 300 * time.Millisecond, window: 100 * time.Millisecond}
	url := s.start(t)
	run := func(extra ...string) (int, string, artifact.Load) {
		out := t.TempDir()
		args := append([]string{"load", "--server", url, "--search", "--search-max", "16", "--requests", "16", "--warmup", "6", "--docs", "0",
			"--out", out, "--no-report", "--slo", "ttft_ms<=150@p50"}, extra...)
		code, stdout, stderr := runCLI(args...)
		t.Logf("%s%s", stdout, stderr)
		return code, stdout + stderr, strictLoad(t, out)
	}
	code, text, doc := run("--fail-below", "5")
	if code != 0 {
		t.Fatalf("exit %d with --fail-below 5, want 0", code)
	}
	if doc.Capacity == nil || doc.Capacity.Level != 5 || doc.Capacity.Decided == nil || !*doc.Capacity.Decided || doc.Capacity.Between != nil {
		t.Fatalf("capacity %+v, want 5, decided", doc.Capacity)
	}
	var path []string
	for _, st := range doc.Capacity.Search {
		path = append(path, fmt.Sprintf("%g:%v", st.Level, st.Met))
		if st.ValueMs == nil {
			t.Errorf("level %g has no value", st.Level)
		} else if held := *st.ValueMs <= 150; held != st.Met {
			t.Errorf("level %g: value %g ms, met %v: the verdict disagrees with its value", st.Level, *st.ValueMs, st.Met)
		}
	}
	if want := []string{"1:true", "2:true", "4:true", "8:false", "6:false", "5:true"}; !reflect.DeepEqual(path, want) {
		t.Errorf("search path %v, want %v", path, want)
	}
	if doc.Capacity.Next == nil || doc.Capacity.Next.Level != 6 {
		t.Errorf("next %+v, want level 6", doc.Capacity.Next)
	}
	if doc.Settings.SearchMax != 16 || !reflect.DeepEqual(doc.Settings.Levels, []float64{1, 2, 4, 8, 6, 5}) {
		t.Errorf("settings: search_max %d, levels %v", doc.Settings.SearchMax, doc.Settings.Levels)
	}
	for i, lv := range doc.Levels {
		if i > 0 && lv.Level <= doc.Levels[i-1].Level {
			t.Errorf("levels not in order: %g after %g", lv.Level, doc.Levels[i-1].Level)
		}
	}
	if !strings.Contains(text, "capacity: 5 calls at once") || !strings.Contains(text, "search: 1 held, 2 held, 4 held, 8 missed, 6 missed, 5 held") {
		t.Errorf("the console does not give the capacity and the search")
	}

	code, text, doc = run("--fail-below", "6")
	if code != 3 || doc.Capacity == nil || doc.Capacity.Level != 5 || !strings.Contains(text, "below --fail-below 6") {
		t.Errorf("--fail-below 6: exit %d, capacity %+v, want exit 3 naming the gate", code, doc.Capacity)
	}
}

// TestLoadSearchFlags: --search takes no --concurrency, one --rate (the
// rate it starts from) no higher than --search-max, a --search-budget no
// lower than --requests, and none that leaves a last round of warm-up
// alone.
func TestLoadSearchFlags(t *testing.T) {
	serverTestEnv(t)
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
	serverTestEnv(t)
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

// TestLoadSearchUndecidedAtTheTop: on the real llama-server, every level
// holds up to --search-max 2 but 4 requests cannot bound a p50 and the
// budget allows no more: the capacity is undecided at 2 with nothing
// above it tried, which the console says of that one level (it printed
// "capacity between 2 and ?"), and load.json's between is [2].
func TestLoadSearchUndecidedAtTheTop(t *testing.T) {
	_, model := needLlama(t)
	port := serverTestEnv(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--server", "http://127.0.0.1:"+itoa(port), "--model", model,
		"--search", "--search-max", "2", "--requests", "4", "--search-budget", "4", "--max-tokens", "8", "--docs", "0",
		"--out", out, "--no-report", "--slo", "ttft_ms<=60000@p50")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	c := strictLoad(t, out).Capacity
	if c == nil || c.Decided == nil || *c.Decided || len(c.Between) != 1 || c.Between[0] != 2 || c.Level != 2 {
		t.Fatalf("capacity %+v: want undecided at 2, between [2]", c)
	}
	want := "capacity undecided at 2 calls at once, the largest level (--search-max): at 2: ttft_ms p50 "
	if !strings.Contains(stdout, want) || strings.Contains(stdout, "and ?") {
		t.Errorf("the console lacks %q", want)
	}
}
