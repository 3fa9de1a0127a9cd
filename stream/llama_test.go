package stream

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"
)

// Where the installed llama-server and the test model live unless
// LLAMA_SERVER and LLAMA_MODEL say otherwise.
const (
	installedLlama = "/root/.cache/ttftlab/llama/bin/llama-server"
	testModel      = "/work/shared/models/stories260K.gguf"
)

// llamaPaths finds llama-server and the model, skipping the test when either
// is missing unless TTFTLAB_REQUIRE_LLAMA is set.
func llamaPaths(t *testing.T) (bin, model string) {
	t.Helper()
	bin, model = os.Getenv("LLAMA_SERVER"), os.Getenv("LLAMA_MODEL")
	if bin == "" {
		bin = installedLlama
	}
	if model == "" {
		model = testModel
	}
	for _, p := range []string{bin, model} {
		if _, err := os.Stat(p); err != nil {
			if os.Getenv("TTFTLAB_REQUIRE_LLAMA") != "" {
				t.Fatalf("TTFTLAB_REQUIRE_LLAMA is set but %v", err)
			}
			t.Skipf("no llama-server test: %v (set LLAMA_SERVER / LLAMA_MODEL)", err)
		}
	}
	return bin, model
}

// syncBuffer collects the server's log for failure messages.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// startLlama starts llama-server on a free port, waits until /health says
// ok and returns its base URL. The process is killed when the test ends.
func startLlama(t *testing.T) string {
	t.Helper()
	bin, model := llamaPaths(t)
	port := freePort(t)
	log := &syncBuffer{}
	cmd := exec.Command(bin, "-m", model, "-c", "4096", "-np", "1", "--cache-ram", "0",
		"--host", "127.0.0.1", "--port", fmt.Sprint(port))
	cmd.Stdout, cmd.Stderr = log, log
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
	})
	base := fmt.Sprintf("http://127.0.0.1:%d", port)
	deadline := time.Now().Add(60 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("llama-server exited while starting (%v); its log:\n%s", err, log.String())
		default:
		}
		if status, _, err := Get(context.Background(), base+"/health"); err == nil && status == 200 {
			return base
		}
		time.Sleep(100 * time.Millisecond)
	}
	t.Fatalf("llama-server at %s not healthy within 60s; its log:\n%s", base, log.String())
	return ""
}

func freePort(t *testing.T) int {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port
}

func storyBody(maxTokens int) map[string]any {
	return map[string]any{
		"messages":    []any{map[string]any{"role": "user", "content": "Once upon a time there was a little girl."}},
		"stream":      true,
		"max_tokens":  maxTokens,
		"temperature": 0,
	}
}

func TestDoRealLlamaServer(t *testing.T) {
	base := startLlama(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var raw bytes.Buffer
	res, err := Do(ctx, Request{URL: base, Body: storyBody(24), RawOut: &raw})
	if err != nil {
		t.Fatalf("%v\nraw output:\n%s", err, raw.String())
	}
	info := res.Info
	t.Logf("headers %.3f ms, ttft %.3f ms, total %.3f ms, %d chunks, timings %v", info.HeadersMs, info.TTFTMs, res.TotalMs, len(res.Chunks), res.Timings)
	if !info.Done || info.Cut || len(res.Chunks) == 0 || !info.HasTTFT {
		t.Fatalf("info %+v with %d chunks: want a complete stream with content", info, len(res.Chunks))
	}
	if info.FinishReason == "" {
		t.Errorf("no finish_reason")
	}
	if _, ok := res.Timings["prompt_n"]; !ok {
		t.Errorf("timings %v lack prompt_n", res.Timings)
	}
	if promptMs, ok := res.Timings["prompt_ms"].(float64); ok && info.TTFTMs < promptMs {
		t.Errorf("client TTFT %.3f ms is below the server's prompt_ms %.3f", info.TTFTMs, promptMs)
	}
	if !(info.HeadersMs <= info.TTFTMs && info.TTFTMs <= res.TotalMs) {
		t.Errorf("want headers %.3f <= ttft %.3f <= total %.3f", info.HeadersMs, info.TTFTMs, res.TotalMs)
	}
	if !strings.HasSuffix(raw.String(), "data: [DONE]\n\n") {
		t.Errorf("raw output does not end with [DONE]: %q", raw.String())
	}

	// A cut mid-answer leaves the server able to serve the next request.
	res, err = Do(ctx, Request{URL: base, Body: storyBody(2000),
		OnChunk: func(c Chunk) (bool, error) { return c.Index < 5, nil }})
	if err != nil || !res.Info.Cut || len(res.Chunks) != 5 {
		t.Fatalf("cut: err %v, info %+v, %d chunks", err, res.Info, len(res.Chunks))
	}
	res, err = Do(ctx, Request{URL: base, Body: storyBody(4)})
	if err != nil || !res.Info.Done {
		t.Fatalf("after the cut: err %v, info %+v", err, res.Info)
	}
}
