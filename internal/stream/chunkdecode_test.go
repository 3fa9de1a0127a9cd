package stream

import (
	"reflect"
	"strings"
	"testing"
)

// llamaChunks are payloads exactly as llama-server streams them.
var llamaChunks = []string{
	`{"choices":[{"finish_reason":null,"index":0,"delta":{"role":"assistant","content":null}}],"created":1795999894,"id":"chatcmpl-VtMp","model":"/m/stories260K.gguf","system_fingerprint":"b11669-Debian","object":"chat.completion.chunk"}`,
	`{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"he"}}],"created":1795999894,"id":"chatcmpl-VtMp","model":"/m/stories260K.gguf","system_fingerprint":"b11669-Debian","object":"chat.completion.chunk"}`,
	`{"choices":[{"finish_reason":null,"index":0,"delta":{"content":"\n\n\"Hi\"\t\\ /"}}],"created":1,"id":"c","model":"m","object":"chat.completion.chunk"}`,
	`{"choices":[{"finish_reason":null,"index":0,"delta":{"content":" café ☕"}}],"created":1,"id":"c","model":"m","object":"chat.completion.chunk"}`,
}

// equivalenceCases probe every way the fast path could differ from
// encoding/json; each must decode (or fail) identically.
var equivalenceCases = append([]string{
	`{"choices":[]}`,
	`{"choices":null}`,
	`{}`,
	` {"choices":[{"delta":{"content":"a"}}]} `,
	`{"choices":[{"delta":{"content":"a"}},{"delta":{"content":"b"},"finish_reason":"stop"}]}`,
	`{"choices":[{"delta":{},"finish_reason":"length"}],"timings":{"prompt_n":3,"prompt_ms":1.5}}`,
	`{"choices":[],"usage":{"prompt_tokens":3}}`,
	`{"error":{"message":"boom","type":"server_error"}}`,
	`{"choices":[{"delta":{"content":"a"},"delta":{}}]}`,             // duplicate key: encoding/json merges
	`{"choices":[{"delta":{"content":"a"}}],"choices":null}`,         // duplicate key: last wins
	`{"Choices":[{"Delta":{"Content":"folded"}}]}`,                   // case-insensitive names
	`{"choices":[{"delta":{"conte\u006et":"escaped key"}}]}`,         // escaped key
	"{\"choices\":[{\"delta\":{\"\u212aey\":1,\"content\":\"k\"}}]}", // Kelvin sign key
	`{"choices":[{"delta":{"content":"\u00e9\ud83d\ude00"}}]}`,       // \u escapes
	`{"choices":[{"delta":{"content":"\ud800"}}]}`,                   // lone surrogate
	"{\"choices\":[{\"delta\":{\"content\":\"bad \xff utf8\"}}]}",    // invalid UTF-8
	"{\"choices\":[{\"delta\":{\"content\":\"raw\tcontrol\"}}]}",     // raw control byte
	`{"choices":[{"delta":{"content":5}}]}`,                          // wrong type
	`{"choices":[{"delta":null}]}`,
	`{"choices":[null]}`,
	`{"choices":{}}`,
	`{"choices":[{"delta":{"content":"a"}}]} x`, // trailing data
	`{"choices":[{"delta":{"content":"a"}}],}`,  // trailing comma
	`{"choices":[{"delta":{"content":"a"}},]}`,
	`{"choices":[{"delta":{"content":"a"}}]`,
	`{"n":01,"choices":[]}`,
	`{"n":-0.5e+3,"choices":[]}`,
	`{"n":1.,"choices":[]}`,
	`{"n":[1,[2,{"x":[true,false,null]}]],"choices":[]}`,
	`{"n":"\x","choices":[]}`,
	`{"n":"\u12","choices":[]}`,
	`{"n":tru,"choices":[]}`,
	`{"choices":[{"finish_reason":"stop","finish_reason":null}]}`,
	`{"choices":[{"delta":{"content":""}}]}`,
	`[]`,
	``,
	`nul`,
	`{"choices":[{"delta":{"content":"a"}}]}` + strings.Repeat(" ", 3) + "\n",
	`{"a":` + strings.Repeat("[", 40) + strings.Repeat("]", 40) + `,"choices":[]}`,
	`{"choices":[{"delta":{"reasoning_content":"think","content":null}}]}`,
	`{"choices":[{"delta":{"reasoning":"hm","content":""}}]}`,
	`{"choices":[{"delta":{"Reasoning_Content":"x"}}]}`,
	`{"choices":[{"delta":{"tool_calls":[{"index":0}]}}]}`,
	`{"choices":[{"delta":{"tool_calls":[]}}]}`,
	`{"choices":[{"delta":{"role":"assistant","content":null}}],"prompt_progress":{"total":3}}`,
	`{"choices":[],"prompt_progress":null}`,
}, llamaChunks...)

func sameDecoding(t *testing.T, in string) {
	t.Helper()
	got, gotErr := decodeChunk([]byte(in))
	want, wantErr := slowChunk([]byte(in))
	if (gotErr == nil) != (wantErr == nil) || (gotErr != nil && gotErr.Error() != wantErr.Error()) {
		t.Fatalf("%q: error %v, encoding/json says %v", in, gotErr, wantErr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("%q: decoded %+v, encoding/json gives %+v", in, got, want)
	}
}

func TestDecodeChunkMatchesEncodingJSON(t *testing.T) {
	for _, in := range equivalenceCases {
		sameDecoding(t, in)
	}
}

// The fast path must actually serve llama-server's content chunks, or the
// optimisation is silently gone.
func TestDecodeChunkFastPathServesLlamaChunks(t *testing.T) {
	for _, in := range llamaChunks {
		if _, ok := fastChunk([]byte(in)); !ok {
			t.Errorf("fast path refused %s", in)
		}
	}
	c, _ := decodeChunk([]byte(llamaChunks[2]))
	if want := "\n\n\"Hi\"\t\\ /"; c.content != want {
		t.Errorf("content %q, want %q", c.content, want)
	}
}

func TestDecodeChunkAllocatesOnlyTheContent(t *testing.T) {
	data := []byte(llamaChunks[1])
	allocs := testing.AllocsPerRun(200, func() {
		if c, err := decodeChunk(data); err != nil || c.content != "he" {
			t.Fatalf("decoded %+v, %v", c, err)
		}
	})
	if allocs > 1 {
		t.Errorf("%.1f allocations per content chunk, want at most 1 (the content string)", allocs)
	}
}

// FuzzDecodeChunk checks the fast path against encoding/json on arbitrary
// payloads: `go test -fuzz FuzzDecodeChunk ./stream`.
func FuzzDecodeChunk(f *testing.F) {
	for _, in := range equivalenceCases {
		f.Add(in)
	}
	f.Fuzz(func(t *testing.T, in string) { sameDecoding(t, in) })
}

func benchDecode(b *testing.B, decode func([]byte) (chunkFields, error), payload string) {
	data := []byte(payload)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := decode(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeChunkContent(b *testing.B) { benchDecode(b, decodeChunk, llamaChunks[1]) }
func BenchmarkDecodeChunkContentEncodingJSON(b *testing.B) {
	benchDecode(b, slowChunk, llamaChunks[1])
}
func BenchmarkDecodeChunkEscaped(b *testing.B) { benchDecode(b, decodeChunk, llamaChunks[2]) }
func BenchmarkDecodeChunkFinalWithTimings(b *testing.B) {
	benchDecode(b, decodeChunk, `{"choices":[{"finish_reason":"length","index":0,"delta":{}}],"created":1795999894,"id":"chatcmpl-VtMp","model":"m","system_fingerprint":"b11669-Debian","object":"chat.completion.chunk","timings":{"cache_n":0,"prompt_n":42,"prompt_ms":2.7,"prompt_per_token_ms":0.0642857142857143,"prompt_per_second":15555.555555555553,"predicted_n":4,"predicted_ms":0.892,"predicted_per_token_ms":0.29733333333333334,"predicted_per_second":3363.228699551569}}`)
}
