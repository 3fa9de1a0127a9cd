// The helpers the command tests share: running ttftlab in-process, the
// real llama-server, the server registry, reading artifacts, the stand-in
// llama-server, and what the tests of one binary share (the report runs,
// one Chromium). A helper used by one test file stays in that file.

package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/report/reporttest"
)

// shared holds what the tests of this binary share because they only read
// it: the folder of the runs made once (reportRuns) and one headless
// Chromium (browserTab). TestMain removes both when the tests end.
var shared struct {
	root string // made on first use, removed by closeShared

	rootOnce sync.Once
	lab      madeRun
	load     madeRun

	browserOnce sync.Once
	browser     context.Context // the first tab; nil when the start failed
	stopBrowser []context.CancelFunc
	browserErr  error
}

// sharedRoot is the folder of the shared runs and the browser's profile.
func sharedRoot(t *testing.T) string {
	t.Helper()
	shared.rootOnce.Do(func() { shared.root, _ = os.MkdirTemp("", "ttftlab-cli-shared-") })
	if shared.root == "" {
		t.Fatal("cannot make a temporary folder for the shared runs")
	}
	return shared.root
}

// closeShared stops the shared Chromium and removes the shared folder.
func closeShared() {
	for i := len(shared.stopBrowser) - 1; i >= 0; i-- {
		shared.stopBrowser[i]()
	}
	if shared.root != "" {
		os.RemoveAll(shared.root)
	}
}

// madeRun is a run folder made once per test binary, on first use.
type madeRun struct {
	once sync.Once
	dir  string
	ok   bool
}

// made returns the folder of run, making it with gen on first use. A test
// after a failed making fails too: the first one says why.
func (r *madeRun) made(t *testing.T, name string, gen func(testing.TB, string)) string {
	t.Helper()
	r.once.Do(func() {
		r.dir = filepath.Join(sharedRoot(t), name)
		gen(t, r.dir)
		r.ok = true
	})
	if !r.ok {
		t.Fatalf("no %s run: the first test that asked for one says why", name)
	}
	return r.dir
}

// reportRuns is a lab run (the real llama-server and the test model) and a
// load run (a fake server) for the report command to read, made once per
// test binary (reporttest): the tests only read them, writing their pages
// elsewhere (--out). Call it before t.Parallel, so that the runs are made
// while the tests still run one at a time: the lab's check compares
// timings within the run that a test beside it could invert.
func reportRuns(t *testing.T) (lab, load string) {
	t.Helper()
	return shared.lab.made(t, "lab", reporttest.Lab), shared.load.made(t, "load", reporttest.Load)
}

// browserTab opens a new tab in the headless Chromium that the tests of
// this binary share (started on first use, 1280x900, stopped by TestMain):
// a Chromium per page took seconds to start each time. close closes the
// tab.
func browserTab(t *testing.T, browser string) (ctx context.Context, close context.CancelFunc) {
	t.Helper()
	shared.browserOnce.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(browser), chromedp.NoSandbox, chromedp.DisableGPU,
			chromedp.Flag("disable-quic", true), chromedp.Flag("disable-component-update", true),
			chromedp.Flag("disable-sync", true), chromedp.Flag("hide-scrollbars", true),
			chromedp.UserDataDir(filepath.Join(sharedRoot(t), "chromium")), chromedp.WindowSize(1280, 900))
		alloc, stopAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		first, stopFirst := chromedp.NewContext(alloc)
		shared.stopBrowser = append(shared.stopBrowser, stopAlloc, stopFirst)
		if shared.browserErr = chromedp.Do(first); shared.browserErr == nil { // starts the browser
			shared.browser = first
		}
	})
	if shared.browser == nil {
		t.Fatalf("starting Chromium: %v", shared.browserErr)
	}
	return chromedp.NewContext(shared.browser)
}

// standInName is the name the test binary answers to as a stand-in
// llama-server (see TestMain and standInServer).
const standInName = "llama-server"

// standInServer returns the path of a stand-in llama-server: a link named
// llama-server to this test binary, which TestMain then runs as
// serveStandIn. It answers /health and ignores SIGTERM, so stopping it
// takes the full grace period.
func standInServer(t *testing.T) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(t.TempDir(), standInName)
	if err := os.Symlink(exe, link); err != nil {
		t.Fatal(err)
	}
	return link
}

// serveStandIn is the stand-in llama-server's main: it serves
// {"status":"ok"} on every path at 127.0.0.1:PORT (--port PORT, the other
// arguments ignored) until killed, with SIGTERM ignored.
func serveStandIn(args []string) int {
	signal.Ignore(syscall.SIGTERM)
	port := ""
	for i, a := range args {
		if a == "--port" && i+1 < len(args) {
			port = args[i+1]
		}
	}
	if port == "" {
		fmt.Fprintln(os.Stderr, "stand-in llama-server: no --port")
		return 2
	}
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", port))
	if err != nil {
		fmt.Fprintln(os.Stderr, "stand-in llama-server:", err)
		return 1
	}
	err = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Write([]byte(`{"status":"ok"}`))
	}))
	fmt.Fprintln(os.Stderr, "stand-in llama-server:", err)
	return 1
}

// runCLI runs ttftlab's command line in-process and returns its exit code
// and output.
func runCLI(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = Main(context.Background(), args, Stdio{In: strings.NewReader(""), Out: &out, Err: &errb})
	return code, out.String(), errb.String()
}

// requireCheckPasses runs `ttftlab check` on the lab folder out with the
// server's log and fails t unless every check passes.
func requireCheckPasses(t *testing.T, out, serverLog string) {
	t.Helper()
	code, stdout, stderr := runCLI("check", out, "--server-log", serverLog)
	t.Logf("check output:\n%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("ttftlab check exited %d", code)
	}
	if !strings.Contains(stdout, " 0 failed") {
		t.Fatalf("check output lacks '0 failed'")
	}
}

// readJSON decodes the JSON file at path into v, or fails t.
func readJSON(t *testing.T, path string, v any) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
}

// startLlama starts the real llama-server with the test model on a free
// port, with extra arguments, and stops it when the test ends (see
// llamatest).
func startLlama(t *testing.T, extra ...string) *llamaserver.Server {
	return llamatest.Start(t, extra...)
}

// needLlama returns the llama-server binary and test model, or skips.
func needLlama(t *testing.T) (bin, model string) { return llamatest.Need(t) }

// testModel is the test model's path (llamatest.Model).
func testModel() string { return llamatest.Model() }

// testRegistry is the server registry in the test's state folder.
func testRegistry(t *testing.T) *llamaserver.Registry {
	t.Helper()
	reg, err := llamaserver.OpenRegistry()
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

// serverTestEnv gives a test its own state folder and a free port, and makes
// sure no server it started outlives it.
func serverTestEnv(t *testing.T) (port int) {
	t.Helper()
	t.Setenv("TTFTLAB_STATE", t.TempDir())
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if st, _ := testRegistry(t).Load(port); st != nil && st.Alive() {
			t.Errorf("server on port %d was left running; stopping PID %d", port, st.PID)
			llamaserver.StopPID(st.PID, 5*time.Second)
		}
	})
	return port
}

// itoa is strconv.Itoa, short for the many ports in arguments.
func itoa(n int) string { return strconv.Itoa(n) }

// checkArtifactsParse fails t for any .json or .jsonl file under dir that
// a strict JSON parser refuses, and for a missing file of want.
func checkArtifactsParse(t *testing.T, dir string, want ...string) {
	t.Helper()
	for _, name := range want {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Errorf("%s was not written: %v", name, err)
		}
	}
	filepath.Walk(dir, func(path string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		data, rerr := os.ReadFile(path)
		if rerr != nil {
			t.Errorf("%s: %v", path, rerr)
			return nil
		}
		switch filepath.Ext(path) {
		case ".json":
			if !json.Valid(data) {
				t.Errorf("%s is not JSON:\n%s", path, data)
			}
		case ".jsonl":
			for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
				if line != "" && !json.Valid([]byte(line)) {
					t.Errorf("%s line %d is not JSON: %s", path, i+1, line)
				}
			}
		}
		return nil
	})
}

// requireNoKey fails when key appears in any file under dir (when dir is
// not "") or in any of the texts.
func requireNoKey(t *testing.T, key, dir string, texts ...string) {
	t.Helper()
	for i, s := range texts {
		if strings.Contains(s, key) {
			t.Errorf("the key appears in output %d", i)
		}
	}
	if dir == "" {
		return
	}
	n := 0
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		n++
		data, err := os.ReadFile(p)
		if err != nil {
			t.Errorf("reading %s: %v", p, err)
		} else if strings.Contains(string(data), key) {
			t.Errorf("the key appears in %s", p)
		}
		return nil
	})
	if n == 0 {
		t.Errorf("no file in %s to search for the key", dir)
	}
}

// readLines is the file at path as lines, surrounding blank space left
// out, or fails t.
func readLines(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSpace(string(data)), "\n")
}

// realEspeak is Debian's espeak-ng (.ci/run installs it); TTFTLAB_REQUIRE_TTS
// fails instead of skipping without it.
func realEspeak(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("espeak-ng")
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_TTS is set and espeak-ng is not on PATH: %v", err)
		}
		t.Skip("espeak-ng not on PATH")
	}
	return p
}
