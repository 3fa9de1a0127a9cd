package cli

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

type calibrateJSON struct {
	Schedules []struct {
		Name    string `json:"name"`
		Clients []struct {
			Client     string `json:"client"`
			Received   int    `json:"received"`
			Expected   int    `json:"expected"`
			Failure    string `json:"failure"`
			StampError struct {
				N   int     `json:"n"`
				P50 float64 `json:"p50_us"`
			} `json:"stamp_error"`
		} `json:"clients"`
	} `json:"schedules"`
}

// calibrateCLI runs `ttftlab calibrate` with a JSON report in a temporary
// folder and returns the report and the table.
func calibrateCLI(t *testing.T, args ...string) (calibrateJSON, string) {
	t.Helper()
	dir := t.TempDir()
	out := filepath.Join(dir, "cal.json")
	code, stdout, stderr := runCLI(append([]string{"calibrate", "--out", out, "--stamps", filepath.Join(dir, "stamps.tsv")}, args...)...)
	if code != 0 {
		t.Fatalf("ttftlab calibrate exited %d:\n%s%s", code, stdout, stderr)
	}
	var rep calibrateJSON
	readJSON(t, out, &rep)
	stamps, err := os.ReadFile(filepath.Join(dir, "stamps.tsv"))
	if err != nil || !strings.Contains(string(stamps), "# request 1: ") {
		t.Errorf("send stamps file: %v\n%.300s", err, stamps)
	}
	return rep, stdout
}

func TestCalibrateInProcess(t *testing.T) {
	rep, table := calibrateCLI(t, "--in-process", "--rate", "400", "--chunks", "40")
	calibrateOutputHas(t, table, "steady 400/s", "ttftlab", "40/40", "(server late)")
	c := rep.Schedules[0].Clients[0]
	if c.Client != "ttftlab" || c.Received != 40 || c.Failure != "" || c.StampError.N != 40 {
		t.Errorf("result %+v", c)
	}
}

// The default server runs as a child process (the test binary acts as
// ttftlab through TestMain), here compared with the Python client.
func TestCalibrateChildServerWithPython(t *testing.T) {
	t.Setenv("TTFTLAB_AS_MAIN", "1")
	args := []string{"--rate", "500", "--chunks", "50", "--burst", "--burst-size", "10"}
	if _, err := exec.LookPath("python3"); err == nil {
		args = append(args, "--client", "python=python3 ../bench/pyclient.py")
	}
	rep, table := calibrateCLI(t, args...)
	calibrateOutputHas(t, table, "burst 10 x 50/s")
	for _, c := range rep.Schedules[0].Clients {
		if c.Received != 50 || c.Failure != "" {
			t.Errorf("%s: %d of 50 chunks: %s", c.Client, c.Received, c.Failure)
		}
	}
}

func TestCalibrateRejectsBadSchedules(t *testing.T) {
	for _, args := range [][]string{
		{"calibrate", "--burst", "--burst-size", "0"},
		{"calibrate", "--rate", "-5"},
		{"calibrate", "extra"},
	} {
		if code, _, stderr := runCLI(args...); code != 2 {
			t.Errorf("%q: exit %d, want 2 (%s)", args, code, stderr)
		}
	}
}

func calibrateOutputHas(t *testing.T, s string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(s, w) {
			t.Errorf("output lacks %q:\n%s", w, s)
		}
	}
}
