package rundir

import (
	"reflect"
	"strings"
	"testing"
)

// TestReadLabRealtime: realtime.json is read with fields it does not know
// (a newer step's) passed over, is no extra file, is nil in a folder
// without it and named when broken; its figures are over the turns that
// ended, a failed session's failing turn left out, the barge-in's over
// the cancelled turns only.
func TestReadLabRealtime(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "steps.json", `{"steps": []}`)
	l := ReadLab(dir, "")
	if l.Realtime != nil || len(l.Problems) != 0 || l.RealtimeSamples() != nil {
		t.Fatalf("no realtime.json: realtime %+v, problems %q", l.Realtime, l.Problems)
	}
	write(t, dir, "realtime.json", `{"step": "realtime", "server": "ws://127.0.0.1:9/v1/realtime", "dialect": "beta", "rate": 24000,
	  "new_top": {"x": 1},
	  "sessions": [
	    {"turns": [
	      {"turn": 1, "audio_ms": 1500, "speech_end_ms": 1400, "speech_stopped_ms": 1650, "first_audio_ms": 2100, "mouth_to_ear_ms": 700,
	       "answer_audio_ms": 3000, "underrun_ms": 0, "cancel_ms": 2900, "cancel_to_last_audio_ms": 30, "audio_after_cancel_ms": 400,
	       "onset_to_speech_started_ms": 250, "barge_onset_ms": 2650, "new_turn_field": [1, 2]},
	      {"turn": 2, "audio_ms": 1200, "speech_end_ms": 1100, "speech_stopped_ms": 1300, "first_audio_ms": 1900, "mouth_to_ear_ms": 800,
	       "answer_audio_ms": 2000, "underrun_ms": 40}
	    ], "error_kind": null, "error": null, "new_session_field": true},
	    {"turns": [
	      {"turn": 1, "audio_ms": 1000, "speech_end_ms": 900, "speech_stopped_ms": 1150, "first_audio_ms": 1500, "mouth_to_ear_ms": 600,
	       "answer_audio_ms": 1000, "underrun_ms": 0},
	      {"turn": 2, "audio_ms": 1000, "speech_end_ms": 900, "first_audio_ms": 1400, "mouth_to_ear_ms": 500, "answer_audio_ms": 100}
	    ], "error_kind": "realtime_dropped", "error": "the socket closed"}
	  ]}`)
	l = ReadLab(dir, "")
	if len(l.Problems) != 0 || l.Realtime == nil || l.Realtime.Dialect != "beta" || len(l.Realtime.Sessions) != 2 ||
		len(l.Realtime.Sessions[0].Turns) != 2 || *l.Realtime.Sessions[1].ErrorKind != "realtime_dropped" {
		t.Fatalf("realtime %+v, problems %q", l.Realtime, l.Problems)
	}
	if _, extra := l.Extra["realtime.json"]; extra {
		t.Errorf("realtime.json listed as a file no section reads")
	}
	if got := RealtimeFailedTurn(l.Realtime.Sessions[1]); got != 1 {
		t.Errorf("failed turn %d, want 1", got)
	}
	if got := RealtimeFailedTurn(l.Realtime.Sessions[0]); got != -1 {
		t.Errorf("failed turn of a session that ended %d, want -1", got)
	}
	got := map[string][]float64{}
	for _, s := range l.RealtimeSamples() {
		got[s.Name] = s.Values
	}
	want := map[string][]float64{
		"realtime mouth_to_ear_ms":                     {700, 800, 600},
		"realtime endpointing_ms":                      {250, 200, 250},
		"realtime first_audio_ms":                      {2100, 1900, 1500},
		"realtime answer_audio_ms":                     {3000, 2000, 1000},
		"realtime underrun_ms":                         {0, 40, 0},
		"realtime barge-in onset_to_speech_started_ms": {250},
		"realtime barge-in cancel_to_last_audio_ms":    {30},
		"realtime barge-in audio_after_cancel_ms":      {400},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("realtime samples %v, want %v", got, want)
	}
	n := 0
	for _, s := range l.Samples() {
		if strings.HasPrefix(s.Name, "realtime ") {
			n++
		}
	}
	if n != len(want) {
		t.Errorf("%d realtime figures among the run's samples, want %d", n, len(want))
	}
	write(t, dir, "realtime.json", `{"sessions": [`)
	if l := ReadLab(dir, ""); l.Realtime != nil || len(l.Problems) != 1 || !strings.HasPrefix(l.Problems[0], "realtime.json: ") {
		t.Errorf("a broken realtime.json: realtime %+v, problems %q", l.Realtime, l.Problems)
	}
}
