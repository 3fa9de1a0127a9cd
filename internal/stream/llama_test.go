package stream_test

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/stream"
)

// startLlama serves the test model with the real llama-server (see
// llamatest) and returns its base URL.
func startLlama(t *testing.T) string {
	t.Helper()
	return llamatest.Start(t).URL
}

func storyBody(maxTokens int) []byte {
	b, err := stream.EncodeBody(map[string]any{
		"messages":    []any{map[string]any{"role": "user", "content": "Once upon a time there was a little girl."}},
		"stream":      true,
		"max_tokens":  maxTokens,
		"temperature": 0,
	})
	if err != nil {
		panic(err)
	}
	return b
}

func TestDoRealLlamaServer(t *testing.T) {
	base := startLlama(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()

	var raw bytes.Buffer
	res, err := stream.Do(ctx, stream.Request{URL: base, Body: storyBody(24), RawOut: &raw})
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
	res, err = stream.Do(ctx, stream.Request{URL: base, Body: storyBody(2000),
		OnChunk: func(c stream.Chunk) (bool, error) { return c.Index < 5, nil }})
	if err != nil || !res.Info.Cut || len(res.Chunks) != 5 {
		t.Fatalf("cut: err %v, info %+v, %d chunks", err, res.Info, len(res.Chunks))
	}
	res, err = stream.Do(ctx, stream.Request{URL: base, Body: storyBody(4)})
	if err != nil || !res.Info.Done {
		t.Fatalf("after the cut: err %v, info %+v", err, res.Info)
	}
}

func TestMain(m *testing.M) { llamatest.Main(m) }
