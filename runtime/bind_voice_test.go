package runtime

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/audio"
	"ttftlab/internal/stream"
	"ttftlab/internal/voice"
)

// call calls the function at path (a global, or "module.name" of a
// required module) with args and returns its values.
func call(t *testing.T, vm *VM, path string, args ...lua.LValue) []lua.LValue {
	t.Helper()
	fn := eval(t, vm, path)
	top := vm.L.GetTop()
	if err := vm.L.CallByParam(lua.P{Fn: fn, NRet: lua.MultRet, Protect: true}, args...); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	out := make([]lua.LValue, vm.L.GetTop()-top)
	for i := range out {
		out[i] = vm.L.Get(top + 1 + i)
	}
	vm.L.SetTop(top)
	return out
}

// TestSpeechModuleIsTheNatives: the speech and voice modules hand their
// calls to the natives themselves, with nothing of their own between.
func TestSpeechModuleIsTheNatives(t *testing.T) {
	vm, _ := testVM(t, Config{})
	for mod, native := range map[string]string{`require("speech").pacing`: "speech_pacing",
		`require("speech").first_clause_ms`: "speech_first_clause_ms", `require("voice").play`: "voice_play"} {
		if eval(t, vm, mod+" == "+native) != lua.LTrue {
			t.Errorf("%s is not %s", mod, native)
		}
	}
}

// TestSpeechPacingBinding: over seeded answers and speakers, what
// speech.pacing and speech.first_clause_ms give a script is, field by
// field and to the bit, voice's Pace and FirstClause of the same chunks.
func TestSpeechPacingBinding(t *testing.T) {
	vm, _ := testVM(t, Config{})
	L := vm.L
	pieces := []string{"Hello there.", " Dr. Lee", " at 8 a.m.", " 3.5", "...", " Then", " go!", " 你好。", "我是", "助手！",
		" 안녕하세요.", " e.g.", " No. 5", "\n\n", " …", ",", " ", "、", " - "}
	rng := rand.New(rand.NewPCG(5, 8))
	for trial := 0; trial < 200; trial++ {
		var b strings.Builder
		for n := rng.IntN(10); n >= 0; n-- {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		text := b.String()
		var chunks []stream.Chunk
		list := L.NewTable()
		tMs := 0.0
		for len(text) > 0 {
			n := min(1+rng.IntN(7), len(text))
			tMs += rng.Float64() * 500
			chunks = append(chunks, stream.Chunk{TMs: tMs, Text: text[:n]})
			row := L.NewTable()
			if rng.IntN(2) == 0 {
				row.RawSetString("t_ms", lua.LNumber(tMs))
				row.RawSetString("text", lua.LString(text[:n]))
			} else { // positional pairs work too
				row.Append(lua.LNumber(tMs))
				row.Append(lua.LString(text[:n]))
			}
			list.Append(row)
			text = text[n:]
		}
		sp := voice.Speaker{CharsPerS: 1 + rng.Float64()*20, TTSMs: rng.Float64() * 200}
		minChars := rng.IntN(25)
		opts := L.NewTable()
		opts.RawSetString("chars_per_s", lua.LNumber(sp.CharsPerS))
		opts.RawSetString("tts_ms", lua.LNumber(sp.TTSMs))
		opts.RawSetString("min_clause_chars", lua.LNumber(minChars))
		got := call(t, vm, `require("speech").pacing`, list, opts)[0].(*lua.LTable)

		p := sp.Pace(chunks)
		want := map[string]lua.LValue{"stall_ms": lua.LNumber(p.StallMs), "stalls": lua.LNumber(p.Stalls), "speak_ms": lua.LNumber(p.SpeakMs),
			"start_ms": lua.LNil, "end_ms": lua.LNil, "first_sentence_ms": lua.LNil, "first_clause_ms": lua.LNil}
		if n := len(p.Sentences); n > 0 {
			want["start_ms"], want["end_ms"] = lua.LNumber(p.Sentences[0].StartMs), lua.LNumber(p.Sentences[n-1].EndMs)
			want["first_sentence_ms"] = lua.LNumber(p.Sentences[0].ReadyMs)
		}
		ct, clause, ok := voice.FirstClause(chunks, minChars)
		if ok {
			want["first_clause_ms"] = lua.LNumber(ct)
		}
		for k, w := range want {
			if g := got.RawGetString(k); g != w {
				t.Fatalf("trial %d %+v: %s is %v, Go's %v", trial, chunks, k, g, w)
			}
		}
		sentences := got.RawGetString("sentences").(*lua.LTable)
		if sentences.Len() != len(p.Sentences) {
			t.Fatalf("trial %d: %d sentences, Go's %d", trial, sentences.Len(), len(p.Sentences))
		}
		for i, s := range p.Sentences {
			row := sentences.RawGetInt(i + 1).(*lua.LTable)
			g := fmt.Sprint(row.RawGetString("text"), row.RawGetString("chars"), row.RawGetString("ready_ms"), row.RawGetString("start_ms"), row.RawGetString("end_ms"))
			if w := fmt.Sprint(lua.LString(s.Text), lua.LNumber(s.Chars), lua.LNumber(s.ReadyMs), lua.LNumber(s.StartMs), lua.LNumber(s.EndMs)); g != w {
				t.Fatalf("trial %d: sentence %d is %s, Go's %s", trial, i+1, g, w)
			}
		}

		byName := L.NewTable()
		byName.RawSetString("min_chars", lua.LNumber(minChars))
		out := call(t, vm, `require("speech").first_clause_ms`, list, byName)
		if ok && (len(out) != 2 || out[0] != lua.LNumber(ct) || out[1] != lua.LString(clause)) || !ok && (len(out) != 1 || out[0] != lua.LNil) {
			t.Fatalf("trial %d: first_clause_ms gives %v, Go's %v %q %v", trial, out, ct, clause, ok)
		}
	}
}

// TestVoicePlayBinding: voice.play sets each played sentence's start_ms
// and end_ms, and the answer's figures, to audio.Play's; a sentence
// without first_audio_ms is left as it was, and the sentences handed in
// are the ones handed back.
func TestVoicePlayBinding(t *testing.T) {
	vm, _ := testVM(t, Config{})
	L := vm.L
	rng := rand.New(rand.NewPCG(9, 4))
	for trial := 0; trial < 100; trial++ {
		list := L.NewTable()
		var heard []audio.Sentence
		var rows []*lua.LTable
		for n := rng.IntN(6); n >= 0; n-- {
			row := L.NewTable()
			if rng.IntN(4) == 0 {
				row.RawSetString("error", lua.LString("speech failed"))
			} else {
				s := audio.Sentence{FirstAudioMs: rng.Float64() * 2000, AudioMs: rng.Float64() * 800}
				s.AudioDoneMs = s.FirstAudioMs + rng.Float64()*900
				row.RawSetString("first_audio_ms", lua.LNumber(s.FirstAudioMs))
				row.RawSetString("audio_done_ms", lua.LNumber(s.AudioDoneMs))
				row.RawSetString("audio_ms", lua.LNumber(s.AudioMs))
				heard = append(heard, s)
				rows = append(rows, row)
			}
			list.Append(row)
		}
		got := call(t, vm, `require("voice").play`, list)[0].(*lua.LTable)
		pb := audio.Play(heard)
		want := map[string]lua.LValue{"underrun_ms": lua.LNumber(pb.UnderrunMs), "underruns": lua.LNumber(pb.Underruns),
			"start_ms": lua.LNil, "end_ms": lua.LNil, "sentences": list}
		if len(heard) > 0 {
			want["start_ms"], want["end_ms"] = lua.LNumber(pb.StartMs), lua.LNumber(pb.EndMs)
		}
		for k, w := range want {
			if g := got.RawGetString(k); g != w {
				t.Fatalf("trial %d: %s is %v, Go's %v", trial, k, g, w)
			}
		}
		for i, row := range rows {
			if row.RawGetString("start_ms") != lua.LNumber(pb.Sentences[i].StartMs) || row.RawGetString("end_ms") != lua.LNumber(pb.Sentences[i].EndMs) {
				t.Fatalf("trial %d: heard sentence %d plays %v-%v, Go's %+v", trial, i+1, row.RawGetString("start_ms"), row.RawGetString("end_ms"), pb.Sentences[i])
			}
		}
		list.ForEach(func(_, v lua.LValue) {
			row := v.(*lua.LTable)
			if row.RawGetString("error") != lua.LNil && (row.RawGetString("start_ms") != lua.LNil || row.RawGetString("end_ms") != lua.LNil) {
				t.Fatalf("trial %d: a failed sentence was played", trial)
			}
		})
	}
}
