package streammany

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/callaudio"
	"ttftlab/internal/stream"
	"ttftlab/internal/stt"
	"ttftlab/internal/turn"
	"ttftlab/internal/voice"
	"ttftlab/runtime/request"
)

// heardTurn is a turn the caller speaks (the command's Caller, --stt):
// what it says, and, once Job.Before has run on the request's goroutine,
// its clip and transcript, or why it was not transcribed. The request's
// goroutine writes it before its result is handed back; the script's
// goroutine reads it after.
type heardTurn struct {
	// text is the last user message's, what the caller is to say
	// (Caller.Listen's text; with --caller-audio the turn's WAV is said
	// instead).
	text string
	// audio, when set, is the turn's own WAV file (a replayed call log's
	// audio), said instead of text or --caller-audio's.
	audio string
	// placeholder stands in the built request's body for the transcript
	// (the last user message's content), as its JSON string's inside.
	placeholder []byte
	clip        *callaudio.Clip
	result      *stt.Result
	err         error
}

// spokenMessages readies a due request to be spoken by the caller: a
// copy of messages (a string, or an array of {role=, content=}) whose
// last user message's content is a placeholder the transcript replaces
// once it is known (heardTurn.before), and that message's text, what the
// caller says. The script's tables are left as they were.
func spokenMessages(L *lua.LState, messages lua.LValue) (lua.LValue, *heardTurn) {
	mark := make([]byte, 12)
	if _, err := rand.Read(mark); err != nil {
		L.RaiseError("stream_many: stt: %v", err)
	}
	placeholder := "ttftlab-transcript-" + hex.EncodeToString(mark)
	h := &heardTurn{placeholder: []byte(placeholder)}
	switch v := messages.(type) {
	case lua.LString:
		h.text = string(v)
		return lua.LString(placeholder), h
	case *lua.LTable:
		list := L.CreateTable(v.Len(), 0)
		for i := 1; i <= v.Len(); i++ {
			list.Append(v.RawGetInt(i))
		}
		last, text := lastUserLine(L, v, "stream_many: stt speaks")
		m := v.RawGetInt(last).(*lua.LTable)
		h.text = text
		heard := L.CreateTable(0, 2)
		m.ForEach(heard.RawSet)
		heard.RawSetString("content", lua.LString(placeholder))
		list.RawSetInt(last, heard)
		return list, h
	}
	return messages, h // not messages: the request's builder refuses it
}

// lastUserLine is the place in messages of their last user message and
// its text, what the caller says; what says raises the error of messages
// without one ("stream_many: stt speaks").
func lastUserLine(L *lua.LState, messages *lua.LTable, says string) (int, string) {
	last := 0
	for i := 1; i <= messages.Len(); i++ {
		if m, ok := messages.RawGetInt(i).(*lua.LTable); ok && m.RawGetString("role") == lua.LString("user") {
			last = i
		}
	}
	if last == 0 {
		L.RaiseError("%s each request's last user message, and this request's messages have none", says)
	}
	m := messages.RawGetInt(last).(*lua.LTable)
	text, ok := m.RawGetString("content").(lua.LString)
	if !ok {
		L.RaiseError("%s each request's last user message, whose content must be a string, got %s", says, m.RawGetString("content").Type())
	}
	return last, string(text)
}

// checkBody makes sure the built body holds the placeholder once, where
// the transcript goes.
func (h *heardTurn) checkBody(L *lua.LState, body []byte) {
	if n := bytes.Count(body, h.placeholder); n != 1 {
		L.RaiseError("stream_many: stt: the request body holds the last user message %d times, want once (an opts.body that replaces the messages?)", n)
	}
}

// before is the request's Job.Before: the caller speaks its turn k
// (Caller.Listen: the clip, paced, transcribed; the turn's own audio
// file when it has one) and the transcript takes the placeholder's place
// in the body; a failed transcription fails the turn (its kind the stt
// package's).
func (h *heardTurn) before(c *request.Caller, k int) func(ctx context.Context, req *stream.Request) error {
	return func(ctx context.Context, req *stream.Request) error {
		if h.audio != "" {
			if h.clip, h.err = c.WAV(h.audio); h.err == nil {
				h.result, h.err = stt.Transcribe(ctx, c.STT, h.clip)
			}
		} else {
			h.result, h.clip, h.err = c.Listen(ctx, h.text, k)
		}
		if h.err != nil {
			return h.err
		}
		text, err := json.Marshal(h.result.Text)
		if err != nil {
			h.err = err
			return err
		}
		req.Body = bytes.Replace(req.Body, h.placeholder, text[1:len(text)-1], 1)
		return nil
	}
}

// said is what the caller said: the clip's text (the text synthesized,
// or the .txt beside a WAV of --caller-audio: "" when it has none), the
// message's text before there is a clip.
func (h *heardTurn) said() string {
	if h.clip != nil {
		return h.clip.Text
	}
	return h.text
}

// fillHeard adds the turn as the caller spoke it to the row: the length
// of the caller's audio, mouth to ear, the final transcript and the
// endpointing (turn.Parts of request.TurnOf: the stamps of the turn
// exactly as stream()'s info.turn has them, from the stream result res
// and the answer as spoken, nil when it was not), the server's queue
// time and the word error rate against what was said (none when that is
// not known: a WAV without its .txt).
func (h *heardTurn) fillHeard(rec *artifact.Request, res *stream.Result, spoken *voice.Answer) {
	switch {
	case h.clip != nil:
		rec.CallerAudioMs = artifact.Ms(h.clip.DurationMs())
	case h.result != nil:
		rec.CallerAudioMs = artifact.Ms(h.result.AudioMs)
	default:
		var se *stt.Error
		if errors.As(h.err, &se) && se.Partial != nil {
			rec.CallerAudioMs = artifact.Ms(se.Partial.AudioMs)
		}
	}
	r := h.result
	if r == nil || h.err != nil {
		return
	}
	p := request.TurnOf(r, res, spoken).Parts()
	rec.MouthToEarMs, rec.SttFinalMs, rec.EndpointingMs = p.MouthToEarMs, p.SttFinalMs, p.EndpointingMs
	if r.QueueMs != nil {
		rec.SttQueueMs = artifact.Ms(*r.QueueMs)
	}
	if said := h.said(); said != "" {
		rec.WER = artifact.Num(turn.WER(said, r.Text))
	}
}

// heardFields are the result table's fields of a spoken turn: said
// (what the caller said, when known), transcript (what the LLM was
// asked) and the row's figures of the turn.
func (h *heardTurn) heardFields(t *lua.LTable, rec artifact.Request) {
	if said := h.said(); said != "" {
		t.RawSetString("said", lua.LString(said))
	}
	if h.result != nil && h.err == nil {
		t.RawSetString("transcript", lua.LString(h.result.Text))
	}
	for _, f := range []struct {
		k string
		p *float64
	}{{"caller_audio_ms", rec.CallerAudioMs}, {"mouth_to_ear_ms", rec.MouthToEarMs}, {"stt_final_ms", rec.SttFinalMs},
		{"endpointing_ms", rec.EndpointingMs}, {"stt_queue_ms", rec.SttQueueMs}, {"wer", rec.WER}} {
		if f.p != nil {
			t.RawSetString(f.k, lua.LNumber(*f.p))
		}
	}
}

// sttOption reads an stt option: true, the command's caller (an error
// without one); false or nil, none.
func (h *Host) sttOption(L *lua.LState, label string, v lua.LValue) *request.Caller {
	switch v {
	case lua.LNil, lua.LFalse:
		return nil
	case lua.LTrue:
		if h.Caller == nil {
			L.RaiseError("%s: %s", label, request.NoSTT)
		}
		return h.Caller
	}
	L.RaiseError("%s must be true (every turn spoken by the caller, --stt) or false, got %s", label, v.Type())
	return nil
}
