package report

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/report/reporttest"
)

// The report is tested on runs ttftlab made: a lab run against the real
// llama-server with the test model, and a load run of ttftlab's load
// script against a fake llama-server (reporttest says what the fake does).
// Each is made once per test binary, on first use, into a folder removed
// when the tests end; a test that changes a run works on a copy
// (copyDir). Nothing here is written by hand but testdata/future.json, a
// file no lab step writes, kept to test how the page lists one, and the
// realtime step's realtime.json (lab_realtime_test.go), written with
// artifact's types: its turns' stamps are set so each figure and mark is
// known.
var runsRoot string

type madeRun struct {
	once sync.Once
	dir  string
	ok   bool
}

var labMade, loadMade madeRun

// made returns the folder of run, making it with gen on first use. A test
// after a failed or skipped making skips too: the first one says why.
func (r *madeRun) made(t *testing.T, name string, gen func(testing.TB, string)) string {
	t.Helper()
	r.once.Do(func() {
		r.dir = filepath.Join(runsRoot, name)
		gen(t, r.dir)
		r.ok = true
	})
	if !r.ok {
		t.Skipf("no %s run: the first test that asked for one says why", name)
	}
	return r.dir
}

// labRun is the folder of a whole lab run of the test model.
func labRun(t *testing.T) string { return labMade.made(t, "lab", reporttest.Lab) }

// loadRun is the folder of a load run at 1, 2, 4 and 8 calls at once.
func loadRun(t *testing.T) string { return loadMade.made(t, "load", reporttest.Load) }

func TestMain(m *testing.M) {
	root, err := os.MkdirTemp("", "ttftlab-report-runs-")
	if err != nil {
		panic(err)
	}
	runsRoot = root
	code := m.Run()
	os.RemoveAll(root)
	llamatest.Report()
	os.Exit(code)
}
