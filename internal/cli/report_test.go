package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/report/reporttest"
)

// reportRuns makes a lab run (the real llama-server and the test model)
// and a load run (a fake server) for the report command to read.
func reportRuns(t *testing.T) (lab, load string) {
	t.Helper()
	root := t.TempDir()
	lab, load = filepath.Join(root, "lab"), filepath.Join(root, "load")
	reporttest.Lab(t, lab)
	reporttest.Load(t, load)
	return lab, load
}

func TestReportCommand(t *testing.T) {
	labFixture, loadFixture := reportRuns(t)
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
		if code != 0 || stdout != out+"\n" {
			t.Errorf("report %v: exit %d, stdout %q, stderr %q; want 0 and the path", c.args, code, stdout, stderr)
		}
		if st, err := os.Stat(out); err != nil || st.Size() < 10000 {
			t.Errorf("report %v wrote no page: %v", c.args, err)
		}
	}
}

func TestReportCommandErrors(t *testing.T) {
	labFixture, loadFixture := reportRuns(t)
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
