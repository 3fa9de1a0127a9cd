package request

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/sentence"
	"ttftlab/internal/stream"
	"ttftlab/internal/stt"
	"ttftlab/internal/turn"
	"ttftlab/internal/voice"
	"ttftlab/runtime/luatable"
	"ttftlab/runtime/suggest"
)

// utterance is what one turn of the caller says and how it is heard:
// read from listen()'s arguments or stream()'s opts.stt.
type utterance struct {
	// audio is a WAV file to send ("" : the turn's clip, Caller.Clip);
	// text is what is spoken when there is no audio; said the reference
	// of the word error rate ("" : the clip's own text).
	audio, text, said, voice string
	cfg                      stt.Config
	returnErrors             bool
}

// listenOptionNames are listen()'s opts; sttOptionNames stream()'s
// opts.stt table's.
var (
	listenOptionNames = []string{"api", "errors", "frame_ms", "language", "silence_ms", "text", "timeout_ms", "voice"}
	sttOptionNames    = []string{"api", "audio", "frame_ms", "language", "silence_ms", "text", "timeout_ms", "voice"}
)

// NoSTT says how to name a speech-to-text server, where one is needed and
// the command has none.
const NoSTT = "no speech-to-text server: run with --stt URL (a server of POST /v1/audio/transcriptions, whisper-server's /inference " +
	"or a Realtime WebSocket), or --stt default for pocketsphinx"

// caller is the command's caller side, or a failure naming what to add.
func (rq *Binder) caller(L *lua.LState, label string) *Caller {
	if rq.h.STT == nil {
		rq.h.Fail(L, "%s: %s", label, NoSTT)
	}
	return rq.h.STT
}

// STTInfo is stt_info() -> info | nil, why: the command's speech-to-text
// side as an artifact records it: url, api, engine, model, language,
// caller_audio, api_key (only how it was set) and, for the default
// engine, cpu_ms.
func (rq *Binder) STTInfo(L *lua.LState) int {
	c := rq.h.STT
	if c == nil || c.STT.Endpoint == nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(NoSTT))
		return 2
	}
	var t luatable.Fields
	jsonFields(&t, c.Record())
	if c.CPU != nil {
		t.Set("cpu_ms", lua.LNumber(float64(c.CPU())/float64(time.Millisecond)))
	}
	L.Push(t.Table(L))
	return 1
}

// utteranceOptions reads the options of an utterance from t (nil: none)
// over the command's settings.
func (rq *Binder) utteranceOptions(L *lua.LState, label string, c *Caller, t *lua.LTable, names []string) utterance {
	u := utterance{voice: c.Voice, cfg: c.STT}
	if t == nil {
		return u
	}
	t.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok {
			L.RaiseError("%s must only have named fields, found the key %s", label, k)
		}
		field := label + "." + string(name)
		known := false
		for _, n := range names {
			known = known || n == string(name)
		}
		if !known {
			L.RaiseError("%s: unknown option %q%s (known: %s)", label, name, suggest.DidYouMean(string(name), names), strings.Join(names, ", "))
		}
		switch name {
		case "audio":
			u.audio = luatable.Str(L, field, v)
		case "text":
			u.text = luatable.Str(L, field, v)
		case "voice":
			u.voice = luatable.Str(L, field, v)
		case "language":
			u.cfg.Language = luatable.Str(L, field, v)
		case "api":
			api, err := stt.ParseAPI(luatable.Str(L, field, v))
			if err != nil {
				L.RaiseError("%s: %v", field, err)
			}
			u.cfg.API = api
		case "frame_ms":
			n := luatable.Num(L, field, v)
			if n < 1 || n != float64(int(n)) {
				L.RaiseError("%s must be a whole number of ms, 1 or more, got %s", field, v.String())
			}
			u.cfg.FrameMs = int(n)
		case "silence_ms":
			u.cfg.SilenceMs = int(luatable.Ms(L, field, v).Milliseconds())
		case "timeout_ms":
			u.cfg.Timeout = luatable.Ms(L, field, v)
		case "errors":
			u.returnErrors = OptErrors(L, v)
		}
	})
	if u.audio != "" && t.RawGetString("voice") != lua.LNil {
		L.RaiseError("%s.voice and %s.audio both set: the audio is the file's, give one", label, label)
	}
	return u
}

// clip is the utterance's audio: its WAV file, else turn k's clip of
// text (the caller's audio folder's, or text spoken).
func (u *utterance) clip(ctx context.Context, c *Caller, text string, k int) (*callaudio.Clip, error) {
	if u.audio != "" {
		return c.WAV(u.audio)
	}
	return c.Clip(ctx, text, u.voice, k)
}

// heard is an utterance transcribed, or why it was not.
type heard struct {
	clip   *callaudio.Clip
	said   string
	engine string // the default engine's name ("" : a server of the user's)
	result *stt.Result
	err    error
}

// hear makes the utterance's clip (turn k's clip of text unless a file
// is given) and transcribes it.
func (rq *Binder) hear(L *lua.LState, c *Caller, u utterance, text string) heard {
	ctx := rq.h.Ctx(L)
	h := heard{engine: c.Engine, said: u.said}
	if u.audio == "" {
		rq.turns++
	}
	h.clip, h.err = u.clip(ctx, c, text, rq.turns)
	if h.err != nil {
		if h.said == "" && u.audio == "" && c.AudioDir == "" {
			h.said = text // what the caller was to say
		}
		h.err = fmt.Errorf("the caller's audio: %w", h.err)
		return h
	}
	if h.said == "" {
		h.said = h.clip.Text
	}
	h.result, h.err = stt.Transcribe(ctx, u.cfg, h.clip)
	if h.err != nil {
		h.err = hinted{h.err, sttHint(h.err)}
	}
	return h
}

// sttHint is what to try after a failed transcription.
func sttHint(err error) string {
	var se *stt.Error
	if !errors.As(err, &se) {
		return ""
	}
	switch se.Kind {
	case stt.KindConnect:
		return "; check --stt, or start the speech-to-text server there (--stt default: pocketsphinx)"
	case stt.KindAuth:
		return "; check --stt-api-key"
	case stt.KindRateLimited:
		return "; the speech-to-text server limits the request rate (429): lower the load, or raise the quota"
	case stt.KindTimeout:
		return "; raise timeout_ms if the server is slow, or check --stt-api: it may not be the server's protocol"
	case stt.KindHTTP:
		if se.Status == 404 || se.Status == 405 {
			return "; check that --stt is the server's base URL, and --stt-api its protocol"
		}
	}
	return ""
}

// ErrorKind is a turn's failure's kind: the stt package's (stt_timeout,
// stt_rate_limited, ...), "canceled" for a stop, "stt_error" for anything
// else (the caller's audio could not be made).
func ErrorKind(err error) string {
	var se *stt.Error
	switch {
	case errors.As(err, &se):
		return se.Kind
	case errors.Is(err, context.Canceled):
		return string(stream.KindCanceled)
	}
	return stt.KindServer
}

// Listen is listen(text_or_wav, opts) -> info: the caller's utterance (a
// .wav file that exists, else text spoken as the turn's clip) sent to the
// speech-to-text server and its transcript with the stamps, on the turn
// clock.
func (rq *Binder) Listen(L *lua.LState) int {
	arg := L.CheckString(1)
	var opts *lua.LTable
	switch v := L.Get(2).(type) {
	case *lua.LNilType:
	case *lua.LTable:
		opts = v
	default:
		L.ArgError(2, "opts must be a table, got "+v.Type().String())
	}
	c := rq.caller(L, "listen")
	u := rq.utteranceOptions(L, "listen: opts", c, opts, listenOptionNames)
	text := arg
	if strings.HasSuffix(strings.ToLower(arg), ".wav") {
		if st, err := os.Stat(arg); err == nil && !st.IsDir() {
			u.audio, text = arg, ""
		}
	}
	if u.audio != "" && opts != nil && opts.RawGetString("voice") != lua.LNil {
		L.RaiseError("listen: opts.voice is for text: %s is audio already", arg)
	}
	u.said = u.text
	h := rq.hear(L, c, u, text)
	if h.err != nil && !u.returnErrors {
		rq.h.Fail(L, "listen: %v", h.err)
	}
	var t luatable.Fields
	rq.heardFields(L, &t, h)
	if h.err != nil {
		t.Set("error", lua.LString(h.err.Error()))
		t.Set("error_kind", lua.LString(ErrorKind(h.err)))
	}
	L.Push(t.Table(L))
	return 1
}

// heardFields are listen()'s fields of an utterance heard: the result's
// (stt.Result's names), said, wer, source, t0_ms and the
// speech-to-text side's parts of a turn (turn.Parts' names).
func (rq *Binder) heardFields(L *lua.LState, t *luatable.Fields, h heard) {
	if h.clip != nil {
		t.Set("source", lua.LString(h.clip.Source))
	}
	if h.said != "" {
		t.Set("said", lua.LString(h.said))
	}
	if h.engine != "" {
		t.Set("engine", lua.LString(h.engine))
	}
	r := h.result
	if r == nil {
		var se *stt.Error
		if errors.As(h.err, &se) {
			r = se.Partial
		}
	}
	if r == nil {
		return
	}
	if h.result == nil {
		// A failure's stamps, not its transcript: there is none.
		jsonFields(t, r, "text")
	} else {
		jsonFields(t, r)
	}
	if h.result != nil && h.said != "" {
		t.Set("wer", lua.LNumber(turn.WER(h.said, r.Text)))
	}
	if !r.Start.IsZero() {
		t.Set("t0_ms", lua.LNumber(rq.h.SinceStart(r.Start)))
	}
	if h.result != nil {
		jsonFields(t, TurnOf(r, nil, nil).Parts())
	}
}

// jsonFields sets v's fields under their JSON names, skipping null ones
// and those named in skip: the names of the records, given once where the
// type is.
func jsonFields(t *luatable.Fields, v any, skip ...string) {
	b, err := json.Marshal(v)
	if err != nil {
		return
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return
	}
	for k, x := range m {
		if slices.Contains(skip, k) {
			continue
		}
		switch x := x.(type) {
		case float64:
			t.Set(k, lua.LNumber(x))
		case string:
			t.Set(k, lua.LString(x))
		case bool:
			t.Set(k, lua.LBool(x))
		}
	}
}

// streamHeard is stream()'s opts.stt: nil without one; else the last user
// message (or opts.stt.text) spoken and transcribed, and messages (L's
// argument 1) replaced by a copy whose last user message is the
// transcript.
func (rq *Binder) streamHeard(L *lua.LState) *heard {
	opts, ok := L.Get(2).(*lua.LTable)
	if !ok {
		return nil
	}
	var spec *lua.LTable
	switch v := opts.RawGetString("stt").(type) {
	case *lua.LNilType:
		return nil
	case lua.LBool:
		if !bool(v) {
			return nil
		}
	case *lua.LTable:
		spec = v
	default:
		L.RaiseError("stream: opts.stt must be true (the command's --stt) or a table {audio =, text =, voice =, ...}, got %s", v.Type())
	}
	// The other options are checked first: a typo must not wait for a
	// turn spoken and heard.
	opts.ForEach(func(k, _ lua.LValue) {
		if name, ok := k.(lua.LString); ok && !isOption(string(name)) {
			L.RaiseError("stream: unknown option %q%s (known: %s)", name, suggest.DidYouMean(string(name), optionNames), strings.Join(optionNames, ", "))
		}
	})
	c := rq.caller(L, "stream: opts.stt")
	u := rq.utteranceOptions(L, "stream: opts.stt", c, spec, sttOptionNames)
	messages, last := lastUserMessage(L, L.Get(1))
	text := u.text
	if text == "" && u.audio == "" {
		s, ok := last.RawGetString("content").(lua.LString)
		if !ok {
			L.RaiseError("stream: opts.stt speaks the last user message, whose content is not a string: give opts.stt.text")
		}
		text = string(s)
	}
	// What was said is the clip's own text (the text spoken, or the
	// .txt beside a WAV file) unless opts.stt.text says it.
	u.said = u.text
	h := rq.hear(L, c, u, text)
	if h.err == nil {
		heardLast := L.CreateTable(0, 2)
		last.ForEach(heardLast.RawSet)
		heardLast.RawSetString("content", lua.LString(h.result.Text))
		replaceLast(messages, last, heardLast)
		L.Replace(1, messages)
	}
	return &h
}

func isOption(name string) bool {
	for _, n := range optionNames {
		if n == name {
			return true
		}
	}
	return false
}

// lastUserMessage is a copy of messages (a string, or an array of
// {role=, content=}) as an array, and its last user message.
func lastUserMessage(L *lua.LState, v lua.LValue) (*lua.LTable, *lua.LTable) {
	list := L.CreateTable(1, 0)
	switch v := v.(type) {
	case lua.LString:
		m := L.CreateTable(0, 2)
		m.RawSetString("role", lua.LString("user"))
		m.RawSetString("content", v)
		list.Append(m)
	case *lua.LTable:
		for i := 1; i <= v.Len(); i++ {
			list.Append(v.RawGetInt(i))
		}
	default:
		L.ArgError(1, "messages must be a string or an array of {role=, content=} tables, got "+v.Type().String())
	}
	for i := list.Len(); i >= 1; i-- {
		if m, ok := list.RawGetInt(i).(*lua.LTable); ok && m.RawGetString("role") == lua.LString("user") {
			return list, m
		}
	}
	L.RaiseError("stream: opts.stt speaks the last user message, and messages has none")
	return nil, nil
}

// replaceLast puts with in list where was is.
func replaceLast(list, was, with *lua.LTable) {
	for i := list.Len(); i >= 1; i-- {
		if list.RawGetInt(i) == was {
			list.RawSetInt(i, with)
			return
		}
	}
}

// TurnInfo is info.turn of a stream() with opts.stt: the transcript
// asked (r's text; r nil: the turn was not heard), what was said (""
// unknown) and the word error rate, the turn's stamps (TurnOf's) and
// parts (internal/turn), and the speech-to-text side's figures, engine
// the default engine's name ("" for a server of the user's).
func TurnInfo(L *lua.LState, said, engine string, r *stt.Result, res *stream.Result, answer *voice.Answer) *lua.LTable {
	var t luatable.Fields
	if said != "" {
		t.Set("said", lua.LString(said))
	}
	if r == nil {
		return t.Table(L)
	}
	t.Set("transcript", lua.LString(r.Text))
	if said != "" {
		t.Set("wer", lua.LNumber(turn.WER(said, r.Text)))
	}
	s := TurnOf(r, res, answer)
	var st luatable.Fields
	st.Set("speech_end_ms", lua.LNumber(s.SpeechEndMs))
	for _, f := range []struct {
		k string
		p *float64
	}{{"speech_stopped_ms", s.SpeechStoppedMs}, {"first_partial_ms", s.FirstPartialMs}, {"final_ms", s.FinalMs},
		{"request_ms", s.RequestMs}, {"ttft_ms", s.TTFTMs}, {"first_sentence_ms", s.FirstSentenceMs},
		{"tts_sent_ms", s.TTSSentMs}, {"first_audio_ms", s.FirstAudioMs}} {
		if f.p != nil {
			st.Set(f.k, lua.LNumber(*f.p))
		}
	}
	t.Set("stamps", st.Table(L))
	var parts luatable.Fields
	jsonFields(&parts, s.Parts())
	t.Set("parts", parts.Table(L))
	var side luatable.Fields
	side.Set("api", lua.LString(r.API))
	if r.Dialect != "" {
		side.Set("dialect", lua.LString(r.Dialect))
	}
	side.Set("rate", lua.LNumber(r.Rate))
	side.Set("audio_ms", lua.LNumber(r.AudioMs))
	if r.QueueMs != nil {
		side.Set("queue_ms", lua.LNumber(*r.QueueMs))
	}
	if engine != "" {
		side.Set("engine", lua.LString(engine))
	}
	t.Set("stt", side.Table(L))
	return t.Table(L)
}

// FirstSentenceMs is when an answer's first sentence was complete, as a
// speaker's pace p of its chunks finds it; a stream that did not finish
// (done false) has one only when a sentence was complete before it
// ended.
func FirstSentenceMs(p voice.Pacing, chunks []stream.Chunk, done bool) (float64, bool) {
	first, ok := p.FirstSentence()
	if !ok {
		return 0, false
	}
	if !done {
		var b strings.Builder
		for _, c := range chunks {
			b.WriteString(c.Text)
		}
		if _, ok := sentence.First(b.String(), false); !ok {
			return 0, false
		}
	}
	return first, true
}

// failedTurn is stream()'s answer to a turn that could not be heard: a
// failure, as a failed request is (with opts.errors = "return": empty
// results, info.error, info.error_kind and info.turn).
func (rq *Binder) failedTurn(L *lua.LState, h *heard) int {
	returnErrors := false
	if opts, ok := L.Get(2).(*lua.LTable); ok {
		if v := opts.RawGetString("errors"); v != lua.LNil {
			returnErrors = OptErrors(L, v)
		}
	}
	if !returnErrors {
		rq.h.Fail(L, "stream: %v", h.err)
	}
	res := &stream.Result{}
	n := rq.pushStreamResult(L, res, h.err)
	if info, ok := L.Get(-1).(*lua.LTable); ok {
		info.RawSetString("error_kind", lua.LString(ErrorKind(h.err)))
		info.RawSetString("turn", TurnInfo(L, h.said, h.engine, h.result, res, nil))
	}
	return n
}
