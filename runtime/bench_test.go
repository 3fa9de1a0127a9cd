package runtime

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
)

// benchVM is a VM for benchmarks, writing into a temporary OUT.
func benchVM(b *testing.B, server string) *VM {
	b.Helper()
	vm, err := New(context.Background(), Config{Server: server, Out: filepath.Join(b.TempDir(), "out"),
		Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(vm.Close)
	return vm
}

// llamaBody is a whole llama-server answer of n content chunks.
func llamaBody(n int) string {
	var b strings.Builder
	b.WriteString(`data: {"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1,"id":"c","model":"m","system_fingerprint":"b1","object":"chat.completion.chunk"}` + "\n\n")
	for i := range n {
		fmt.Fprintf(&b, `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" t%d"}}],"created":1,"id":"c","model":"m","system_fingerprint":"b1","object":"chat.completion.chunk"}`+"\n\n", i%10)
	}
	b.WriteString(`data: {"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1,"id":"c","model":"m","object":"chat.completion.chunk","timings":{"prompt_n":3,"prompt_ms":1.5,"predicted_n":1,"predicted_ms":1}}` + "\n\ndata: [DONE]\n\n")
	return b.String()
}

// benchStreamLua runs stream() with an on_chunk callback over a loopback
// answer of 1000 chunks sent in 4 KB writes; ns/op / 1000 is the whole
// per-chunk cost of the host path (server side included).
func benchStreamLua(b *testing.B, keep bool) {
	body := llamaBody(1000)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		for s := body; len(s) > 0; {
			k := min(4096, len(s))
			io.WriteString(w, s[:k])
			w.(http.Flusher).Flush()
			s = s[k:]
		}
	}))
	b.Cleanup(srv.Close)
	vm := benchVM(b, srv.URL)
	code := fmt.Sprintf(`
		local n = 0
		local chunks, _, _, info = stream("hi", {keep_chunks = %v, on_chunk = function(c) n = n + 1 end})
		assert(info.done and n == 1000, "short stream")`, keep)
	fn, err := vm.L.LoadString(code)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		vm.L.Push(fn)
		if err := vm.L.PCall(0, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkStreamLua1000Chunks(b *testing.B)       { benchStreamLua(b, true) }
func BenchmarkStreamLua1000ChunksNoKeep(b *testing.B) { benchStreamLua(b, false) }

// largeResult builds, in Lua, a result like a long run's: 20,000 chunks
// with times and texts plus a few summary fields.
const largeResult = `
	local chunks = {}
	for i = 1, 20000 do chunks[i] = {t_ms = i * 0.731, text = " token" .. (i % 97), index = i} end
	result = {chunks = chunks, ttft_ms = 12.25, total_ms = 14620.5, done = true,
		timings = {prompt_n = 42, prompt_ms = 2.7, predicted_n = 20000}}`

// BenchmarkWriteJSONLarge is write_json of a large result, atomic
// replacement (with its fsync) included.
func BenchmarkWriteJSONLarge(b *testing.B) {
	vm := benchVM(b, "http://127.0.0.1:1")
	if err := vm.L.DoString(largeResult); err != nil {
		b.Fatal(err)
	}
	fn, err := vm.L.LoadString(`write_json("large.json", result)`)
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		vm.L.Push(fn)
		if err := vm.L.PCall(0, 0, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEncodeJSONLarge is the conversion alone, without the file.
func BenchmarkEncodeJSONLarge(b *testing.B) {
	vm := benchVM(b, "http://127.0.0.1:1")
	if err := vm.L.DoString(largeResult); err != nil {
		b.Fatal(err)
	}
	v := vm.L.GetGlobal("result")
	var size int
	b.ReportAllocs()
	for b.Loop() {
		data, err := vm.json.Encode(v, true)
		if err != nil {
			b.Fatal(err)
		}
		size = len(data)
	}
	b.SetBytes(int64(size))
}
