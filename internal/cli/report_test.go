package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/report"
)

func TestReportCommand(t *testing.T) {
	labFixture, loadFixture := reportRuns(t) // before t.Parallel: see reportRuns
	t.Parallel()
	dir := t.TempDir()
	for _, c := range []struct {
		args []string
		out  string
	}{
		{[]string{labFixture}, "lab.html"},
		{[]string{loadFixture}, "load.html"},
		{[]string{labFixture, labFixture}, "ab.html"},
	} {
		out := filepath.Join(dir, c.out)
		code, stdout, stderr := runCLI(append(append([]string{"report"}, c.args...), "--out", out)...)
		want := out + "\n"
		if len(c.args) == 2 {
			// A comparison: the page, its verdicts beside it, then the
			// verdicts as a table (TestReportCommandVerdicts).
			want = out + "\n" + filepath.Join(dir, "ab.json") + "\nB/A, each interval at its verdict's Holm level ("
		}
		if code != 0 || !strings.HasPrefix(stdout, want) || len(c.args) == 1 && stdout != want {
			t.Errorf("report %v: exit %d, stdout %q, stderr %q; want 0 and %q", c.args, code, stdout, stderr, want)
		}
		if st, err := os.Stat(out); err != nil || st.Size() < 10000 {
			t.Errorf("report %v wrote no page: %v", c.args, err)
		}
	}
}

func TestReportCommandErrors(t *testing.T) {
	labFixture, loadFixture := reportRuns(t) // before t.Parallel: see reportRuns
	t.Parallel()
	empty := t.TempDir()
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{nil, 2, "missing DIR"},
		{[]string{labFixture, labFixture, labFixture}, 2, "compares two"},
		{[]string{empty}, 1, "holds neither a lab run"},
		{[]string{labFixture, loadFixture}, 1, "cannot compare a lab run"},
	} {
		code, _, stderr := runCLI(append([]string{"report"}, c.args...)...)
		if code != c.code || !strings.Contains(stderr, c.want) || strings.Count(stderr, c.want) != 1 {
			t.Errorf("report %v: exit %d, stderr %q; want %d and %q once", c.args, code, stderr, c.code, c.want)
		}
	}
}

// TestLabNoReport: --no-report leaves the page out; without it a partial
// run still gets one, and says where.
func TestLabNoReport(t *testing.T) {
	srv := startLlama(t)
	for _, noReport := range []bool{true, false} {
		out := t.TempDir()
		args := []string{"lab", "--server", srv.URL, "--out", out}
		if noReport {
			args = append(args, "--no-report")
		}
		code, stdout, stderr := runCLI(append(args, "--", "server", "ttft")...)
		if code != 0 {
			t.Fatalf("%v exited %d:\n%s%s", args, code, stdout, stderr)
		}
		page := filepath.Join(out, "report.html")
		_, err := os.Stat(page)
		printed := strings.Contains(stdout, "HTML report: "+page+"\n")
		if noReport == (err == nil) || noReport == printed {
			t.Errorf("--no-report %v: page exists %v, path printed %v", noReport, err == nil, printed)
		}
	}
}

// TestReportCommandVerdicts: report A B prints the page's path, then
// compare.json's, then each figure's verdict; --seed is the bootstrap's,
// recorded, and the drift warning ends the table of two separate runs.
// Fails before this change: report printed the path alone, and had no
// --seed.
func TestReportCommandVerdicts(t *testing.T) {
	_, load := reportRuns(t) // before t.Parallel: see reportRuns
	t.Parallel()
	out := filepath.Join(t.TempDir(), "ab.html")
	code, stdout, stderr := runCLI("report", "--seed", "42", "--out", out, load, load)
	if code != 0 {
		t.Fatalf("report exited %d: %s%s", code, stdout, stderr)
	}
	lines := strings.Split(strings.TrimSpace(stdout), "\n")
	if len(lines) < 4 || lines[0] != out || lines[1] != strings.TrimSuffix(out, ".html")+".json" ||
		!strings.Contains(lines[2], "seed 42, 2000 replicates") || !strings.HasPrefix(lines[3], "figure ") ||
		lines[len(lines)-1] != "warning: "+report.DriftWarning {
		t.Fatalf("stdout:\n%s", stdout)
	}
	if !strings.Contains(stdout, "level 1 ttft_ms") || !strings.Contains(stdout, "no difference detected") {
		t.Errorf("the table lacks level 1's ttft_ms verdict:\n%s", stdout)
	}
	data, err := os.ReadFile(lines[1])
	if err != nil || !strings.Contains(string(data), `"seed": 42,`) {
		t.Errorf("compare.json does not record the seed: %v\n%s", err, data)
	}
	if code, _, stderr := runCLI("report", "--seed", "-1", load, load); code != 2 || !strings.Contains(stderr, "--seed") {
		t.Errorf("--seed -1: exit %d, %s", code, stderr)
	}
}
