// The helpers the command tests share: running ttftlab in-process and as
// a child process, the real llama-server, the server registry, the fake
// servers a load runs against, reading artifacts strictly, the stand-in
// llama-server, and what the tests of one binary share (the report runs,
// one Chromium). The load, merge and signal test files hold tests only.

package cli

import (
	"bufio"
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"ttftlab/internal/artifact"
	"ttftlab/internal/llamaserver"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/load"
	"ttftlab/internal/report/reporttest"
	"ttftlab/internal/stream/streamtest"
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

// startTTFTLab runs ttftlab as a child process and returns once its standard
// output has printed ready.
func startTTFTLab(t *testing.T, ready string, args ...string) (*exec.Cmd, *bytes.Buffer) {
	t.Helper()
	cmd, _, stderr := startTTFTLabOut(t, ready, args...)
	return cmd, stderr
}

// startTTFTLabOut is startTTFTLab that also returns the child's standard
// output as it prints it; childOut.all waits for the whole of it.
func startTTFTLabOut(t *testing.T, ready string, args ...string) (*exec.Cmd, *childOut, *bytes.Buffer) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "TTFTLAB_AS_MAIN=1")
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = w, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	w.Close() // the child holds its own copy
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	out := &childOut{done: make(chan struct{})}
	seen := make(chan struct{})
	go func() {
		defer close(out.done)
		defer r.Close()
		lines := bufio.NewScanner(r)
		lines.Buffer(make([]byte, 64<<10), 16<<20)
		defer io.Copy(io.Discard, r) // never leave the child blocked on a full pipe
		said := false
		for lines.Scan() {
			out.buf.Write(append(lines.Bytes(), '\n'))
			if !said && strings.Contains(lines.Text(), ready) {
				said = true
				close(seen)
			}
		}
	}()
	select {
	case <-seen:
		return cmd, out, &stderr
	case <-out.done:
	}
	t.Fatalf("ttftlab never printed %q; stderr:\n%s", ready, stderr.String())
	return nil, nil, nil
}

// childOut is a child's standard output, line by line as it comes.
type childOut struct {
	buf  syncBuffer
	done chan struct{}
}

// all is the whole output, once the child and everything holding its
// output have ended (or what came within limit).
func (o *childOut) all(t *testing.T, limit time.Duration) string {
	t.Helper()
	select {
	case <-o.done:
	case <-time.After(limit):
		t.Errorf("the output did not end within %v", limit)
	}
	return o.buf.String()
}

// waitExit waits for the process to end and returns its exit code, failing
// the test when it takes longer than limit.
func waitExit(t *testing.T, cmd *exec.Cmd, limit time.Duration) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		return cmd.ProcessState.ExitCode()
	case <-time.After(limit):
		t.Fatalf("ttftlab still runs %s after the signal", limit)
		return -1
	}
}

func writeScript(t *testing.T, code string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "script.lua")
	if err := os.WriteFile(path, []byte(code), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// streamingScript streams from the server over and over, printing every
// chunk and writing an artifact of each kind after every answer: work to
// stop at any moment.
const streamingScript = `
local n = 0
while true do
  n = n + 1
  local chunks, total_ms, _, info = stream("Once upon a time", { max_tokens = 48, cache_prompt = false,
    on_chunk = function(c) print(c.text) end })
  append_jsonl("runs.jsonl", { n = n, ttft_ms = info.ttft_ms, total_ms = total_ms, chunks = #chunks })
  write_json("last.json", { n = n, total_ms = total_ms })
  print("streamed " .. n)
end
`

// llamaOnPort lists the llama-server processes serving port, whoever
// started them: the process table, not ttftlab's record, which a killed
// ttftlab cannot clear.
func llamaOnPort(port int) []int {
	var pids []int
	want := "\x00--port\x00" + itoa(port) + "\x00"
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && strings.Contains(string(cmdline), "llama-server") && strings.Contains(string(cmdline), want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// requireServerGone fails t when a llama-server still serves port or ttftlab
// still records one there, and kills what it finds.
func requireServerGone(t *testing.T, port int) {
	t.Helper()
	if pids := llamaOnPort(port); len(pids) > 0 {
		for _, pid := range pids {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		t.Errorf("the llama-server ttftlab started outlived it: PID %v on port %d", pids, port)
	}
	if st, _ := testRegistry(t).Load(port); st != nil {
		t.Errorf("ttftlab still records a server on port %d: %+v", port, st)
	}
}

// consoleMs is a time as load's console writes it: one decimal under
// 10 ms.
func consoleMs(x float64) string {
	if x < 10 && x > -10 {
		return fmt.Sprintf("%.1f", x)
	}
	return fmt.Sprintf("%.0f", x)
}

// ciLine is the console's interval line for a distribution as load.json
// holds it: "  ttft      p50 8.2 [7.8, 8.5]  p95 too few samples  ...".
func ciLine(d artifact.Dist) string {
	ms := consoleMs
	var cells []string
	for _, c := range []struct {
		p  int
		v  *float64
		ci *[2]float64
	}{{50, d.P50, d.P50CI}, {95, d.P95, d.P95CI}, {99, d.P99, d.P99CI}} {
		if c.v == nil || c.ci == nil {
			cells = append(cells, fmt.Sprintf("p%d too few samples", c.p))
			continue
		}
		cells = append(cells, fmt.Sprintf("p%d %s [%s, %s]", c.p, ms(*c.v), ms(c.ci[0]), ms(c.ci[1])))
	}
	return fmt.Sprintf("  %-9s %s  (n=%d, 95%% intervals)", "ttft", strings.Join(cells, "  "), d.N)
}

// loadFaultServer is llama-server as `ttftlab load` sees it (/health,
// /props, /slots), whose chat completions stream like FakeLlama's unless
// fail says otherwise for the n-th request (from 1): then it answers
// with that status and llama-server's error object.
func loadFaultServer(t *testing.T, fail func(n int64) (status int, typ, message string)) string {
	t.Helper()
	answer := &streamtest.FakeLlama{Pieces: []string{"Yes,", " we open", " on Saturday.", " Bye."}}
	var n atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		switch r.URL.Path {
		case "/health":
			io.WriteString(w, `{"status":"ok"}`)
		case "/props":
			io.WriteString(w, `{"default_generation_settings":{"n_ctx":4096},"total_slots":2,"model_path":"/models/fault.gguf","build_info":"b1-fault"}`)
		case "/slots":
			io.WriteString(w, `[{"id":0,"is_processing":false},{"id":1,"is_processing":false}]`)
		case "/v1/chat/completions":
			if status, typ, msg := fail(n.Add(1)); status != 0 {
				body, _ := json.Marshal(map[string]any{"error": map[string]any{"code": status, "message": msg, "type": typ}})
				w.WriteHeader(status)
				w.Write(body)
				return
			}
			answer.ServeHTTP(w, r)
		default:
			w.WriteHeader(http.StatusNotImplemented)
			io.WriteString(w, `{"error":{"code":501,"message":"not supported","type":"not_supported_error"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// strictLines decodes every line of a JSONL file strictly into T (no
// member T lacks, no Inf or NaN: encoding/json accepts neither).
func strictLines[T any](t *testing.T, path string) []T {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []T
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var v T
		if err := artifact.DecodeStrict(sc.Bytes(), &v); err != nil {
			t.Fatalf("%s: %v in %s", path, err, sc.Text())
		}
		out = append(out, v)
	}
	return out
}

// strictLoad decodes load.json strictly into its record type.
func strictLoad(t *testing.T, out string) artifact.Load {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(out, "load.json"))
	if err != nil {
		t.Fatal(err)
	}
	var doc artifact.Load
	if err := artifact.DecodeStrict(data, &doc); err != nil {
		t.Fatalf("load.json does not decode strictly into artifact.Load: %v\n%s", err, data)
	}
	if !json.Valid(data) || bytes.Contains(data, []byte("Inf")) || bytes.Contains(data, []byte("NaN")) {
		t.Fatalf("load.json is not strict JSON:\n%s", data)
	}
	return doc
}

// diskFillsMidLevel starts a fake server for a load into out whose
// requests.csv turns into /dev/full as the fourth request comes, as a disk
// fills in the middle of a level, and returns its URL.
func diskFillsMidLevel(t *testing.T, out string) string {
	t.Helper()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	csv := filepath.Join(out, "requests.csv")
	return loadFaultServer(t, func(n int64) (int, string, string) {
		if n == 4 {
			os.Remove(csv)
			if err := os.Symlink("/dev/full", csv); err != nil {
				t.Error(err)
			}
		}
		return 0, "", ""
	})
}

// slotServer is llama-server as `ttftlab load` sees it with k slots: a
// request waits, sending nothing, until a slot is free, then holds it for
// hold (its first token after first), so it serves k/hold calls a second
// and an open loop faster than that queues without end.
type slotServer struct {
	k           int
	first, hold time.Duration
	slots       chan struct{}
}

func (s *slotServer) start(t *testing.T) string {
	t.Helper()
	s.slots = make(chan struct{}, s.k)
	return fakeLlama(t, "slot", 8, func(w http.ResponseWriter, r *http.Request) {
		select {
		case s.slots <- struct{}{}:
		case <-r.Context().Done():
			return
		}
		began := time.Now()
		defer func() { <-s.slots }()
		w.Header().Set("Content-Type", "text/event-stream")
		time.Sleep(s.first)
		io.WriteString(w, chatChunk("Yes, we open on Saturday."))
		w.(http.Flusher).Flush()
		time.Sleep(s.hold - time.Since(began))
		io.WriteString(w, chatChunk(" Bye.")+chatEnd)
		w.(http.Flusher).Flush()
	})
}

// fakeLlama starts llama-server as `ttftlab load` sees it: /health ok,
// /props with name's model and slots slots, /slots empty, every chat
// request (its body read) answered by chat, anything else 501.
func fakeLlama(t *testing.T, name string, slots int, chat http.HandlerFunc) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/health":
			io.WriteString(w, `{"status":"ok"}`)
		case "/props":
			fmt.Fprintf(w, `{"default_generation_settings":{"n_ctx":4096},"total_slots":%d,"model_path":"/models/%s.gguf","build_info":"b1-%s"}`, slots, name, name)
		case "/slots":
			io.WriteString(w, `[]`)
		case "/v1/chat/completions":
			io.ReadAll(r.Body)
			chat(w, r)
		default:
			w.WriteHeader(http.StatusNotImplemented)
			io.WriteString(w, `{"error":{"code":501,"message":"not supported","type":"not_supported_error"}}`)
		}
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// chatChunk is one content chunk of a streamed chat answer; chatEnd ends
// the answer.
func chatChunk(text string) string {
	q, _ := json.Marshal(text)
	return `data: {"choices":[{"delta":{"content":` + string(q) + `},"finish_reason":null,"index":0}],"object":"chat.completion.chunk"}` + "\n\n"
}

const chatEnd = `data: {"choices":[{"delta":{},"finish_reason":"stop","index":0}]}` + "\n\n" + "data: [DONE]\n\n"

// runShards runs `ttftlab load` once per shard of n, as separate
// processes side by side with the environment's variables and env
// ("NAME=value") and the flags given after the shard's, and returns each
// one's output.
func runShards(t *testing.T, n int, env []string, args ...string) []string {
	t.Helper()
	type ended struct {
		i   int
		out string
		err error
	}
	done := make(chan ended, n)
	for i := 0; i < n; i++ {
		cmd := exec.Command(os.Args[0], append([]string{"load", "--shard", fmt.Sprintf("%d/%d", i, n)}, args...)...)
		cmd.Env = append(append(os.Environ(), "TTFTLAB_AS_MAIN=1"), env...)
		var b bytes.Buffer
		cmd.Stdout, cmd.Stderr = &b, &b
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill() })
		go func() { err := cmd.Wait(); done <- ended{i, b.String(), err} }()
	}
	outs := make([]string, n)
	for range n {
		e := <-done
		outs[e.i] = e.out
		if e.err != nil {
			t.Errorf("shard %d of %d: %v\n%s", e.i, n, e.err, e.out)
		}
	}
	if t.Failed() {
		t.FailNow()
	}
	return outs
}

// readRows reads a load folder's requests.jsonl strictly.
func readRows(t *testing.T, dir string) []artifact.LoadRequest {
	t.Helper()
	rows, err := loadRows(filepath.Join(dir, "requests.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func seq(from, to int) []int {
	var out []int
	for i := from; i <= to; i++ {
		out = append(out, i)
	}
	return out
}

// fmtPtr prints an optional number as its value, or null.
func fmtPtr(p *float64) string {
	if p == nil {
		return "null"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// sizedLoad parses load's flags as Run does and sizes the server it would
// start.
func sizedLoad(t *testing.T, args ...string) *loadCmd {
	t.Helper()
	c := &loadCmd{env: &env{cmd: "load"}}
	fs := c.env.flags("[flags]", loadAbout)
	c.register(fs)
	if err := fs.parse(args); err != nil {
		t.Fatal(err)
	}
	c.given = fs.given()
	_, levels, err := c.settings()
	if err != nil {
		t.Fatal(err)
	}
	c.sizeServer(fs, levels)
	return c
}

func jsonlRows(t *testing.T, path string) []map[string]any {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []map[string]any
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatalf("%s: %v in %q", path, err, sc.Text())
		}
		rows = append(rows, m)
	}
	return rows
}

func deref(p *string) string {
	if p == nil {
		return "<nil>"
	}
	return *p
}

// splitLoad splits the folder of an unsharded `ttftlab load` into n shard
// folders dst/shard-0 ... dst/shard-(n-1), as `ttftlab load --shard I/N
// --run-id id` writes them: call c's rows to shard (c-1) mod n, tagged
// with the shard, its host and the run id; each level's record over the
// shard's own rows, due when the level started and started i ms later on
// shard i; requests.csv with the tags' columns; server.jsonl in shard 0
// only.
func splitLoad(t *testing.T, src, dst string, n int, id string) {
	t.Helper()
	doc := strictLoad(t, src)
	rows := strictLines[artifact.LoadRequest](t, filepath.Join(src, "requests.jsonl"))
	for i := range n {
		dir := filepath.Join(dst, fmt.Sprintf("shard-%d", i))
		host := fmt.Sprintf("pod-%d", i)
		set := doc.Settings
		set.RunID, set.Shard, set.LevelGapMs = id, &artifact.LoadShard{Index: i, Count: n, Host: host}, 1000
		var mine []artifact.LoadRequest
		var jsonl bytes.Buffer
		var csvb bytes.Buffer
		cw := csv.NewWriter(&csvb)
		cw.Write(append([]string{"host", "level", "run_id", "shard", "call", "turn"}, artifact.RequestColumns...))
		for _, r := range rows {
			if (r.Call-1)%n != i {
				continue
			}
			k := i
			r.Shard, r.Host, r.RunID = &k, host, id
			mine = append(mine, r)
			b, err := artifact.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			jsonl.Write(append(b, '\n'))
			cw.Write(append([]string{host, fmt.Sprint(r.Level), id, fmt.Sprint(i), fmt.Sprint(r.Call), fmt.Sprint(r.Turn)}, r.Cells()...))
		}
		cw.Flush()
		out := artifact.Load{Settings: set, Model: doc.Model, Server: doc.Server, Levels: []artifact.LoadLevel{}}
		for _, l := range doc.Levels {
			var own []artifact.LoadRequest
			for _, r := range mine {
				if r.Level == l.Level {
					own = append(own, r)
				}
			}
			if l.Summary.StartedUnixMs == nil {
				t.Fatalf("level %g of the unsharded run has no started_unix_ms", l.Level)
			}
			due := *l.Summary.StartedUnixMs
			rec := load.Level(set, l.Level, own, load.LevelExtras{DueUnixMs: &due, StartedUnixMs: artifact.Ms(due + float64(i)),
				Client: l.Summary.Client})
			if out.Settings.StartAtUnixMs == 0 {
				out.Settings.StartAtUnixMs = due
			}
			out.Levels = append(out.Levels, rec)
		}
		writeShard(t, dir, out, jsonl.Bytes(), csvb.Bytes())
		if i == 0 {
			if data, err := os.ReadFile(filepath.Join(src, "server.jsonl")); err == nil {
				os.WriteFile(filepath.Join(dir, "server.jsonl"), data, 0o644)
			}
		}
	}
}

// writeShard writes a shard folder: its load.json, rows and CSV.
func writeShard(t *testing.T, dir string, doc artifact.Load, jsonl, csv []byte) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	data, err := json.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range map[string][]byte{"load.json": data, "requests.jsonl": jsonl, "requests.csv": csv} {
		if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// tinyShard is the load.json of shard i of n of run id, with no rows.
func tinyShard(id string, i, n int) artifact.Load {
	return artifact.Load{Settings: artifact.LoadSettings{Server: "http://llm:8080", Mode: "rate", Levels: []float64{1}, RunID: id,
		Shard: &artifact.LoadShard{Index: i, Count: n, Host: fmt.Sprintf("pod-%d", i)}, Requests: 4, Turns: 1, MaxTokens: 64,
		Seed: 42, SLO: []artifact.SLO{}}, Levels: []artifact.LoadLevel{}}
}

// frontOfLlama is a server in front of srv: each request goes to answer
// first, and to srv when answer returns false. chat is the body of a chat
// completions request (nil for any other), which r still holds whole for
// srv.
func frontOfLlama(t *testing.T, srv *llamaserver.Server, answer func(w http.ResponseWriter, r *http.Request, chat []byte) bool) *httptest.Server {
	t.Helper()
	target, err := url.Parse(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	proxy := httputil.NewSingleHostReverseProxy(target)
	proxy.FlushInterval = -1
	// A fresh connection a request: a kept-alive one that llama-server has
	// just closed turns a request into the proxy's own 502 ("proxy error:
	// EOF"), not the answer a test is about.
	proxy.Transport = &http.Transport{DisableKeepAlives: true}
	front := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var chat []byte
		if strings.HasSuffix(r.URL.Path, "/chat/completions") {
			body, err := io.ReadAll(r.Body)
			if err != nil {
				t.Errorf("reading a chat request: %v", err)
			}
			chat, r.Body = body, io.NopCloser(bytes.NewReader(body))
		}
		if !answer(w, r, chat) {
			proxy.ServeHTTP(w, r)
		}
	}))
	t.Cleanup(front.Close)
	return front
}

// hangUp closes the connection of w's request without an answer.
func hangUp(w http.ResponseWriter) {
	if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
		conn.Close()
	}
}

// askLlama sends the chat request r (its body chat) to srv itself, past
// the front, and returns the answer with its whole body; nil when it
// failed, which fails t.
func askLlama(t *testing.T, srv *llamaserver.Server, r *http.Request, chat []byte) (*http.Response, []byte) {
	resp, err := http.Post(srv.URL+r.URL.Path, "application/json", bytes.NewReader(chat))
	if err != nil {
		t.Errorf("asking llama-server past the front: %v", err)
		return nil, nil
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Errorf("reading llama-server's answer past the front: %v", err)
	}
	return resp, body
}

// wantDiscarded fails t unless a repeated step's discarded is first
// repetition number rep, set aside for a reason that says why; any other
// may only be a real answer that came off the socket in one read, which
// a busy machine makes of a fast server's answer (the step rightly sets
// it aside too).
func wantDiscarded(t *testing.T, file string, discarded []json.RawMessage, rep int, why string) {
	t.Helper()
	var got []struct {
		Repetition int    `json:"repetition"`
		Reason     string `json:"reason"`
	}
	for _, d := range discarded {
		got = append(got, struct {
			Repetition int    `json:"repetition"`
			Reason     string `json:"reason"`
		}{})
		if err := json.Unmarshal(d, &got[len(got)-1]); err != nil {
			t.Fatalf("%s discarded: %v", file, err)
		}
	}
	if len(got) == 0 || got[0].Repetition != rep || !strings.Contains(got[0].Reason, why) {
		t.Errorf("%s discarded %s, want repetition %d set aside saying %q", file, discarded, rep, why)
	}
	for _, d := range got[min(1, len(got)):] {
		if !strings.Contains(d.Reason, "whole answer arrived in one read") {
			t.Errorf("%s discarded %s: repetition %d set aside besides %d, saying %q", file, discarded, d.Repetition, rep, d.Reason)
		}
	}
}
