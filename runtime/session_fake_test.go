package runtime

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/realtime/realtimetest"
	"ttftlab/runtime/luatest"
)

// toneWAV writes a clip of the caller: ms of a tone loud enough to be
// speech, then 100 ms of silence, at 24 kHz, with what it says in a .txt
// beside it; its path.
func toneWAV(t *testing.T, name string, ms int, said string) string {
	t.Helper()
	const rate = 24000
	c := &callaudio.Clip{Rate: rate}
	for i := 0; i < rate*(ms+100)/1000; i++ {
		v := 0.0
		if i < rate*ms/1000 {
			v = 8000 * math.Sin(2*math.Pi*440*float64(i)/rate)
		}
		c.Samples = append(c.Samples, int16(v))
	}
	p := filepath.Join(t.TempDir(), name+".wav")
	if err := os.WriteFile(p, c.WAV(), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(strings.TrimSuffix(p, ".wav")+".txt", []byte(said), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// sessionVM is a VM whose --realtime is the fake at url (key: its API
// key, "" none), the script's globals A and B two clips of the caller.
func sessionVM(t *testing.T, url, key string) *VM {
	t.Helper()
	ep := &endpoint.Endpoint{Base: url}
	if key != "" {
		ep.Key, ep.KeySource = key, "--realtime-api-key"
	}
	vm, _ := testVM(t, Config{Server: luatest.ClosedURL(t), Realtime: &Realtime{Endpoint: ep}})
	vm.L.SetGlobal("A", lua.LString(toneWAV(t, "a", 500, "When are you open on Saturday?")))
	vm.L.SetGlobal("B", lua.LString(toneWAV(t, "b", 400, "Where can I park?")))
	return vm
}

// TestSessionTurns: two turns with the fake (GA), every turn's record as
// a plain table: its number, what was said (the .txt), the server's VAD,
// the first audio, mouth to ear as first audio - speech end (to the
// microsecond the host keeps it), the answer's
// audio from its bytes; the whole result encodes with require("json");
// events come only when asked for.
func TestSessionTurns(t *testing.T) {
	f := &realtimetest.Server{Deltas: 4, DeltaMs: 50}
	url := f.Start(t)
	vm := sessionVM(t, url, "")
	err := vm.RunString(`
		local r = session(nil, {turns = {{say = A}, {say = B}}, events = true})
		assert(r.dialect == "openai-ga", tostring(r.dialect))
		assert(r.rate == 24000, tostring(r.rate))
		assert(r.server == "`+url+`", r.server)
		assert(#r.turns == 2, #r.turns)
		for k, t in ipairs(r.turns) do
		  assert(t.turn == k, "turn " .. tostring(t.turn))
		  assert(t.speech_stopped_ms and t.first_audio_ms and t.done_ms, "turn " .. k .. " lacks a stamp")
		  assert(t.speech_end_ms < t.speech_stopped_ms and t.speech_stopped_ms <= t.first_audio_ms,
		    string.format("turn %d out of order: speech end %s, speech stopped %s, first audio %s", k, t.speech_end_ms, t.speech_stopped_ms, t.first_audio_ms))
		  assert(math.abs(t.mouth_to_ear_ms - (t.first_audio_ms - t.speech_end_ms)) <= 0.001, string.format("turn %d: mouth to ear %.17g, first audio %.17g - speech end %.17g", k, t.mouth_to_ear_ms, t.first_audio_ms, t.speech_end_ms))
		  assert(t.answer_audio_ms == 200, "turn " .. k .. ": answer " .. tostring(t.answer_audio_ms))
		  assert(t.cancel_ms == nil and t.audio_after_cancel_ms == nil, "turn " .. k .. ": barge-in fields without a barge-in")
		  assert(type(t.t0_ms) == "number", "t0_ms")
		  assert(#t.events > 0 and t.events[1].type and t.events[1].at_ms, "events")
		end
		assert(r.turns[1].said == "When are you open on Saturday?", r.turns[1].said)
		assert(r.turns[2].said == "Where can I park?", r.turns[2].said)
		assert(r.error == nil)
		local text = assert(require("json").encode(r))
		assert(text:find('"mouth_to_ear_ms":'), text)
		local plain = session(nil, {turns = {{say = A}}})
		assert(plain.turns[1].events == nil, "events without events = true")
	`, "s.lua")
	if err != nil {
		t.Fatal(err)
	}
	if n := len(f.Sessions()); n != 2 {
		t.Errorf("the fake saw %d sessions, want 2", n)
	}
}

// TestSessionBargeIn: the second turn barges into the first's answer
// 300 ms after its first audio; the first turn has every barge-in field,
// and the 400 ms of audio the fake sends after the cancel are counted.
func TestSessionBargeIn(t *testing.T) {
	f := &realtimetest.Server{Delay: 40 * time.Millisecond, Deltas: 30, DeltaMs: 100, AfterCancelMs: 400}
	vm := sessionVM(t, f.Start(t), "")
	err := vm.RunString(`
		local r = session(nil, {turns = {{say = A, barge_after_ms = 300}, {say = B}}})
		local t = r.turns[1]
		assert(#r.turns == 2, #r.turns)
		assert(t.barge_onset_ms and t.cancel_ms and t.played_ms and t.cancel_to_last_audio_ms, "barge-in fields missing")
		assert(t.cancel_on == "speech_started", tostring(t.cancel_on))
		assert(t.onset_to_speech_started_ms, "no onset to speech_started")
		assert(t.audio_after_cancel_ms == 400, "audio after the cancel: " .. tostring(t.audio_after_cancel_ms))
		assert(r.turns[2].cancel_ms == nil, "the last turn was not barged into")
		assert(r.turns[2].mouth_to_ear_ms, "the turn that barged in got no answer")
	`, "s.lua")
	if err != nil {
		for _, a := range f.Sessions()[0].Answers {
			t.Logf("the fake's answer %s: %d bytes after the cancel", a.ID, a.AfterCancelBytes)
		}
		t.Fatal(err)
	}
}

// TestSessionFailure: an error event on the second turn raises by
// default, naming the kind; with errors = "return" the result holds the
// kind, the message and the turns measured, the failed one last.
func TestSessionFailure(t *testing.T) {
	f := &realtimetest.Server{Deltas: 2, DeltaMs: 50, ErrorOn: 2, ErrorMsg: "the model failed"}
	vm := sessionVM(t, f.Start(t), "")
	err := vm.RunString(`session(nil, {turns = {{say = A}, {say = B}}})`, "s.lua")
	if err == nil || !strings.Contains(err.Error(), "the model failed") || !strings.Contains(err.Error(), "(realtime_error)") {
		t.Errorf("a failed session raised %v", err)
	}
	err = vm.RunString(`
		local r = session(nil, {turns = {{say = A}, {say = B}}, errors = "return"})
		assert(r.error_kind == "realtime_error", tostring(r.error_kind))
		assert(r.error:find("the model failed"), r.error)
		assert(#r.turns == 2, "partial turns: " .. #r.turns)
		assert(r.turns[1].mouth_to_ear_ms, "the first turn's figures are lost")
		assert(r.turns[2].turn == 2 and r.turns[2].done_ms == nil, "the failed turn")
		assert(r.dialect == "openai-ga")
	`, "s.lua")
	if err != nil {
		t.Fatal(err)
	}
	vm = sessionVM(t, luatest.ClosedURL(t), "")
	err = vm.RunString(`
		local r = session(nil, {turns = {{say = A}}, errors = "return"})
		assert(r.error_kind == "realtime_connect", tostring(r.error_kind))
		assert(#r.turns == 0)
	`, "s.lua")
	if err != nil {
		t.Fatal(err)
	}
}

// TestSessionKeyOnlyToItsServer: the command's key goes to --realtime's
// server, also named by a script's url of the same origin; a url of
// another origin gets none.
func TestSessionKeyOnlyToItsServer(t *testing.T) {
	const key = "sk-rt-8d1f"
	own, other := &realtimetest.Server{Deltas: 1, DeltaMs: 50}, &realtimetest.Server{Deltas: 1, DeltaMs: 50}
	ownURL, otherURL := own.Start(t), other.Start(t)
	vm := sessionVM(t, ownURL, key)
	err := vm.RunString(`
		session(nil, {turns = {{say = A}}})
		session("`+strings.Replace(ownURL, "http://", "ws://", 1)+`", {turns = {{say = A}}})
		session("`+otherURL+`", {turns = {{say = A}}})
	`, "s.lua")
	if err != nil {
		t.Fatal(err)
	}
	for i, s := range own.Sessions() {
		if s.Auth != "Bearer "+key {
			t.Errorf("--realtime's server, session %d: Authorization %q", i+1, s.Auth)
		}
	}
	if len(own.Sessions()) != 2 {
		t.Errorf("--realtime's server saw %d sessions, want 2", len(own.Sessions()))
	}
	if s := other.Sessions(); len(s) != 1 || s[0].Auth != "" {
		t.Errorf("another server got the key: %+v", s)
	}
}
