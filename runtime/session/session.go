// Package session is the binding of a speech-to-speech session:
// session(url, opts) speaks the caller's turns to a Realtime server
// (internal/realtime) and returns every turn's stamps and figures as
// plain tables, and realtime_info() says which server the command names.
// What it needs of the Lua host comes in a Host; it imports nothing of
// the host.
package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/realtime"
	"ttftlab/internal/stream"
	"ttftlab/runtime/luatable"
	"ttftlab/runtime/request"
	"ttftlab/runtime/suggest"
)

// Server is the command's Realtime server (--realtime and its flags) and
// what the caller's text turns are spoken with.
type Server struct {
	// Endpoint is the server's base URL, key, headers and TLS.
	Endpoint *endpoint.Endpoint
	// Espeak is the espeak-ng binary that speaks a text turn ("": none,
	// only .wav turns); Voice the caller's espeak-ng voice (--caller-voice;
	// "": from each text's script).
	Espeak, Voice string
}

// Host is what the binding takes from the Lua host. Every function is
// called on the Lua state's goroutine.
type Host struct {
	// Server is the command's Realtime server; nil: none.
	Server *Server
	// Ctx is the context of a call on L: done when the run is stopped.
	Ctx func(L *lua.LState) context.Context
	// Fail raises a failure that is not the Lua code's (no traceback).
	Fail func(L *lua.LState, format string, args ...any)
	// SinceStart places an instant on now_ms()'s clock (a turn's t0_ms).
	SinceStart func(t time.Time) float64
}

// Binder is the binding over one Lua state.
type Binder struct {
	h Host
	// clips are the caller's clips made so far, by source (a WAV's path,
	// or the voice and the text spoken): a script says the same turns
	// again, session after session.
	clips map[string]*callaudio.Clip
}

// New is the binding over h.
func New(h Host) *Binder { return &Binder{h: h, clips: map[string]*callaudio.Clip{}} }

// NoServer says how to name a Realtime server where one is needed and
// the command has none.
const NoServer = "no Realtime server: run with --realtime URL (the base of a server of the Realtime WebSocket API, " +
	"e.g. ws://127.0.0.1:8090 for `ttftlab voice serve`), or give session() a url"

// optionNames are session()'s opts; turnNames a turn's.
var (
	optionNames = []string{"cancel_after_ms", "errors", "events", "frame_ms", "instructions", "model", "timeout_ms", "turns", "voice"}
	turnNames   = []string{"barge_after_ms", "say"}
)

// call is one session() invocation, its arguments checked.
type call struct {
	cfg          realtime.Config
	says         []string
	barge        []*float64
	returnErrors bool
}

// Session is session(url, opts) -> result: one session with the Realtime
// server at url (nil: the command's --realtime), the caller saying
// opts.turns in order.
func (b *Binder) Session(L *lua.LState) int {
	c := b.args(L)
	ctx := b.h.Ctx(L)
	turns := make([]realtime.Turn, len(c.says))
	for i, say := range c.says {
		clip, err := b.clip(ctx, say)
		if err != nil {
			b.h.Fail(L, "session: turn %d: the caller's audio: %v", i+1, err)
		}
		turns[i] = realtime.Turn{Clip: clip, BargeAfterMs: c.barge[i]}
	}
	res, err := realtime.Run(ctx, c.cfg, turns)
	kind, msg := "", ""
	if err != nil {
		kind, msg = errorKind(err), err.Error()
		var re *realtime.Error
		if errors.As(err, &re) {
			res = re.Partial
		}
		if !c.returnErrors {
			b.h.Fail(L, "session: %s (%s)", msg, kind)
		}
	}
	var t luatable.Fields
	t.Set("server", lua.LString(endpoint.ShownURL(c.cfg.Endpoint.Base)))
	turnList := L.CreateTable(0, 0)
	if res != nil {
		if res.Dialect != "" {
			t.Set("dialect", lua.LString(res.Dialect))
		}
		if res.Rate > 0 {
			t.Set("rate", lua.LNumber(res.Rate))
		}
		turnList = L.CreateTable(len(res.Turns), 0)
		for i, rt := range res.Turns {
			if rt.Said == "" && i < len(turns) && turns[i].Clip != nil {
				rt.Said = turns[i].Clip.Text
			}
			tt := TurnTable(L, rt)
			if i < len(res.TurnStarts) && !res.TurnStarts[i].IsZero() && b.h.SinceStart != nil {
				tt.RawSetString("t0_ms", lua.LNumber(b.h.SinceStart(res.TurnStarts[i])))
			}
			turnList.Append(tt)
		}
	}
	t.Set("turns", turnList)
	if err != nil {
		t.Set("error", lua.LString(msg))
		t.Set("error_kind", lua.LString(kind))
	}
	L.Push(t.Table(L))
	return 1
}

// errorKind is a failed session's kind: the driver's (realtime_*),
// "canceled" for a stop, "realtime_error" for anything else.
func errorKind(err error) string {
	var re *realtime.Error
	switch {
	case errors.As(err, &re) && re.Kind != "":
		return re.Kind
	case errors.Is(err, context.Canceled):
		return string(stream.KindCanceled)
	}
	return realtime.KindServer
}

// TurnTable is a turn as a plain table: every field of
// artifact.RealtimeTurn under its JSON name, a figure the turn never
// reached left out (nil), its events an array of {type, at_ms, sent}.
func TurnTable(L *lua.LState, v any) *lua.LTable {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // a record of numbers and strings always marshals
	}
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		panic(err)
	}
	return plain(L, m).(*lua.LTable)
}

// plain is a decoded JSON value as Lua's, null left out.
func plain(L *lua.LState, v any) lua.LValue {
	switch v := v.(type) {
	case float64:
		return lua.LNumber(v)
	case string:
		return lua.LString(v)
	case bool:
		return lua.LBool(v)
	case []any:
		t := L.CreateTable(len(v), 0)
		for _, x := range v {
			t.Append(plain(L, x))
		}
		return t
	case map[string]any:
		var fs luatable.Fields
		for k, x := range v {
			if x != nil {
				fs.Set(k, plain(L, x))
			}
		}
		return fs.Table(L)
	}
	return lua.LNil
}

// args checks session()'s arguments over the command's --realtime.
func (b *Binder) args(L *lua.LState) call {
	bad := func(format string, args ...any) { L.RaiseError("session: "+format, args...) }
	var c call
	switch u := L.Get(1).(type) {
	case *lua.LNilType:
		if b.h.Server == nil || b.h.Server.Endpoint == nil {
			b.h.Fail(L, "session: %s", NoServer)
		}
		ep := *b.h.Server.Endpoint
		c.cfg.Endpoint = &ep
	case lua.LString:
		c.cfg.Endpoint = b.endpointOf(L, string(u))
	default:
		L.ArgError(1, "url must be a string (ws://HOST:PORT or http://HOST:PORT) or nil (the command's --realtime), got "+u.Type().String())
	}
	opts, ok := L.Get(2).(*lua.LTable)
	if !ok {
		L.ArgError(2, "opts must be a table {turns = {{say = TEXT_OR_WAV}, ...}, ...}, got "+L.Get(2).Type().String())
	}
	num := func(name string, v lua.LValue) float64 {
		n, ok := v.(lua.LNumber)
		if !ok {
			bad("opts.%s must be a number, got %s", name, v.Type())
		}
		return float64(n)
	}
	ms := func(name string, v lua.LValue) time.Duration {
		n := num(name, v)
		if n <= 0 {
			bad("opts.%s must be above 0, got %s", name, v.String())
		}
		return time.Duration(n * float64(time.Millisecond))
	}
	str := func(name string, v lua.LValue) string {
		s, ok := v.(lua.LString)
		if !ok || s == "" {
			bad("opts.%s must be a non-empty string, got %s", name, v.Type())
		}
		return string(s)
	}
	var turns *lua.LTable
	opts.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok {
			bad("opts must only have named fields, found the key %s", k)
		}
		switch string(name) {
		case "turns":
			if turns, ok = v.(*lua.LTable); !ok {
				bad("opts.turns must be an array of {say = TEXT_OR_WAV, barge_after_ms = N}, got %s", v.Type())
			}
		case "voice":
			c.cfg.Voice = str("voice", v)
		case "instructions":
			c.cfg.Instructions = str("instructions", v)
		case "model":
			c.cfg.Endpoint.Model, c.cfg.Endpoint.ModelSource = str("model", v), "session()'s opts.model"
		case "frame_ms":
			n := num("frame_ms", v)
			if n < 1 || n != float64(int(n)) {
				bad("opts.frame_ms must be a whole number of ms, 1 or more, got %s", v.String())
			}
			c.cfg.FrameMs = int(n)
		case "timeout_ms":
			c.cfg.TurnTimeout = ms("timeout_ms", v)
		case "cancel_after_ms":
			c.cfg.CancelAfter = ms("cancel_after_ms", v)
		case "events":
			e, ok := v.(lua.LBool)
			if !ok {
				bad("opts.events must be true or false, got %s", v.Type())
			}
			c.cfg.KeepEvents = bool(e)
		case "errors":
			c.returnErrors = request.OptErrors(L, v)
		default:
			bad("unknown option %q%s (known: %s)", name, suggest.DidYouMean(string(name), optionNames), strings.Join(optionNames, ", "))
		}
	})
	if turns == nil {
		bad("opts.turns is missing: give the caller's turns, {{say = TEXT_OR_WAV, barge_after_ms = N}, ...}")
	}
	n := turns.Len()
	if n == 0 {
		bad("opts.turns is empty: give at least one {say = TEXT_OR_WAV}")
	}
	turns.ForEach(func(k, _ lua.LValue) {
		if i, ok := k.(lua.LNumber); !ok || float64(i) != float64(int(i)) || int(i) < 1 || int(i) > n {
			bad("opts.turns must be an array (keys 1..%d), found the key %s", n, k)
		}
	})
	for i := 1; i <= n; i++ {
		say, barge := turnArgs(L, i, turns.RawGetInt(i))
		c.says, c.barge = append(c.says, say), append(c.barge, barge)
	}
	return c
}

// turnArgs checks opts.turns[i]: what the caller says and when it barges
// in.
func turnArgs(L *lua.LState, i int, v lua.LValue) (string, *float64) {
	t, ok := v.(*lua.LTable)
	if !ok {
		L.RaiseError("session: opts.turns[%d] must be a table {say = TEXT_OR_WAV, barge_after_ms = N}, got %s", i, v.Type())
	}
	var say string
	var barge *float64
	t.ForEach(func(k, v lua.LValue) {
		name, ok := k.(lua.LString)
		if !ok {
			L.RaiseError("session: opts.turns[%d] must only have named fields, found the key %s", i, k)
		}
		switch string(name) {
		case "say":
			s, ok := v.(lua.LString)
			if !ok || strings.TrimSpace(string(s)) == "" {
				L.RaiseError("session: opts.turns[%d].say must be a non-empty string (text, or a .wav file), got %s", i, v.Type())
			}
			say = string(s)
		case "barge_after_ms":
			n, ok := v.(lua.LNumber)
			if !ok || n < 0 {
				L.RaiseError("session: opts.turns[%d].barge_after_ms must be a number of ms, 0 or more, got %s", i, v.String())
			}
			ms := float64(n)
			barge = &ms
		default:
			L.RaiseError("session: opts.turns[%d]: unknown field %q%s (known: %s)", i, name, suggest.DidYouMean(string(name), turnNames), strings.Join(turnNames, ", "))
		}
	})
	if say == "" {
		L.RaiseError("session: opts.turns[%d] has no say: give the text the caller says, or a .wav file", i)
	}
	return say, barge
}

// endpointOf is the Realtime server of a url a script gives: the
// command's --realtime settings (key, headers, TLS) when it is the same
// origin as --realtime, else the url alone, with no key and no headers: a
// key is the command's to give, to its own server only.
func (b *Binder) endpointOf(L *lua.LState, raw string) *endpoint.Endpoint {
	raw = strings.TrimRight(strings.TrimSpace(raw), "/")
	scheme, _, _ := strings.Cut(raw, "://")
	switch strings.ToLower(scheme) {
	case "ws", "wss", "http", "https":
	default:
		L.RaiseError("session: url %q: want ws://HOST:PORT, wss://, http:// or https:// (the server's base; /v1/realtime is added)", endpoint.ShownURL(raw))
	}
	if s := b.h.Server; s != nil && s.Endpoint != nil && endpoint.SameOrigin(httpOf(s.Endpoint.Base), httpOf(raw)) {
		ep := *s.Endpoint
		ep.Base = raw
		return &ep
	}
	return &endpoint.Endpoint{Base: raw}
}

// httpOf is a ws(s) URL as the http(s) one of the same origin.
func httpOf(u string) string {
	if len(u) > 2 && strings.EqualFold(u[:2], "ws") {
		return "http" + u[2:]
	}
	return u
}

// clip is what the caller says: a .wav file (its text from the .txt
// beside it), else the text spoken by espeak-ng; made once per source.
func (b *Binder) clip(ctx context.Context, say string) (*callaudio.Clip, error) {
	if strings.HasSuffix(strings.ToLower(say), ".wav") {
		return b.cached("wav\x00"+say, func() (*callaudio.Clip, error) { return callaudio.ReadWAV(say) })
	}
	s := b.h.Server
	if s == nil || s.Espeak == "" {
		return nil, fmt.Errorf("no espeak-ng to speak %q with: give a .wav file, or install espeak-ng (`ttftlab tts install`)", say)
	}
	return b.cached("say\x00"+s.Voice+"\x00"+say, func() (*callaudio.Clip, error) {
		return callaudio.Synthesize(ctx, s.Espeak, say, s.Voice)
	})
}

func (b *Binder) cached(key string, make func() (*callaudio.Clip, error)) (*callaudio.Clip, error) {
	if c := b.clips[key]; c != nil {
		return c, nil
	}
	c, err := make()
	if err != nil {
		return nil, err
	}
	b.clips[key] = c
	return c, nil
}

// Info is realtime_info() -> info | nil, why: the command's Realtime
// server as an artifact may record it: url (shown without secrets),
// api_key (only how it was set), headers (their names).
func (b *Binder) Info(L *lua.LState) int {
	s := b.h.Server
	if s == nil || s.Endpoint == nil {
		L.Push(lua.LNil)
		L.Push(lua.LString(NoServer))
		return 2
	}
	ep := s.Endpoint
	var t luatable.Fields
	t.Set("url", lua.LString(endpoint.ShownURL(ep.Base)))
	if ep.Key != "" {
		t.Set("api_key", lua.LString("set from "+ep.KeySource))
	}
	if ep.Model != "" {
		t.Set("model", lua.LString(ep.Model))
	}
	L.Push(t.Table(L))
	return 1
}
