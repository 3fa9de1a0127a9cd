package speak

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/artifact"
	"ttftlab/internal/audio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/espeak"
	"ttftlab/internal/stream"
	"ttftlab/runtime/luaerror"
	"ttftlab/runtime/request"
	"ttftlab/runtime/suggest"
)

// TTS is the speech server of speak(): where it is and how to ask it.
type TTS struct {
	// Endpoint is the server's base URL, API key, headers and TLS.
	Endpoint *endpoint.Endpoint
	// Model is the request's model ("" sends tts-1, OpenAI's).
	Model string
	// Voice is every request's voice; "" picks one from the text's script
	// (en, cmn, ko, ja: the default engine's names for them).
	Voice string
	// Format is "pcm" (default) or "wav"; SampleRate is pcm's rate (0:
	// 24000, OpenAI's).
	Format     string
	SampleRate int
	// Source names how the user chose the server, for hints ("--tts").
	Source string
	// Engine names the default engine when ttftlab serves it
	// ("espeak-ng 1.51"); "" for a server of the user's.
	Engine string
	// CPU, for the default engine, is the CPU time its processes have
	// used so far (they share the cores with the client); nil otherwise.
	CPU func() time.Duration
}

// speakOptionNames are the names speak()'s opts may hold.
var speakOptionNames = []string{"errors", "format", "headers", "model", "on_audio", "sample_rate", "server", "speed", "timeout_ms", "voice"}

// speakCall is one speak() invocation, its arguments checked.
type speakCall struct {
	ep                   *endpoint.Endpoint
	model, voice, format string
	rate                 int
	speed                float64
	headers              map[string]string
	timeout              time.Duration
	onAudio              *lua.LFunction
	returnErrors         bool
}

// Speak is speak(text, opts) -> info: text sent to the speech server
// (POST /v1/audio/speech) and its answer read as audio as it arrives.
func (spk *Binder) Speak(L *lua.LState) int {
	text := L.CheckString(1)
	c := spk.speakArgs(L, "speak", L.Get(2), text)
	req := c.request(text, spk)
	var failed lua.LValue
	if c.onAudio != nil {
		req.Speech.OnAudio = func(tMs float64, so audio.Result) bool {
			L.Push(c.onAudio)
			L.Push(lua.LNumber(tMs))
			L.Push(audioTable(L, so))
			if err := L.PCall(2, 1, nil); err != nil {
				failed = luaerror.Value(err)
				return false
			}
			keep := L.Get(-1)
			L.Pop(1)
			return keep != lua.LFalse
		}
	}
	res, err := stream.Do(spk.h.Ctx(L), req)
	if failed != nil {
		L.Error(failed, 0)
	}
	if err != nil && !c.returnErrors {
		spk.h.Fail(L, "speak: %v", err)
	}
	L.Push(spk.speakInfo(L, res, err, c.voice, text))
	return 1
}

// request is the speech request of text.
func (c *speakCall) request(text string, spk *Binder) stream.Request {
	body, _ := json.Marshal(map[string]any{"model": c.model, "input": text, "voice": c.voice, "response_format": c.format, "speed": c.speed})
	req := stream.Request{URL: c.ep.Base, TLS: c.ep.TLS, Header: c.ep.Headers(), API: stream.APISpeech, Body: body,
		Timeout: c.timeout, Wire: spk.h.Wire, NoKernelStamps: spk.h.NoKernelStamps, Speech: &stream.Speech{}}
	for k, v := range c.headers {
		if req.Header == nil {
			req.Header = map[string]string{}
		}
		req.Header[k] = v
	}
	if c.format == "pcm" {
		f := audio.OpenAIPCM
		f.SampleRate = c.rate
		req.Speech.PCM = &f
	}
	return req
}

// speakInfo is speak()'s info table of a finished request.
func (spk *Binder) speakInfo(L *lua.LState, res *stream.Result, err error, voice, text string) *lua.LTable {
	info := L.CreateTable(0, 18)
	if res != nil {
		if res.Audio != nil {
			audioTable(L, *res.Audio).ForEach(info.RawSet)
			if res.Audio.AudioMs > 0 && res.Audio.FirstAudioMs != nil {
				// From the first sample to the last, over the audio's length.
				info.RawSetString("rtf", lua.LNumber(audio.RealTimeFactor(res.TotalMs-*res.Audio.FirstAudioMs, res.Audio.AudioMs)))
			}
		}
		if !res.Info.T0.IsZero() {
			info.RawSetString("t0_ms", lua.LNumber(spk.h.SinceStart(res.Info.T0)))
		}
		info.RawSetString("total_ms", lua.LNumber(res.TotalMs))
		info.RawSetString("headers_ms", lua.LNumber(res.Info.HeadersMs))
		info.RawSetString("status", lua.LNumber(res.Info.Status))
		info.RawSetString("done", lua.LBool(res.Info.Done))
		info.RawSetString("cut", lua.LBool(res.Info.Cut))
		info.RawSetString("stamp_source", lua.LString(res.Info.StampSource.String()))
	}
	info.RawSetString("voice", lua.LString(voice))
	info.RawSetString("text", lua.LString(text))
	if err != nil {
		info.RawSetString("error", lua.LString(err.Error()))
		if e, ok := err.(*stream.Error); ok {
			info.RawSetString("error_kind", lua.LString(string(e.Kind)))
		}
	}
	return info
}

// audioTable is what an audio answer held, absent times nil.
func audioTable(L *lua.LState, a audio.Result) *lua.LTable {
	t := L.CreateTable(0, 8)
	set := func(name string, p *float64) {
		if p != nil {
			t.RawSetString(name, lua.LNumber(*p))
		}
	}
	set("first_audio_ms", a.FirstAudioMs)
	set("first_voiced_ms", a.FirstVoicedMs)
	set("voice_starts_ms", a.VoiceStartsMs)
	t.RawSetString("audio_ms", lua.LNumber(a.AudioMs))
	t.RawSetString("audio_bytes", lua.LNumber(a.AudioBytes))
	t.RawSetString("header_bytes", lua.LNumber(a.HeaderBytes))
	if a.Format.SampleRate > 0 {
		t.RawSetString("sample_rate", lua.LNumber(a.Format.SampleRate))
		t.RawSetString("channels", lua.LNumber(a.Format.Channels))
	}
	return t
}

// speakArgs checks a speak() opts table (nil: none) over the command's
// --tts settings; text chooses the voice when none is named ("": the
// voice stays "", for a pipeline that chooses it per sentence).
func (spk *Binder) speakArgs(L *lua.LState, fname string, opts lua.LValue, text string) speakCall {
	cfg := spk.h.TTS
	c := speakCall{format: "pcm", rate: audio.OpenAIPCM.SampleRate, speed: 1, model: "tts-1", timeout: spk.h.RequestTimeout}
	if cfg != nil {
		c.ep = cfg.Endpoint
		if cfg.Model != "" {
			c.model = cfg.Model
		}
		c.voice = cfg.Voice
		if cfg.Format != "" {
			c.format = cfg.Format
		}
		if cfg.SampleRate > 0 {
			c.rate = cfg.SampleRate
		}
	}
	bad := func(format string, args ...any) { L.RaiseError(fname+": "+format, args...) }
	str := func(name string, v lua.LValue) string {
		s, ok := v.(lua.LString)
		if !ok || s == "" {
			bad("opts.%s must be a non-empty string, got %s", name, v.Type())
		}
		return string(s)
	}
	num := func(name string, v lua.LValue) float64 {
		n, ok := v.(lua.LNumber)
		if !ok {
			bad("opts.%s must be a number, got %s", name, v.Type())
		}
		return float64(n)
	}
	switch t := opts.(type) {
	case *lua.LNilType:
	case *lua.LTable:
		t.ForEach(func(k, v lua.LValue) {
			name, ok := k.(lua.LString)
			if !ok {
				bad("opts must only have named fields, found the key %s", k)
			}
			switch string(name) {
			case "voice":
				c.voice = str("voice", v)
			case "format":
				c.format = str("format", v)
			case "model":
				c.model = str("model", v)
			case "sample_rate":
				c.rate = int(num("sample_rate", v))
			case "speed":
				c.speed = num("speed", v)
			case "timeout_ms":
				c.timeout = time.Duration(num("timeout_ms", v) * float64(time.Millisecond))
			case "server":
				if tt, ok := v.(*lua.LTable); ok {
					c.ep = spk.h.Requests.EndpointFromTable(L, tt)
				} else {
					c.ep = spk.h.Requests.EndpointFromURL(str("server", v))
				}
			case "headers":
				c.headers = request.OptHeaders(L, v)
			case "on_audio":
				f, ok := v.(*lua.LFunction)
				if fname != "speak" {
					bad("opts.on_audio is speak()'s: a request started in the background cannot call Lua")
				}
				if !ok {
					bad("opts.on_audio must be a function, got %s", v.Type())
				}
				c.onAudio = f
			case "errors":
				c.returnErrors = request.OptErrors(L, v)
			default:
				bad("unknown option %q%s (known: %s)", name, suggest.DidYouMean(string(name), speakOptionNames), strings.Join(speakOptionNames, ", "))
			}
		})
	default:
		bad("opts must be a table, got %s", opts.Type())
	}
	if c.ep == nil {
		bad("no speech server: run with --tts URL (any server of POST /v1/audio/speech) or --tts default (espeak-ng, started for the run), or give opts.server")
	}
	if c.format != "pcm" && c.format != "wav" {
		bad("opts.format %q: want pcm or wav (the formats whose samples can be timed)", c.format)
	}
	if c.rate <= 0 {
		bad("opts.sample_rate must be positive, got %d", c.rate)
	}
	if c.voice == "" && text != "" {
		c.voice = espeak.VoiceFor(text)
	}
	return c
}

// ttsSource is how the script's speech server was chosen, for messages.
func (t *TTS) String() string {
	if t == nil || t.Endpoint == nil {
		return "none"
	}
	return fmt.Sprintf("%s (%s)", t.Endpoint.Base, t.Source)
}

// TTSInfo is tts_info() -> info | nil: the command's speech server, as
// the artifacts may record it (the key never: only whether one is set).
func (spk *Binder) TTSInfo(L *lua.LState) int {
	t := spk.h.TTS
	rec := t.Record()
	if rec == nil {
		L.Push(lua.LNil)
		L.Push(lua.LString("no speech server: run with --tts URL or --tts default"))
		return 2
	}
	info := L.CreateTable(0, 8)
	info.RawSetString("url", lua.LString(rec.URL))
	info.RawSetString("source", lua.LString(rec.Source))
	info.RawSetString("model", lua.LString(rec.Model))
	if rec.Voice != "" {
		info.RawSetString("voice", lua.LString(rec.Voice))
	}
	info.RawSetString("format", lua.LString(rec.Format))
	if rec.APIKey != "" {
		info.RawSetString("api_key", lua.LString(rec.APIKey))
	}
	info.RawSetString("engine", lua.LString(rec.Engine))
	if t.CPU != nil {
		info.RawSetString("cpu_ms", lua.LNumber(float64(t.CPU())/float64(time.Millisecond)))
	}
	L.Push(info)
	return 1
}

// Record is the speech server as the artifacts record it (settings.tts):
// the model and format it is asked for, its key only as where it was set;
// nil without one.
func (t *TTS) Record() *artifact.AudioTTS {
	if t == nil || t.Endpoint == nil {
		return nil
	}
	rec := &artifact.AudioTTS{URL: t.Endpoint.Base, Source: t.Source, Model: t.Model, Format: t.Format, Engine: t.Engine, Voice: t.Voice}
	if rec.Model == "" {
		rec.Model = "tts-1"
	}
	if rec.Format == "" {
		rec.Format = "pcm"
	}
	if t.Endpoint.Key != "" {
		rec.APIKey = "set from " + t.Endpoint.KeySource
	}
	return rec
}
