package speak

import (
	"context"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/stream"
)

// speechHandle is a speech request started in the background: its
// goroutine runs the request and never touches Lua; wait() builds the
// info on the script's goroutine.
type speechHandle struct {
	text, voice string
	cancel      context.CancelFunc
	done        chan struct{}
	res         *stream.Result
	err         error
	info        *lua.LTable // built once, by the first wait
}

const speechHandleType = "speech_request"

// SpeakStart is speak_start(text, opts) -> handle: the request of
// speak(text, opts) started at once on a goroutine of its own, so a script
// can send a sentence to the speech server while the answer goes on
// streaming. handle:wait() -> info (speak()'s info; a failure is in
// info.error, never raised), handle:cancel() hangs up (info.cut),
// handle:done() -> whether it ended.
func (spk *Binder) SpeakStart(L *lua.LState) int {
	text := L.CheckString(1)
	c := spk.speakArgs(L, "speak_start", L.Get(2), text)
	req := c.request(text, spk)
	ctx, cancel := context.WithCancel(spk.h.Ctx(L))
	h := &speechHandle{text: text, voice: c.voice, cancel: cancel, done: make(chan struct{})}
	go func() {
		defer close(h.done)
		h.res, h.err = stream.Do(ctx, req)
	}()
	ud := L.NewUserData()
	ud.Value = h
	L.SetMetatable(ud, spk.speechHandleMeta(L))
	L.Push(ud)
	return 1
}

func (spk *Binder) speechHandleMeta(L *lua.LState) lua.LValue {
	if mt := L.GetTypeMetatable(speechHandleType); mt != lua.LNil {
		return mt
	}
	mt := L.NewTypeMetatable(speechHandleType)
	check := func(L *lua.LState) *speechHandle {
		ud := L.CheckUserData(1)
		h, ok := ud.Value.(*speechHandle)
		if !ok {
			L.ArgError(1, "a speak_start handle expected")
		}
		return h
	}
	L.SetField(mt, "__index", L.SetFuncs(L.NewTable(), map[string]lua.LGFunction{
		"wait": func(L *lua.LState) int {
			h := check(L)
			if h.info == nil {
				select {
				case <-h.done:
				case <-spk.h.Ctx(L).Done():
					h.cancel()
					<-h.done
				}
				h.info = spk.speakInfo(L, h.res, h.err, h.voice, h.text)
			}
			L.Push(h.info)
			return 1
		},
		"cancel": func(L *lua.LState) int {
			check(L).cancel()
			return 0
		},
		"done": func(L *lua.LState) int {
			select {
			case <-check(L).done:
				L.Push(lua.LTrue)
			default:
				L.Push(lua.LFalse)
			}
			return 1
		},
	}))
	L.SetField(mt, "__tostring", L.NewFunction(func(L *lua.LState) int {
		L.Push(lua.LString("speak_start handle: " + check(L).text))
		return 1
	}))
	return mt
}
