package sse

import (
	"strings"
	"testing"
)

// llamaLikeStream returns n chunk events shaped like llama-server's.
func llamaLikeStream(n int, eol string) []byte {
	ev := `data: {"choices":[{"finish_reason":null,"index":0,"delta":{"content":" token"}}],"created":1700000000,"id":"chatcmpl-abc","model":"m","system_fingerprint":"b1-x","object":"chat.completion.chunk"}` + eol + eol
	return []byte(strings.Repeat(ev, n))
}

// reads cuts in into reads of size bytes, like a socket would deliver them.
func reads(in []byte, size int) [][]byte {
	var out [][]byte
	for len(in) > 0 {
		n := min(size, len(in))
		out, in = append(out, in[:n]), in[n:]
	}
	return out
}

func benchSplit(b *testing.B, in []byte, size int) {
	parts := reads(in, size)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var s Splitter
		for k, p := range parts {
			s.Feed(p, 0)
			for {
				if _, ok := s.Next(); !ok {
					break
				}
			}
			if s.Err() != nil {
				b.Fatalf("feed %d: %v", k, s.Err())
			}
		}
	}
}

func BenchmarkSplitLF4K(b *testing.B)   { benchSplit(b, llamaLikeStream(1000, "\n"), 4096) }
func BenchmarkSplitLF64K(b *testing.B)  { benchSplit(b, llamaLikeStream(1000, "\n"), 64<<10) }
func BenchmarkSplitCRLF4K(b *testing.B) { benchSplit(b, llamaLikeStream(1000, "\r\n"), 4096) }
func BenchmarkSplitOneEventPerRead(b *testing.B) {
	benchSplit(b, llamaLikeStream(1000, "\n"), len(llamaLikeStream(1, "\n")))
}

func BenchmarkSplitLongLine(b *testing.B) {
	benchSplit(b, []byte("data: "+strings.Repeat("x", 4<<20)+"\n\n"), 64<<10)
}

func BenchmarkSplitParseEvents4K(b *testing.B) {
	in := llamaLikeStream(1000, "\n")
	parts := reads(in, 4096)
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var p Parser
		events := 0
		for _, part := range parts {
			p.Feed(part, 0)
			for {
				if _, ok := p.Next(); !ok {
					break
				}
				events++
			}
		}
		if events != 1000 {
			b.Fatalf("got %d events, want 1000", events)
		}
	}
}
