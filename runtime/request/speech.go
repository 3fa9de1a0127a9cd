package request

import (
	"context"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
	"ttftlab/internal/voice"
	"ttftlab/runtime/luatable"
)

// SpeakWhileStreaming speaks an answer as req streams it: every content
// chunk goes to the pipeline (before the request's own on_chunk), and the
// function returned, called once the stream has ended, waits for the
// audio and gives the answer as spoken.
func SpeakWhileStreaming(ctx context.Context, sp *voice.Speech, req *stream.Request) func(res *stream.Result, err error) *voice.Answer {
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

// FillSpoken adds a spoken answer's figures to a result: first_audio_ms,
// first_voiced_ms, underrun_ms, underruns, speak_end_ms, overhead_ms,
// tts_errors and spoken (each sentence).
func FillSpoken(L *lua.LState, t *luatable.Fields, a *voice.Answer) {
	opt := func(k string, p *float64) {
		if p != nil {
			t.Set(k, lua.LNumber(*p))
		}
	}
	opt("first_audio_ms", a.FirstAudioMs)
	opt("first_voiced_ms", a.FirstVoicedMs)
	opt("speak_end_ms", a.SpeakEndMs)
	opt("overhead_ms", a.OverheadMs)
	t.Set("underrun_ms", lua.LNumber(a.UnderrunMs))
	t.Set("underruns", lua.LNumber(a.Underruns))
	t.Set("tts_errors", lua.LNumber(a.Errors))
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
	t.Set("spoken", list)
}
