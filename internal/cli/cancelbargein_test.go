package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"path/filepath"
	"sort"
	"strings"
	"sync/atomic"
	"testing"

	"ttftlab/internal/artifact"
)

// TestCancelAndBargeinRepeat runs the cancel and barge-in steps with
// --repeat 3 against the real llama-server, behind a front that drops the
// first /slots request after each step's first sure cut (cancel: an
// attempt with more than its first 256 tokens; barge-in: its interrupted
// answer): that repetition has no time for the slot going idle, so each
// step sets it aside saying why, measures again, and writes 3 valid runs,
// the first at the top level; check passes the folder, and report.json
// holds the runs' medians.
func TestCancelAndBargeinRepeat(t *testing.T) {
	srv := startLlama(t)
	var cancelCut, bargeinCut, dropSlots atomic.Bool
	front := frontOfLlama(t, srv, func(w http.ResponseWriter, r *http.Request, body []byte) bool {
		if r.URL.Path == "/slots" && dropSlots.CompareAndSwap(true, false) {
			hangUp(w)
			return true
		}
		switch {
		case !bytes.Contains(body, []byte("List the numbers")):
		case bytes.Contains(body, []byte(`"max_tokens":1000`)):
			if bargeinCut.CompareAndSwap(false, true) {
				dropSlots.Store(true)
			}
		case !bytes.Contains(body, []byte(`"max_tokens":256`)):
			if cancelCut.CompareAndSwap(false, true) {
				dropSlots.Store(true)
			}
		}
		return false
	})
	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", front.URL, "--out", out, "--server-log", srv.LogPath, "--no-report",
		"--repeat", "3", "--", "cancel", "bargein")
	t.Logf("lab output:\n%s%s", stdout, stderr)
	if code != 0 || !strings.Contains(stdout, "(medians of 3 runs, 1 set aside)") {
		t.Fatalf("lab exited %d; want both steps passed, each saying its medians and the repetition set aside", code)
	}

	const noState = "the server showed no state after the cut (/slots"
	var cancel artifact.Cancel
	readJSON(t, filepath.Join(out, "cancel.json"), &cancel)
	var bargein artifact.Bargein
	readJSON(t, filepath.Join(out, "bargein.json"), &bargein)
	for _, f := range []struct {
		name      string
		repeat    int
		runs      int
		discarded []json.RawMessage
	}{{"cancel.json", cancel.Repeat, len(cancel.Runs), cancel.Discarded},
		{"bargein.json", bargein.Repeat, len(bargein.Runs), bargein.Discarded}} {
		if f.repeat != 3 || f.runs != 3 {
			t.Errorf("%s: repeat %d, %d runs; want 3 and 3", f.name, f.repeat, f.runs)
		}
		wantDiscarded(t, f.name, f.discarded, 1, noState)
	}
	for i, r := range cancel.Runs {
		if r.SlotIdleAfterMs == nil || len(r.Attempts) == 0 || !(r.ReceivedTokens >= 1 && r.ReceivedTokens < r.MaxTokens) {
			t.Errorf("cancel.json runs[%d]: %+v, want a cut with its idle time and attempts", i, r)
		}
	}
	requireCheckPasses(t, out, srv.LogPath)

	// The report, run alone on the folder, copies the runs' medians.
	if code, stdout, stderr := runCLI("run", "../../scripts/13_report.lua", "--server", front.URL, "--out", out); code != 0 {
		t.Fatalf("the report step exited %d:\n%s%s", code, stdout, stderr)
	}
	var report artifact.Report
	readJSON(t, filepath.Join(out, "report.json"), &report)
	idle := make([]float64, len(cancel.Runs))
	for i, r := range cancel.Runs {
		idle[i] = *r.SlotIdleAfterMs
	}
	cold := make([]float64, len(bargein.Runs))
	for i, r := range bargein.Runs {
		cold[i] = r.Cold.TTFTMs
	}
	if report.CancelIdleMs == nil || *report.CancelIdleMs != oddMedian(idle) ||
		report.BargeinColdTTFTMs == nil || *report.BargeinColdTTFTMs != oddMedian(cold) {
		t.Errorf("report.json cancel_idle_ms %v, bargein_cold_ttft_ms %v; want the medians of %v and %v",
			report.CancelIdleMs, report.BargeinColdTTFTMs, idle, cold)
	}
	requireCheckPasses(t, out, srv.LogPath)
}

// oddMedian is the middle value of an odd count.
func oddMedian(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}
