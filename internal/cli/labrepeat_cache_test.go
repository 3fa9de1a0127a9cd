package cli

import (
	"bytes"
	"net/http"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"

	"ttftlab/internal/artifact"
	"ttftlab/internal/rundir"
)

// TestLabCacheAndPrefixRepeat runs the cache and prefix steps with
// --repeat 3 against the real llama-server, through a front that makes
// each step's first attempt invalid the way a server's cache can: before
// it passes on the cache step's first cold request, and the prefix step's
// first timed one, it sends that very request to the server once, so the
// server finds the prompt cached. Each step must set that attempt aside
// saying why, measure again, and write 3 valid runs, the first at its top
// level; check passes the folder and the figures take a value from every
// run.
func TestLabCacheAndPrefixRepeat(t *testing.T) {
	srv := startLlama(t)
	var mu sync.Mutex
	warmed := map[string]bool{}
	front := frontOfLlama(t, srv, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		which := ""
		switch {
		case bytes.Contains(body, []byte("Call ")) && !bytes.Contains(body, []byte("Current time")):
			which = "cache first"
		case bytes.Contains(body, []byte("Current time: 14:05.")) && !bytes.Contains(body, []byte("Call ")):
			which = "prefix front"
		}
		mu.Lock()
		warm := which != "" && !warmed[which]
		warmed[which] = true
		mu.Unlock()
		if warm {
			askLlama(t, srv, r, body)
		}
		return false
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", front.URL, "--out", out, "--no-report", "--repeat", "3", "--", "cache", "prefix")
	t.Logf("lab output:\n%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("lab -- cache prefix exited %d", code)
	}
	requireCheckPasses(t, out, srv.LogPath)

	var cache artifact.Cache
	readJSON(t, filepath.Join(out, "cache.json"), &cache)
	if cache.Repeat != 3 || len(cache.Runs) != 3 {
		t.Fatalf("cache.json repeat %d with %d runs, want 3 and 3", cache.Repeat, len(cache.Runs))
	}
	if top := (artifact.CacheRun{First: cache.First, Second: cache.Second, ChangedPrefix: cache.ChangedPrefix}); !reflect.DeepEqual(top, cache.Runs[0]) {
		t.Errorf("cache.json's top level %+v is not its first run %+v", top, cache.Runs[0])
	}
	for i, r := range cache.Runs {
		if total := r.First.PromptN + r.First.Cached(); r.First.Cached()*10 > total || r.Second.PromptN*10 > r.First.PromptN {
			t.Errorf("cache.json runs[%d]: first found %v of %v tokens cached, second evaluated %v: not a cold request and its hit",
				i, r.First.Cached(), total, r.Second.PromptN)
		}
	}
	wantDiscarded(t, "cache.json", cache.Discarded, 1, "it was not cold")

	var prefix artifact.Prefix
	readJSON(t, filepath.Join(out, "prefix.json"), &prefix)
	if prefix.Repeat != 3 || len(prefix.Runs) != 3 {
		t.Fatalf("prefix.json repeat %d with %d runs, want 3 and 3", prefix.Repeat, len(prefix.Runs))
	}
	if !reflect.DeepEqual(prefix.Positions, prefix.Runs[0].Positions) || prefix.ChangingLine != prefix.Runs[0].ChangingLine {
		t.Errorf("prefix.json's top level is not its first run")
	}
	// The first attempt (14:04, 14:05) was set aside: the runs are the
	// next three.
	for i, want := range []string{"Current time: 14:07.", "Current time: 14:09.", "Current time: 14:11."} {
		if got := prefix.Runs[i].ChangingLine; got != want {
			t.Errorf("prefix.json runs[%d].changing_line %q, want %q", i, got, want)
		}
	}
	wantDiscarded(t, "prefix.json", prefix.Discarded, 1, "held this very prompt")

	lab := rundir.ReadLab(out, "")
	n := map[string]int{}
	for _, s := range lab.Samples() {
		n[s.Name] = len(s.Values)
	}
	for _, name := range []string{"cache first ttft_ms", "cache hit ttft_ms", "cache changed first line ttft_ms",
		"prefix front ttft_ms", "prefix before_question ttft_ms"} {
		if n[name] != 3 {
			t.Errorf("figure %s has %d values, want one from each of the 3 runs", name, n[name])
		}
	}
	if !strings.Contains(stdout, "medians of 3 runs, 1 set aside") {
		t.Errorf("the steps' lines do not say their runs and what was set aside:\n%s", stdout)
	}
	if _, err := os.Stat(filepath.Join(out, "report.json")); err == nil {
		t.Errorf("a lab of two steps wrote report.json")
	}
}
