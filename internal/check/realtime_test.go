package check

import (
	"strings"
	"testing"
)

// realtimeTurns are one session's three turns, the second barged into by
// the third 300 ms after its first audio. Mouth to ear is first audio -
// speech end: 2350.5 - 1500 = 850.5, 2000.25 - 1200 = 800.25, 2500 -
// 1400 = 1100.
const realtimeTurns = `[
  {"turn":1,"said":"When are you open on Saturday?","audio_ms":1800,"speech_end_ms":1500,"speech_started_ms":300,"speech_stopped_ms":2100,
   "server_audio_start_ms":200,"server_audio_end_ms":1600,"first_transcript_ms":2360,"first_text_ms":null,"first_audio_ms":2350.5,
   "mouth_to_ear_ms":850.5,"answer_audio_ms":2000,"underrun_ms":0,"done_ms":4500,"status":"completed"},
  {"turn":2,"said":"Where can I park?","audio_ms":1500,"speech_end_ms":1200,"speech_started_ms":250,"speech_stopped_ms":1800,
   "server_audio_start_ms":150,"server_audio_end_ms":1300,"first_transcript_ms":null,"first_text_ms":null,"first_audio_ms":2000.25,
   "mouth_to_ear_ms":800.25,"answer_audio_ms":600,"underrun_ms":0,"done_ms":2600,"status":"cancelled",
   "barge_onset_ms":2300.25,"onset_to_speech_started_ms":250,"cancel_ms":2550.25,"cancel_on":"speech_started","played_ms":550,
   "cancel_to_last_audio_ms":0,"audio_after_cancel_ms":0},
  {"turn":3,"said":"Stop. Do I need an appointment?","audio_ms":1700,"speech_end_ms":1400,"speech_started_ms":250,"speech_stopped_ms":2000,
   "server_audio_start_ms":150,"server_audio_end_ms":1500,"first_transcript_ms":null,"first_text_ms":null,"first_audio_ms":2500,
   "mouth_to_ear_ms":1100,"answer_audio_ms":1800,"underrun_ms":12.5,"done_ms":4000,"status":"completed"}]`

var realtimeJSON = `{"step":"realtime","server":"ws://127.0.0.1:8090","dialect":"beta","rate":24000,
 "plan":[{"say":"When are you open on Saturday?"},{"say":"Where can I park?","barge_after_ms":300},{"say":"Stop. Do I need an appointment?"}],
 "sessions":[{"turns":` + realtimeTurns + `,"error_kind":null,"error":null},
  {"turns":` + strings.Replace(realtimeTurns, `"underrun_ms":12.5`, `"underrun_ms":0`, 1) + `,"error_kind":null,"error":null}]}`

var realtimeChecks = []string{"file realtime.json", "realtime turns", "realtime timing order", "realtime mouth to ear", "realtime barge-in", "realtime audio after cancel"}

// The realtime step's rules pass a consistent file, and each fails a file
// broken its way, naming the session and the turn.
func TestRealtimeChecks(t *testing.T) {
	got, _, _, out := runFolder(t, validFiles(), true)
	for _, name := range realtimeChecks {
		if got[name].status != "PASS" {
			t.Fatalf("%s: %+v\n%s", name, got[name], out)
		}
	}
	if !strings.Contains(got["realtime barge-in"].msg, "holds in all 2 barge-ins") {
		t.Errorf("realtime barge-in: %+v", got["realtime barge-in"])
	}
	for _, c := range []struct {
		name, old, new, fail, msg string
	}{
		{"another dialect", `"dialect":"beta"`, `"dialect":"ga"`, "realtime turns", `dialect "ga", want openai-ga or beta`},
		{"no rate", `"rate":24000`, `"rate":0`, "realtime turns", "rate 0"},
		{"a session ended early", `"error_kind":null,"error":null}]}`, `"error_kind":"realtime_dropped","error":"the socket closed"}]}`,
			"realtime turns", "session 2 of 2 ended early, realtime_dropped: the socket closed, after 3 turns"},
		{"a turn fewer than planned", `{"say":"Stop. Do I need an appointment?"}]`, `{"say":"Stop. Do I need an appointment?"},{"say":"Bye."}]`,
			"realtime turns", "session 1 of 2 has 3 turns, want one a planned turn (4)"},
		{"turns out of order", `{"turn":3,`, `{"turn":4,`, "realtime turns", "session 1 of 2: turn 3 is numbered 4"},
		{"speech stopped before the speech end", `"speech_end_ms":1200,"speech_started_ms":250,"speech_stopped_ms":1800`,
			`"speech_end_ms":1200,"speech_started_ms":250,"speech_stopped_ms":1100`, "realtime timing order",
			"session 1 of 2, turn 2: want speech_end_ms <= speech_stopped_ms <= first_audio_ms <= done_ms, got 1200, 1100, 2000.25, 2600"},
		{"done before the first audio", `"done_ms":4000`, `"done_ms":2400`, "realtime timing order", "session 1 of 2, turn 3: want"},
		{"mouth to ear not first audio - speech end", `"mouth_to_ear_ms":1100`, `"mouth_to_ear_ms":1099.9`, "realtime mouth to ear",
			"session 1 of 2, turn 3: mouth_to_ear_ms 1099.9, but first_audio_ms 2500 - speech_end_ms 1400 = 1100"},
		{"mouth to ear without first audio", `"first_audio_ms":2500`, `"first_audio_ms":null`, "realtime mouth to ear", "mouth_to_ear_ms 1100 without a first_audio_ms"},
		{"a barge-in without its cancel", `"cancel_ms":2550.25,`, ``, "realtime barge-in", "session 1 of 2, turn 2: barged into, but cancel_ms absent"},
		{"a cancel for no reason", `"cancel_on":"speech_started"`, `"cancel_on":"whenever"`, "realtime barge-in", `cancel_on "whenever", want speech_started or timeout`},
		{"a cancel before the onset", `"cancel_ms":2550.25`, `"cancel_ms":2000`, "realtime barge-in", "want first_audio_ms <= barge_onset_ms <= cancel_ms, got 2000.25, 2300.25, 2000"},
		{"a barge-in not asked", `{"say":"Where can I park?","barge_after_ms":300}`, `{"say":"Where can I park?"}`, "realtime barge-in",
			"session 1 of 2, turn 2: barge-in fields on a turn no barge-in was asked into"},
	} {
		f := validFiles()
		f["realtime.json"] = strings.Replace(realtimeJSON, c.old, c.new, 1)
		if f["realtime.json"] == realtimeJSON {
			t.Fatalf("%s: %q not in realtime.json", c.name, c.old)
		}
		got, _, failed, out := runFolder(t, f, true)
		if o := got[c.fail]; o.status != "FAIL" || !strings.Contains(o.msg, c.msg) || failed == 0 {
			t.Errorf("%s: %s is %+v, want FAIL naming %q\n%s", c.name, c.fail, o, c.msg, out)
		}
	}
}

// A server that kept sending the answer's audio after the cancel is a
// warning that says what the caller hears; the folder still passes.
func TestRealtimeAudioAfterCancelWarns(t *testing.T) {
	f := validFiles()
	f["realtime.json"] = strings.Replace(realtimeJSON, `"cancel_to_last_audio_ms":0,"audio_after_cancel_ms":0`,
		`"cancel_to_last_audio_ms":180,"audio_after_cancel_ms":400`, 1)
	got, _, failed, out := runFolder(t, f, true)
	o := got["realtime audio after cancel"]
	if o.status != "WARN" || !strings.Contains(o.msg, "the server kept sending the answer's audio after the cancel in 1 of 2 barge-ins (up to 400 ms of audio, the last up to 180 ms after the cancel)") {
		t.Errorf("realtime audio after cancel: %+v, want a warning\n%s", o, out)
	}
	if failed != 0 {
		t.Errorf("a warning fails nothing: %d failed\n%s", failed, out)
	}
}

// A folder without steps.json was written before the lab had a realtime
// step: no realtime.json is no failure, and its rules say why they did
// not apply.
func TestRealtimeFileOptional(t *testing.T) {
	f := validFiles()
	delete(f, "realtime.json")
	got, _, _, out := runFolder(t, f, true)
	if o := got["file realtime.json"]; o.status != "SKIP" || !strings.Contains(o.msg, "before the lab had a realtime step") {
		t.Errorf("file realtime.json: %+v\n%s", o, out)
	}
	if o := got["realtime turns"]; o.status != "SKIP" {
		t.Errorf("realtime turns: %+v\n%s", o, out)
	}
}
