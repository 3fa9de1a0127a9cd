package runtime

import (
	"context"
	"math"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
	"ttftlab/internal/voice"
)

// ttsOption reads a tts option (stream_many's, or a request's): true for
// the command's speech server (--tts), a table of speak() options, false
// or nil for none.
func (vm *VM) ttsOption(L *lua.LState, label string, v lua.LValue) *voice.Speech {
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
	c := vm.speakArgs(L, label, opts, "")
	return &voice.Speech{Endpoint: c.ep, Model: c.model, Voice: c.voice, Format: c.format, SampleRate: c.rate, Speed: c.speed,
		Timeout: c.timeout, Wire: vm.cfg.Wire, NoKernelStamps: vm.cfg.NoKernelStamps, Clause: clause, MinClauseChars: minClause}
}

// speakWhileStreaming speaks an answer as req streams it: every content
// chunk goes to the pipeline (before the request's own on_chunk), and the
// function returned, called once the stream has ended, waits for the
// audio and gives the answer as spoken.
func speakWhileStreaming(ctx context.Context, sp *voice.Speech, req *stream.Request) func(res *stream.Result, err error) *voice.Answer {
	p := voice.Start(ctx, *sp)
	next := req.OnChunk
	req.OnChunk = func(c stream.Chunk) (bool, error) {
		p.Chunk(c)
		if next != nil {
			return next(c)
		}
		return true, nil
	}
	return func(res *stream.Result, err error) *voice.Answer {
		p.End(res, err)
		var t0 time.Time
		if res != nil {
			t0 = res.Info.T0
		}
		a := p.Wait(t0)
		return &a
	}
}

// speakAnswer speaks a request of stream_many as it streams; the request's
// goroutine waits for the audio, so the result handed back carries it in
// mc.spoken. A sentence whose speech failed fails the request
// (voice.Error).
func (m *many) speakAnswer(sp *voice.Speech, mc *manyCall) func(res *stream.Result, err error) error {
	spoken := speakWhileStreaming(m.vm.callCtx(m.L), sp, &mc.call.req)
	return func(res *stream.Result, err error) error {
		mc.spoken = spoken(res, err)
		return mc.spoken.Err()
	}
}

// streamSpeech reads stream()'s opts.tts (with clause and
// min_clause_chars beside it, as the voice module documents them): nil
// without one.
func (vm *VM) streamSpeech(L *lua.LState) *voice.Speech {
	opts, ok := L.Get(2).(*lua.LTable)
	if !ok {
		return nil
	}
	sp := vm.ttsOption(L, "stream: opts.tts", opts.RawGetString("tts"))
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

// fillSpoken adds a spoken answer's figures to a result: first_audio_ms,
// first_voiced_ms, underrun_ms, underruns, speak_end_ms, overhead_ms,
// tts_errors and spoken (each sentence).
func fillSpoken(L *lua.LState, t *fields, a *voice.Answer) {
	opt := func(k string, p *float64) {
		if p != nil {
			t.set(k, lua.LNumber(*p))
		}
	}
	opt("first_audio_ms", a.FirstAudioMs)
	opt("first_voiced_ms", a.FirstVoicedMs)
	opt("speak_end_ms", a.SpeakEndMs)
	opt("overhead_ms", a.OverheadMs)
	t.set("underrun_ms", lua.LNumber(a.UnderrunMs))
	t.set("underruns", lua.LNumber(a.Underruns))
	t.set("tts_errors", lua.LNumber(a.Errors))
	list := L.CreateTable(len(a.Sentences), 0)
	for i, s := range a.Sentences {
		row := L.CreateTable(0, 12)
		row.RawSetString("text", lua.LString(s.Text))
		row.RawSetString("voice", lua.LString(s.Voice))
		row.RawSetString("ready_ms", lua.LNumber(s.ReadyMs))
		row.RawSetString("audio_ms", lua.LNumber(s.AudioMs))
		for _, f := range []struct {
			k string
			p *float64
		}{{"tts_sent_ms", s.TTSSentMs}, {"first_audio_ms", s.FirstAudioMs}, {"first_voiced_ms", s.FirstVoicedMs},
			{"audio_done_ms", s.AudioDoneMs}, {"start_ms", s.StartMs}, {"end_ms", s.EndMs}} {
			if f.p != nil {
				row.RawSetString(f.k, lua.LNumber(*f.p))
			}
		}
		if s.Err != nil {
			row.RawSetString("error", lua.LString(s.Err.Error()))
		}
		if s.Cut {
			row.RawSetString("cut", lua.LTrue)
		}
		list.RawSetInt(i+1, row)
	}
	t.set("spoken", list)
}

// spokenFigures are a result's first audio and underrun for the record
// and the summary; NaN when it has none.
func spokenFigures(a *voice.Answer) (firstAudioMs, underrunMs float64) {
	firstAudioMs, underrunMs = math.NaN(), math.NaN()
	if a == nil {
		return
	}
	if a.FirstAudioMs != nil {
		firstAudioMs = *a.FirstAudioMs
	}
	if a.FirstAudioMs != nil {
		underrunMs = a.UnderrunMs
	}
	return
}
