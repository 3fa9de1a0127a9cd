package runtime

import (
	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/audio"
)

// The natives of the stdlib's voice module: the module hands its
// arguments over as they are, so the computation lives once, in Go
// (internal/audio's Play), and the errors name the module's function.

// voicePlay is voice_play(sentences) -> result, the stdlib's voice.play:
// the sentences with a first_audio_ms (the others' speech failed) played
// in order by audio.Play; each gains start_ms and end_ms, and result is
// {start_ms, end_ms, underrun_ms, underruns, sentences}.
func voicePlay(L *lua.LState) int {
	list, ok := L.Get(1).(*lua.LTable)
	if !ok {
		L.RaiseError("voice.play: sentences must be an array, got %s", L.Get(1).Type())
	}
	var heard []*lua.LTable
	var ss []audio.Sentence
	for i := 1; ; i++ {
		v := list.RawGetInt(i)
		if v == lua.LNil {
			break
		}
		s, ok := v.(*lua.LTable)
		if !ok {
			L.RaiseError("voice.play: sentences[%d] is a %s, want a table", i, v.Type())
		}
		if L.GetField(s, "first_audio_ms") == lua.LNil {
			continue
		}
		var x [3]float64
		for k, name := range []string{"first_audio_ms", "audio_done_ms", "audio_ms"} {
			n, ok := L.GetField(s, name).(lua.LNumber)
			if !ok {
				L.RaiseError("voice.play: sentences[%d] needs numbers first_audio_ms, audio_done_ms and audio_ms", i)
			}
			x[k] = float64(n)
		}
		heard = append(heard, s)
		ss = append(ss, audio.Sentence{FirstAudioMs: x[0], AudioDoneMs: x[1], AudioMs: x[2]})
	}
	pb := audio.Play(ss)
	for k, s := range heard {
		L.SetField(s, "start_ms", lua.LNumber(pb.Sentences[k].StartMs))
		L.SetField(s, "end_ms", lua.LNumber(pb.Sentences[k].EndMs))
	}
	out := L.CreateTable(0, 5)
	out.RawSetString("underrun_ms", lua.LNumber(pb.UnderrunMs))
	out.RawSetString("underruns", lua.LNumber(pb.Underruns))
	out.RawSetString("sentences", list)
	if len(ss) > 0 {
		out.RawSetString("start_ms", lua.LNumber(pb.StartMs))
		out.RawSetString("end_ms", lua.LNumber(pb.EndMs))
	}
	L.Push(out)
	return 1
}
