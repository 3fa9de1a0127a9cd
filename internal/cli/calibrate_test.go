package cli

import (
	"bufio"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
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
// ttftlab through TestMain), here compared with the Python client, which
// is left out where python3 is missing unless TTFTLAB_REQUIRE_PYTHON is
// set (as in CI): then that fails.
func TestCalibrateChildServerWithPython(t *testing.T) {
	t.Setenv("TTFTLAB_AS_MAIN", "1")
	args := []string{"--rate", "500", "--chunks", "50", "--burst", "--burst-size", "10"}
	if _, err := exec.LookPath("python3"); err == nil {
		args = append(args, "--client", "python=python3 ../bench/pyclient.py")
	} else if os.Getenv("TTFTLAB_REQUIRE_PYTHON") != "" {
		t.Fatal("python3 is not installed (TTFTLAB_REQUIRE_PYTHON is set); install it with apt-get install -y python3")
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

// startContended runs `ttftlab calibrate --contend 2` as a child process
// and returns it with the spinners' pids, read from its progress output.
func startContended(t *testing.T) (*exec.Cmd, []int) {
	t.Helper()
	cmd := exec.Command(os.Args[0], "calibrate", "--contend", "2", "--in-process", "--rate", "100", "--chunks", "3000",
		"--out", filepath.Join(t.TempDir(), "cal.json"))
	cmd.Env = append(os.Environ(), "TTFTLAB_AS_MAIN=1")
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	lines := bufio.NewScanner(stderr)
	for lines.Scan() {
		if _, rest, ok := strings.Cut(lines.Text(), "pids ["); ok {
			go io.Copy(io.Discard, stderr)
			var pids []int
			for _, f := range strings.Fields(strings.TrimSuffix(rest, "]")) {
				pid, err := strconv.Atoi(f)
				if err != nil {
					t.Fatal(err)
				}
				pids = append(pids, pid)
			}
			t.Cleanup(func() {
				for _, pid := range pids {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			})
			return cmd, pids
		}
	}
	t.Fatal("calibrate never named its spinners")
	return nil, nil
}

// spinnersGone waits a moment for the spinners to be gone.
func spinnersGone(t *testing.T, pids []int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for _, pid := range pids {
		for llamaserver.ProcessRuns(pid, "sh") {
			if time.Now().After(deadline) {
				t.Fatalf("spinner %d still runs", pid)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
}

// Ctrl-C stops calibrate --contend, and its spinners with it.
func TestCalibrateContendCtrlC(t *testing.T) {
	cmd, pids := startContended(t)
	if len(pids) != 2 {
		t.Fatalf("pids %v", pids)
	}
	for _, pid := range pids {
		if !llamaserver.ProcessRuns(pid, "sh") {
			t.Fatalf("spinner %d does not run", pid)
		}
	}
	cmd.Process.Signal(syscall.SIGINT)
	if code := waitExit(t, cmd, 10*time.Second); code != 130 {
		t.Errorf("exit code %d, want 130", code)
	}
	spinnersGone(t, pids)
}

// Even a calibrate killed outright leaves no spinner behind (Linux: the
// kernel's parent-death signal).
func TestCalibrateContendKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("only Linux has a parent-death signal")
	}
	cmd, pids := startContended(t)
	cmd.Process.Kill()
	cmd.Wait()
	spinnersGone(t, pids)
}
