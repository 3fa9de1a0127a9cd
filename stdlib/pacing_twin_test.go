package stdlib_test

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
	"ttftlab/internal/voice"
)

// TestPacingTwin holds Go's voice.Pacing (what stream_many uses) to the
// Lua module's speech.pacing: the same first sentence moment and the same
// stall, to the bit, over seeded answers of tricky pieces cut into random
// chunks at random times.
func TestPacingTwin(t *testing.T) {
	pieces := []string{"Hello there.", " Dr. Lee", " sees you at 8 a.m.", " tomorrow", " 3.5", " mg", "...", " Then", " go!", "?",
		" \"Yes.\"", " 你好。", "我是", "助手！", " 안녕하세요.", " e.g.", " etc.", " no.", " No. 5", "\n\n", " …", " OK", "—", ",", " "}
	L := newVM(t)
	rng := rand.New(rand.NewPCG(23, 5))
	trials := 600
	if testing.Short() {
		trials = 100
	}
	for trial := 0; trial < trials; trial++ {
		var b strings.Builder
		for n := rng.IntN(14); n >= 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		var chunks []stream.Chunk
		tMs := 0.0
		for len(text) > 0 {
			n := min(1+rng.IntN(9), len(text))
			tMs += rng.Float64() * 900
			chunks = append(chunks, stream.Chunk{TMs: tMs, Text: text[:n], Index: len(chunks) + 1})
			text = text[n:]
		}
		list := L.CreateTable(len(chunks), 0)
		for _, c := range chunks {
			row := L.CreateTable(0, 2)
			row.RawSetString("t_ms", lua.LNumber(c.TMs))
			row.RawSetString("text", lua.LString(c.Text))
			list.Append(row)
		}
		L.SetGlobal("CHUNKS", list)
		out := mustEval(t, L, `local p = require("speech").pacing(CHUNKS) return p.first_sentence_ms, p.stall_ms`)
		first, ok, stall := voice.Pacing(chunks, 15)
		luaFirst, luaStall := out[0], float64(out[1].(lua.LNumber))
		same := stall == luaStall
		if ok {
			same = same && luaFirst == lua.LNumber(first)
		} else {
			same = same && luaFirst == lua.LNil
		}
		if !same {
			t.Fatalf("trial %d, chunks %s: Go first %v (%v) stall %v, Lua first %v stall %v", trial, show(chunks), first, ok, stall, luaFirst, luaStall)
		}
	}
}

func show(cs []stream.Chunk) string {
	var b strings.Builder
	for _, c := range cs {
		fmt.Fprintf(&b, "[%.3f %q]", c.TMs, c.Text)
	}
	return b.String()
}
