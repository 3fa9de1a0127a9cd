package cli

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"sync"
	"syscall"
	"testing"

	"github.com/chromedp/chromedp"

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
// elsewhere (--out).
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
