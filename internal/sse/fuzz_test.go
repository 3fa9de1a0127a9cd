package sse

import (
	"math/rand"
	"testing"
	"time"
)

// randomParts cuts in into pieces of random sizes (1..64 bytes) chosen by
// seed.
func randomParts(in []byte, seed int64) [][]byte {
	rng := rand.New(rand.NewSource(seed))
	var parts [][]byte
	for len(in) > 0 {
		n := 1 + rng.Intn(64)
		if n > len(in) {
			n = len(in)
		}
		parts = append(parts, in[:n])
		in = in[n:]
	}
	return parts
}

// FuzzParser checks that the parser never panics and yields the same events,
// with stamps from the feed that completed them, whatever the read sizes.
func FuzzParser(f *testing.F) {
	for _, seed := range []string{
		eventInput,
		"data: {\"choices\":[]}\n\ndata: [DONE]\n\n",
		"\xef\xbb\xbfdata: a\r\ndata: b\r\n\r\n",
		"data:x\rdata:y\r\r: comment\nevent: e\nid: 1\nretry: 10\ndata\n\n",
		"data: unterminated",
	} {
		f.Add([]byte(seed), int64(1))
	}
	f.Fuzz(func(t *testing.T, in []byte, seed int64) {
		ref := byteStamps(t, in)
		var p Parser
		got := parseParts(t, &p, randomParts(in, seed))
		parts := randomParts(in, seed)
		if len(got) != len(ref) {
			t.Fatalf("got %d events, want %d (byte by byte)", len(got), len(ref))
		}
		for i := range got {
			want := ref[i]
			want.Stamp = time.Duration(partOf(parts, int(ref[i].Stamp)))
			if got[i] != want {
				t.Fatalf("event %d = %v, want %v", i, got[i], want)
			}
		}
	})
}
