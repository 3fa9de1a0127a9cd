package runtime

import (
	"math"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/audio"
	"ttftlab/internal/sentence"
	"ttftlab/internal/stream"
	"ttftlab/internal/voice"
)

// The natives of the stdlib's voice and speech modules: the modules hand
// their arguments over as they are, so the computations live once, in
// Go (internal/audio's Play, internal/voice's Pace and FirstClause), and
// the errors name the module's function.

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

// speechPacing is speech_pacing(chunks, opts) -> result, the stdlib's
// speech.pacing: voice.Speaker's Pace of the chunks, and voice's
// FirstClause.
func speechPacing(L *lua.LState) int {
	const fname = "speech.pacing"
	chunks := readChunks(L, fname)
	var opts *lua.LTable
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
	case *lua.LTable:
		opts = v
	default:
		L.RaiseError("%s: opts must be a table, got %s", fname, v.Type())
	}
	sp := voice.Speaker{CharsPerS: voice.DefaultCharsPerS}
	var minChars lua.LValue = lua.LNil
	if opts != nil {
		opts.ForEach(func(k, _ lua.LValue) {
			switch k {
			case lua.LString("chars_per_s"), lua.LString("tts_ms"), lua.LString("min_clause_chars"):
			default:
				L.RaiseError("%s: unknown option %s (known: chars_per_s, tts_ms, min_clause_chars)", fname, L.ToStringMeta(k))
			}
		})
		if v := L.GetField(opts, "chars_per_s"); lua.LVAsBool(v) {
			if n, ok := v.(lua.LNumber); !ok || !finite(float64(n)) || n <= 0 {
				L.RaiseError("%s: opts.chars_per_s must be a number > 0, got %s", fname, L.ToStringMeta(v))
			}
			sp.CharsPerS = float64(v.(lua.LNumber))
		}
		if v := L.GetField(opts, "tts_ms"); lua.LVAsBool(v) {
			if n, ok := v.(lua.LNumber); !ok || !finite(float64(n)) || n < 0 {
				L.RaiseError("%s: opts.tts_ms must be a number >= 0, got %s", fname, L.ToStringMeta(v))
			}
			sp.TTSMs = float64(v.(lua.LNumber))
		}
		minChars = L.GetField(opts, "min_clause_chars")
	}
	minClause := minClauseChars(L, fname, minChars)
	p := sp.Pace(chunks)
	list := L.CreateTable(len(p.Sentences), 0)
	for _, s := range p.Sentences {
		row := L.CreateTable(0, 5)
		row.RawSetString("text", lua.LString(s.Text))
		row.RawSetString("chars", lua.LNumber(s.Chars))
		row.RawSetString("ready_ms", lua.LNumber(s.ReadyMs))
		row.RawSetString("start_ms", lua.LNumber(s.StartMs))
		row.RawSetString("end_ms", lua.LNumber(s.EndMs))
		list.Append(row)
	}
	out := L.CreateTable(0, 9)
	out.RawSetString("stall_ms", lua.LNumber(p.StallMs))
	out.RawSetString("stalls", lua.LNumber(p.Stalls))
	out.RawSetString("speak_ms", lua.LNumber(p.SpeakMs))
	out.RawSetString("sentences", list)
	if n := len(p.Sentences); n > 0 {
		out.RawSetString("start_ms", lua.LNumber(p.Sentences[0].StartMs))
		out.RawSetString("end_ms", lua.LNumber(p.Sentences[n-1].EndMs))
		out.RawSetString("first_sentence_ms", lua.LNumber(p.Sentences[0].ReadyMs))
	}
	if t, _, ok := voice.FirstClause(chunks, minClause); ok {
		out.RawSetString("first_clause_ms", lua.LNumber(t))
	}
	L.Push(out)
	return 1
}

// speechFirstClauseMs is speech_first_clause_ms(chunks, opts) -> t_ms,
// clause | nil, the stdlib's speech.first_clause_ms: voice's FirstClause.
// opts.min_clause_chars is named as speech.pacing names it; min_chars is
// its older name.
func speechFirstClauseMs(L *lua.LState) int {
	const fname = "speech.first_clause_ms"
	chunks := readChunks(L, fname)
	var minChars lua.LValue = lua.LNil
	switch opts := L.Get(2).(type) {
	case *lua.LNilType:
	case *lua.LTable:
		opts.ForEach(func(k, _ lua.LValue) {
			if k != lua.LString("min_clause_chars") && k != lua.LString("min_chars") {
				L.RaiseError("%s: unknown option %s (known: min_clause_chars)", fname, L.ToStringMeta(k))
			}
		})
		if minChars = L.GetField(opts, "min_clause_chars"); !lua.LVAsBool(minChars) {
			minChars = L.GetField(opts, "min_chars")
		}
	default:
		L.RaiseError("%s: opts must be a table, got %s", fname, opts.Type())
	}
	t, clause, ok := voice.FirstClause(chunks, minClauseChars(L, fname, minChars))
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(t))
	L.Push(lua.LString(clause))
	return 2
}

// readChunks reads argument 1 of a speech native: stream()'s chunks, an
// array of {t_ms=, text=} (or positional {t_ms, text} pairs) in arrival
// order, each time a finite number.
func readChunks(L *lua.LState, fname string) []stream.Chunk {
	list, ok := L.Get(1).(*lua.LTable)
	if !ok {
		L.RaiseError("%s: chunks must be an array of {t_ms=, text=}, got %s", fname, L.Get(1).Type())
	}
	n := list.Len()
	out := make([]stream.Chunk, n)
	for i := 1; i <= n; i++ {
		v := L.GetTable(list, lua.LNumber(i))
		c, ok := v.(*lua.LTable)
		if !ok {
			L.RaiseError("%s: chunks[%d] is a %s, want a table {t_ms=, text=}", fname, i, v.Type())
		}
		t, s := L.GetField(c, "t_ms"), L.GetField(c, "text")
		if t == lua.LNil && s == lua.LNil {
			t, s = L.GetTable(c, lua.LNumber(1)), L.GetTable(c, lua.LNumber(2))
		}
		tn, ok := t.(lua.LNumber)
		text, isText := s.(lua.LString)
		if !ok || !finite(float64(tn)) || !isText {
			L.RaiseError("%s: chunks[%d] needs a finite number t_ms and a string text, got %s and %s", fname, i, L.ToStringMeta(t), s.Type())
		}
		if i > 1 && float64(tn) < out[i-2].TMs {
			L.RaiseError("%s: chunks[%d].t_ms is %s, earlier than chunks[%d]'s %s; chunks must be in arrival order",
				fname, i, tn, i-1, lua.LNumber(out[i-2].TMs))
		}
		out[i-1] = stream.Chunk{TMs: float64(tn), Text: string(text), Index: i}
	}
	return out
}

// minClauseChars reads the minimum clause length of a speech native: nil
// for sentence.MinClauseChars, else a whole number >= 0 (math.huge: no
// clause ends before the first sentence).
func minClauseChars(L *lua.LState, fname string, v lua.LValue) int {
	if v == lua.LNil {
		return sentence.MinClauseChars
	}
	n, ok := v.(lua.LNumber)
	if !ok || n < 0 || float64(n) != math.Floor(float64(n)) {
		L.RaiseError("%s: the minimum clause length must be a whole number >= 0, got %s", fname, L.ToStringMeta(v))
	}
	if float64(n) >= math.MaxInt {
		return math.MaxInt
	}
	return int(n)
}

func finite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }
