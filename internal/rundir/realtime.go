package rundir

import (
	"ttftlab/internal/artifact"
	"ttftlab/internal/figures"
)

// RealtimeFigure is one timed figure of the realtime step: its name among
// the run's Samples, what its values are over, and a turn's value (nil
// where the turn has none: a turn without a barge-in has no cancel).
type RealtimeFigure struct {
	Name, Over string
	Of         func(t artifact.RealtimeTurn) *float64
}

// RealtimeFigures are the realtime step's figures in the order a page
// shows them: over every turn that ended (a failed session's failing
// turn, whose stamps stop where it failed, is left out), the barge-in's
// over the turns that were barged into.
var RealtimeFigures = []RealtimeFigure{
	{"realtime mouth_to_ear_ms", "realtime step turns, the caller's speech end (from the audio) to the answer's first audio delta",
		func(t artifact.RealtimeTurn) *float64 { return t.MouthToEarMs }},
	{"realtime endpointing_ms", "realtime step turns, speech_stopped_ms − speech_end_ms: the caller's speech end to the server's speech_stopped as received",
		func(t artifact.RealtimeTurn) *float64 {
			if t.SpeechStoppedMs == nil {
				return nil
			}
			v := *t.SpeechStoppedMs - t.SpeechEndMs
			return &v
		}},
	{"realtime first_audio_ms", "realtime step turns, the turn's start to the answer's first audio delta",
		func(t artifact.RealtimeTurn) *float64 { return t.FirstAudioMs }},
	{"realtime answer_audio_ms", "realtime step turns with an answer's audio, its length from the bytes",
		func(t artifact.RealtimeTurn) *float64 {
			if t.FirstAudioMs == nil {
				return nil
			}
			return &t.AnswerAudioMs
		}},
	{"realtime underrun_ms", "realtime step turns with an answer's audio, the silence mid-answer of a speaker playing it at real time from the first delta",
		func(t artifact.RealtimeTurn) *float64 { return t.UnderrunMs }},
	{"realtime barge-in onset_to_speech_started_ms", "realtime step barge-ins, the caller's onset to the server's speech_started",
		func(t artifact.RealtimeTurn) *float64 { return t.OnsetToSpeechStartedMs }},
	{"realtime barge-in cancel_to_last_audio_ms", "realtime step barge-ins, response.cancel sent to the cut answer's last audio delta (0: none after it)",
		func(t artifact.RealtimeTurn) *float64 { return bargedIn(t, t.CancelToLastAudioMs) }},
	{"realtime barge-in audio_after_cancel_ms", "realtime step barge-ins, the ms of the cut answer's audio that arrived after response.cancel",
		func(t artifact.RealtimeTurn) *float64 { return bargedIn(t, t.AudioAfterCancelMs) }},
}

// bargedIn is v of a turn whose answer was cancelled, nil otherwise.
func bargedIn(t artifact.RealtimeTurn, v *float64) *float64 {
	if t.CancelMs == nil {
		return nil
	}
	return v
}

// RealtimeFailedTurn is the index in s.Turns of the turn that failed the
// session (the last one measured), or -1 when none did (the session did
// not fail, or failed before its first turn).
func RealtimeFailedTurn(s artifact.RealtimeSession) int {
	if s.ErrorKind == nil || len(s.Turns) == 0 {
		return -1
	}
	return len(s.Turns) - 1
}

// RealtimeSamples are the realtime step's figures with their values, in
// RealtimeFigures' order; a figure no turn has is left out.
func (l *Lab) RealtimeSamples() []figures.Sample {
	if l.Realtime == nil {
		return nil
	}
	var out []figures.Sample
	for _, f := range RealtimeFigures {
		var vs []float64
		for _, s := range l.Realtime.Sessions {
			failed := RealtimeFailedTurn(s)
			for i, t := range s.Turns {
				if v := f.Of(t); v != nil && i != failed {
					vs = append(vs, *v)
				}
			}
		}
		if s, ok := finiteSample(f.Name, f.Over, vs); ok {
			out = append(out, s)
		}
	}
	return out
}
