package speak

import (
	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/voice"
)

// TTSOption reads a tts option (stream_many's, or a request's): true for
// the command's speech server (--tts), a table of speak() options, false
// or nil for none.
func (spk *Binder) TTSOption(L *lua.LState, label string, v lua.LValue) *voice.Speech {
	var opts lua.LValue = lua.LNil
	clause, minClause := false, 0
	switch v := v.(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		if !bool(v) {
			return nil
		}
	case *lua.LTable:
		if fn := v.RawGetString("on_audio"); fn != lua.LNil {
			L.RaiseError("%s.on_audio is not taken: each sentence's request runs in the background", label)
		}
		// clause and min_clause_chars are the pipeline's, the rest speak()'s.
		rest := L.CreateTable(0, 8)
		v.ForEach(func(k, val lua.LValue) {
			switch lua.LVAsString(k) {
			case "clause":
				b, ok := val.(lua.LBool)
				if !ok {
					L.RaiseError("%s.clause must be true or false, got %s", label, val.Type())
				}
				clause = bool(b)
			case "min_clause_chars":
				n, ok := val.(lua.LNumber)
				if !ok || n < 1 || float64(n) != float64(int(n)) {
					L.RaiseError("%s.min_clause_chars must be a whole number of 1 or more, got %s", label, val.String())
				}
				minClause = int(n)
			default:
				rest.RawSet(k, val)
			}
		})
		opts = rest
	default:
		L.RaiseError("%s must be true (the command's --tts) or a table of speak() options, got %s", label, v.Type())
	}
	c := spk.speakArgs(L, label, opts, "")
	return &voice.Speech{Endpoint: c.ep, Model: c.model, Voice: c.voice, Format: c.format, SampleRate: c.rate, Speed: c.speed,
		Timeout: c.timeout, Wire: spk.h.Wire, NoKernelStamps: spk.h.NoKernelStamps, Clause: clause, MinClauseChars: minClause}
}

// StreamSpeech reads stream()'s opts.tts (with clause and
// min_clause_chars beside it, as the voice module documents them): nil
// without one.
func (spk *Binder) StreamSpeech(L *lua.LState) *voice.Speech {
	opts, ok := L.Get(2).(*lua.LTable)
	if !ok {
		return nil
	}
	sp := spk.TTSOption(L, "stream: opts.tts", opts.RawGetString("tts"))
	if sp == nil {
		return nil
	}
	if v := opts.RawGetString("clause"); v != lua.LNil {
		b, ok := v.(lua.LBool)
		if !ok {
			L.RaiseError("stream: opts.clause must be true or false, got %s", v.Type())
		}
		sp.Clause = sp.Clause || bool(b)
	}
	if v := opts.RawGetString("min_clause_chars"); v != lua.LNil {
		n, ok := v.(lua.LNumber)
		if !ok || n < 1 || float64(n) != float64(int(n)) {
			L.RaiseError("stream: opts.min_clause_chars must be a whole number of 1 or more, got %s", v.String())
		}
		sp.MinClauseChars = int(n)
	}
	return sp
}
