package runtime

import (
	"math/rand/v2"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/audio"
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

// TestSpeechModuleIsTheNatives: the voice module hands its calls to the
// native itself, with nothing of its own between.
func TestSpeechModuleIsTheNatives(t *testing.T) {
	vm, _ := testVM(t, Config{})
	for mod, native := range map[string]string{`require("voice").play`: "voice_play"} {
		if eval(t, vm, mod+" == "+native) != lua.LTrue {
			t.Errorf("%s is not %s", mod, native)
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
