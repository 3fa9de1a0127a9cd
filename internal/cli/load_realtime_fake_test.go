package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"ttftlab/internal/artifact"
	"ttftlab/internal/realtime/realtimetest"
)

// realtimeRows reads a load folder's rows.
func realtimeRows(t *testing.T, out string) []artifact.LoadRequest {
	t.Helper()
	rows, err := loadRows(filepath.Join(out, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

// TestLoadRealtimeSessions: load --realtime against the fake Realtime
// server, one session at a time and 8 at once, 2 turns each: no LLM
// server is asked for or started, every session reaches the fake, every
// turn is a row (turns 1 and 2 of each call) and counted in the level,
// whose mouth_to_ear_ms distribution is over every turn (n = the
// turns) and whose SLO on it is judged over them; the CSV has a line a
// turn.
func TestLoadRealtimeSessions(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ at, sessions int }{{1, 2}, {8, 8}} {
		fake := &realtimetest.Server{Deltas: 3}
		url := fake.Start(t)
		out := t.TempDir()
		code, stdout, stderr := runCLI("load", "--realtime", url, "--concurrency", itoa(c.at), "--requests", itoa(c.sessions),
			"--turns", "2", "--out", out, "--no-report", "--slo", "mouth_to_ear_ms<=60000@p95", "--realtime-api-key", "sk-realtime-secret")
		t.Logf("%s%s", stdout, stderr)
		if code != 0 {
			t.Fatalf("%d at once: exit %d", c.at, code)
		}
		if strings.Contains(stdout+stderr, "llama-server") {
			t.Errorf("%d at once: an LLM server was started", c.at)
		}
		turns := 2 * c.sessions
		if got := fake.Sessions(); len(got) != c.sessions || got[0].Auth != "Bearer sk-realtime-secret" {
			t.Errorf("%d at once: the fake held %d sessions, want %d, each with the key", c.at, len(got), c.sessions)
		}
		if !strings.Contains(stderr, "realtime: API key from --realtime-api-key") || strings.Contains(stdout+stderr, "sk-realtime-secret") {
			t.Errorf("%d at once: the key's source not said, or the key shown", c.at)
		}
		for _, f := range []string{"load.json", "requests.jsonl", "requests.csv"} {
			if data, _ := os.ReadFile(filepath.Join(out, f)); strings.Contains(string(data), "sk-realtime-secret") {
				t.Errorf("%d at once: the key is in %s", c.at, f)
			}
		}
		doc := strictLoad(t, out)
		if len(doc.Levels) != 1 || doc.Settings.Realtime == nil || doc.Settings.ServerKind != "realtime" || doc.Model != nil {
			t.Fatalf("%d at once: load.json %+v", c.at, doc.Settings)
		}
		lv := doc.Levels[0]
		s := lv.Summary
		if s.Requests != turns || s.OK != turns || s.Calls != c.sessions {
			t.Errorf("%d at once: %d turns (%d ok) of %d sessions, want %d of %d", c.at, s.Requests, s.OK, s.Calls, turns, c.sessions)
		}
		if s.MouthToEarMs == nil || s.MouthToEarMs.N != turns || s.MouthToEarMs.P50 == nil || *s.MouthToEarMs.P50 <= 0 {
			t.Errorf("%d at once: mouth_to_ear_ms %+v, want over the %d turns", c.at, s.MouthToEarMs, turns)
		}
		if len(lv.SLO) != 1 || lv.SLO[0].Metric != "mouth_to_ear_ms" || lv.SLO[0].N != turns || lv.SLO[0].ValueMs == nil || !lv.SLO[0].Met {
			t.Errorf("%d at once: SLO %+v, want mouth_to_ear_ms judged over %d turns and met", c.at, lv.SLO, turns)
		}
		seen := map[[2]int]bool{}
		for _, r := range realtimeRows(t, out) {
			seen[[2]int{r.Call, r.Turn}] = true
			if r.MouthToEarMs == nil || r.FirstAudioMs == nil || r.ErrorKind != nil || r.TTFTMs != nil {
				t.Errorf("%d at once: row %+v", c.at, r.Request)
			}
			if (r.Turn == 1) != (r.ScheduledMs != nil) {
				t.Errorf("%d at once: call %d turn %d scheduled_ms %v, want on a session's first turn only", c.at, r.Call, r.Turn, r.ScheduledMs)
			}
		}
		for call := 1; call <= c.sessions; call++ {
			if !seen[[2]int{call, 1}] || !seen[[2]int{call, 2}] || len(seen) != turns {
				t.Errorf("%d at once: rows of (call, turn) %v, want turns 1 and 2 of each of %d calls", c.at, seen, c.sessions)
				break
			}
		}
		csv, err := os.ReadFile(filepath.Join(out, "requests.csv"))
		if err != nil || strings.Count(string(csv), "\r\n") != turns+1 {
			t.Errorf("%d at once: requests.csv has %d lines, want a header and %d: %v", c.at, strings.Count(string(csv), "\r\n"), turns, err)
		}
		if _, err := os.Stat(filepath.Join(out, "server.jsonl")); err == nil {
			t.Errorf("%d at once: a server.jsonl, of no LLM server", c.at)
		}
	}
}

// TestLoadRealtimeBargeIn: with --realtime-barge-after every turn but a
// session's last barges in, and its row keeps the audio the server sent
// after the cancel (the fake's 400 ms, counted from the bytes).
func TestLoadRealtimeBargeIn(t *testing.T) {
	t.Parallel()
	fake := &realtimetest.Server{Deltas: 10, AfterCancelMs: 400}
	url := fake.Start(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--realtime", url, "--concurrency", "1", "--requests", "1", "--turns", "2",
		"--realtime-barge-after", "200ms", "--out", out, "--no-report")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	rows := realtimeRows(t, out)
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		switch {
		case r.Turn == 1 && (r.AudioAfterCancelMs == nil || *r.AudioAfterCancelMs != 400):
			t.Errorf("the barged-in turn's audio_after_cancel_ms %v, want the fake's 400", r.AudioAfterCancelMs)
		case r.Turn == 2 && r.AudioAfterCancelMs != nil:
			t.Errorf("the last turn has audio after a cancel: %v", *r.AudioAfterCancelMs)
		}
	}
	if d := strictLoad(t, out).Settings.Realtime; d == nil || d.BargeAfterMs == nil || *d.BargeAfterMs != 200 {
		t.Errorf("settings.realtime %+v, want barge_after_ms 200", d)
	}
}

// TestLoadRealtimeSearch: --search on sessions at once, against fakes
// whose answer comes later the more sessions are in flight (300 ms more
// a session): one session at a time keeps mouth to ear under 700 ms, two
// at once do not, and the search's capacity is 1 after trying 2.
func TestLoadRealtimeSearch(t *testing.T) {
	t.Parallel()
	fakes := make([]*realtimetest.Server, 4)
	for i := range fakes {
		fakes[i] = &realtimetest.Server{Deltas: 2, Delay: time.Duration(i+1) * 300 * time.Millisecond}
	}
	var inFlight atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := int(inFlight.Add(1))
		defer inFlight.Add(-1)
		fakes[min(n, len(fakes))-1].ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--realtime", srv.URL, "--search", "--search-max", "4", "--requests", "2",
		"--search-budget", "2", "--slo", "mouth_to_ear_ms<=700@p95", "--out", out, "--no-report")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	c := strictLoad(t, out).Capacity
	if c == nil || c.Level != 1 || c.Next == nil || c.Next.Level != 2 {
		t.Fatalf("capacity %+v, want 1, with 2 the level above", c)
	}
}

// TestLoadRealtimeFailures: a server that answers every session's second
// utterance with an error event fails that turn of its kind, which ends
// the session; the first turns stay measured, the level counts the
// failures by kind, and the run goes on to its end (exit 0: not every
// turn failed).
func TestLoadRealtimeFailures(t *testing.T) {
	t.Parallel()
	fake := &realtimetest.Server{Deltas: 2, ErrorOn: 2, ErrorMsg: "the model is overloaded", StopAfterMs: 700}
	url := fake.Start(t)
	out := t.TempDir()
	code, stdout, stderr := runCLI("load", "--realtime", url, "--concurrency", "2", "--requests", "2", "--turns", "3", "--out", out, "--no-report")
	t.Logf("%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	s := strictLoad(t, out).Levels[0].Summary
	if s.Requests != 4 || s.Failed != 2 || len(s.Failures) != 1 || s.Failures[0].Kind != "realtime_error" || s.Failures[0].N != 2 ||
		!strings.Contains(s.Failures[0].Example, "the model is overloaded") {
		t.Errorf("turns %d, failed %d, failures %+v: want 4 turns (two a session, the second failed), 2 realtime_error", s.Requests, s.Failed, s.Failures)
	}
	if s.MouthToEarMs == nil || s.MouthToEarMs.N != 2 {
		t.Errorf("mouth_to_ear_ms %+v, want over the 2 first turns", s.MouthToEarMs)
	}
	for _, r := range realtimeRows(t, out) {
		if (r.Turn == 2) != (r.ErrorKind != nil) {
			t.Errorf("call %d turn %d: error %v, want the second turn's alone", r.Call, r.Turn, r.ErrorKind)
		}
	}
}
