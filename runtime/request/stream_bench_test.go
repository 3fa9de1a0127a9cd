package request

import (
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
)

// BenchmarkOnChunkCallback is the cost stream() adds per content chunk for
// a Lua on_chunk: building the chunk table and calling the function.
func BenchmarkOnChunkCallback(b *testing.B) {
	L := lua.NewState()
	defer L.Close()
	if err := L.DoString(`n = 0; function on_chunk(c) n = n + #c.text end`); err != nil {
		b.Fatal(err)
	}
	var failed lua.LValue
	call := ChunkCallback(L, L.GetGlobal("on_chunk").(*lua.LFunction), &failed)
	c := stream.Chunk{TMs: 12.5, Text: " token"}
	b.ReportAllocs()
	for b.Loop() {
		c.Index++
		if keep, err := call(c); !keep || err != nil {
			b.Fatalf("keep %v, err %v", keep, err)
		}
	}
}
