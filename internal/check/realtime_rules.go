package check

import (
	"fmt"
	"math"
	"strings"

	"ttftlab/internal/artifact"
)

// realtimeRules check the realtime step: its sessions and their turns,
// each turn's events in the order a turn has them, mouth to ear as the
// difference of its stamps, a barge-in's fields where one was asked, and
// (a warning, no failure) the audio a server kept sending after the
// cancel.
var realtimeRules = []rule{
	{"realtime turns", []string{artifact.RealtimeFile}, checkRealtimeTurns},
	{"realtime timing order", []string{artifact.RealtimeFile}, func(l *lab) error {
		return eachRealtimeTurn(l, func(_ *artifact.RealtimePlanned, t artifact.RealtimeTurn) (string, error) {
			names := []string{"speech_end_ms"}
			vals := []float64{t.SpeechEndMs}
			for _, s := range []struct {
				name string
				v    *float64
			}{{"speech_stopped_ms", t.SpeechStoppedMs}, {"first_audio_ms", t.FirstAudioMs}, {"done_ms", t.DoneMs}} {
				if s.v != nil {
					names, vals = append(names, s.name), append(vals, *s.v)
				}
			}
			var shown []string
			for i := range vals {
				shown = append(shown, num(vals[i]))
				if i > 0 && vals[i] < vals[i-1] {
					return "", fmt.Errorf("want %s, got %s", strings.Join(names, " <= "), strings.Join(numsOf(vals), ", "))
				}
			}
			return strings.Join(names, " <= ") + ": " + strings.Join(shown, " <= ") + " ms", nil
		})
	}},
	{"realtime mouth to ear", []string{artifact.RealtimeFile}, func(l *lab) error {
		return eachRealtimeTurn(l, func(_ *artifact.RealtimePlanned, t artifact.RealtimeTurn) (string, error) {
			switch {
			case t.FirstAudioMs == nil && t.MouthToEarMs == nil:
				return "no audio came, no mouth to ear", nil
			case t.FirstAudioMs == nil:
				return "", fmt.Errorf("mouth_to_ear_ms %s without a first_audio_ms", num(*t.MouthToEarMs))
			case t.MouthToEarMs == nil:
				return "", fmt.Errorf("first_audio_ms %s but no mouth_to_ear_ms", num(*t.FirstAudioMs))
			}
			want := *t.FirstAudioMs - t.SpeechEndMs
			if math.Abs(*t.MouthToEarMs-want) > realtimeRounding {
				return "", fmt.Errorf("mouth_to_ear_ms %s, but first_audio_ms %s - speech_end_ms %s = %s", num(*t.MouthToEarMs), num(*t.FirstAudioMs), num(t.SpeechEndMs), num(want))
			}
			return fmt.Sprintf("mouth to ear %s = first audio %s - speech end %s ms", num(*t.MouthToEarMs), num(*t.FirstAudioMs), num(t.SpeechEndMs)), nil
		})
	}},
	{"realtime barge-in", []string{artifact.RealtimeFile}, checkRealtimeBargeIns},
	{"realtime audio after cancel", []string{artifact.RealtimeFile}, checkAudioAfterCancel},
}

// realtimeRounding is how far a difference of three times written to the
// microsecond may be from the difference written: each was rounded once.
const realtimeRounding = 0.0015

func numsOf(xs []float64) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = num(x)
	}
	return out
}

// checkRealtimeTurns holds the file's sessions: the dialect and rate
// known, every session whole (no failure ended it) with one turn a
// planned turn, numbered in order.
func checkRealtimeTurns(l *lab) error {
	r := l.realtime
	// The driver's names of the dialects (internal/realtime's Dialect*,
	// a layer this one does not import).
	if r.Dialect != "openai-ga" && r.Dialect != "beta" {
		return fmt.Errorf("dialect %q, want openai-ga or beta", r.Dialect)
	}
	if r.Rate <= 0 {
		return fmt.Errorf("rate %d, want the audio's sample rate", r.Rate)
	}
	if len(r.Sessions) == 0 {
		return fmt.Errorf("realtime.json has no sessions")
	}
	n := 0
	for i, s := range r.Sessions {
		at := fmt.Sprintf("session %d of %d", i+1, len(r.Sessions))
		if s.ErrorKind != nil {
			msg := ""
			if s.Error != nil {
				msg = ": " + *s.Error
			}
			return fmt.Errorf("%s ended early, %s%s, after %d turns", at, *s.ErrorKind, msg, len(s.Turns))
		}
		if len(s.Turns) == 0 {
			return fmt.Errorf("%s has no turns", at)
		}
		if len(r.Plan) > 0 && len(s.Turns) != len(r.Plan) {
			return fmt.Errorf("%s has %d turns, want one a planned turn (%d)", at, len(s.Turns), len(r.Plan))
		}
		for k, t := range s.Turns {
			if t.Turn != k+1 {
				return fmt.Errorf("%s: turn %d is numbered %d", at, k+1, t.Turn)
			}
		}
		n += len(s.Turns)
	}
	return l.pass("%d sessions, %d turns, dialect %s, %d Hz", len(r.Sessions), n, r.Dialect, r.Rate)
}

// eachRealtimeTurn holds every turn of every session to check, with the
// turn planned (nil without a plan); a failure names the session and the
// turn.
func eachRealtimeTurn(l *lab, check func(*artifact.RealtimePlanned, artifact.RealtimeTurn) (string, error)) error {
	r := l.realtime
	n := 0
	var first string
	for i, s := range r.Sessions {
		for k, t := range s.Turns {
			var p *artifact.RealtimePlanned
			if k < len(r.Plan) {
				p = &r.Plan[k]
			}
			seen, err := check(p, t)
			if err != nil {
				return fmt.Errorf("session %d of %d, turn %d: %w", i+1, len(r.Sessions), k+1, err)
			}
			if n == 0 {
				first = "session 1, turn 1: " + seen
			}
			n++
		}
	}
	if n == 0 {
		return fmt.Errorf("realtime.json has no turns")
	}
	if n > 1 {
		first += fmt.Sprintf("; holds in all %d turns", n)
	}
	return l.pass("%s", first)
}

// bargedInto says whether the plan asked the turn after turn k (from 0)
// to barge into its answer, and that turn came.
func bargedInto(r artifact.Realtime, s artifact.RealtimeSession, k int) bool {
	return k+1 < len(r.Plan) && r.Plan[k].BargeAfterMs != nil && k+1 < len(s.Turns)
}

// checkRealtimeBargeIns holds the barge-in fields: every one present on
// a turn the plan barged into (the cancel at or after the onset, the
// onset after the first audio, the cancel's reason, speech_started's
// delay when the cancel came on it), none on a turn it did not; without
// a plan, the fields of a turn all there or all absent.
func checkRealtimeBargeIns(l *lab) error {
	r := l.realtime
	n := 0
	var first string
	for i, s := range r.Sessions {
		for k, t := range s.Turns {
			at := fmt.Sprintf("session %d of %d, turn %d", i+1, len(r.Sessions), k+1)
			asked := t.BargeOnsetMs != nil
			if len(r.Plan) > 0 {
				asked = bargedInto(r, s, k)
			}
			if !asked {
				if t.BargeOnsetMs != nil || t.CancelMs != nil || t.AudioAfterCancelMs != nil {
					return fmt.Errorf("%s: barge-in fields on a turn no barge-in was asked into", at)
				}
				continue
			}
			seen, err := bargeIn(t)
			if err != nil {
				return fmt.Errorf("%s: %w", at, err)
			}
			if n == 0 {
				first = at + ": " + seen
			}
			n++
		}
	}
	if n == 0 {
		return skip("no turn was barged into")
	}
	if n > 1 {
		first += fmt.Sprintf("; holds in all %d barge-ins", n)
	}
	return l.pass("%s", first)
}

// bargeIn checks one barged-into turn's fields.
func bargeIn(t artifact.RealtimeTurn) (string, error) {
	var missing []string
	for _, f := range []struct {
		name string
		v    *float64
	}{{"barge_onset_ms", t.BargeOnsetMs}, {"cancel_ms", t.CancelMs}, {"played_ms", t.PlayedMs},
		{"cancel_to_last_audio_ms", t.CancelToLastAudioMs}, {"audio_after_cancel_ms", t.AudioAfterCancelMs}, {"first_audio_ms", t.FirstAudioMs}} {
		if f.v == nil {
			missing = append(missing, f.name)
		}
	}
	if t.CancelOn == "" {
		missing = append(missing, "cancel_on")
	}
	if len(missing) > 0 {
		return "", fmt.Errorf("barged into, but %s absent", strings.Join(missing, ", "))
	}
	switch t.CancelOn {
	case "speech_started":
		if t.OnsetToSpeechStartedMs == nil {
			return "", fmt.Errorf("cancel_on speech_started, but no onset_to_speech_started_ms")
		}
	case "timeout":
	default:
		return "", fmt.Errorf("cancel_on %q, want speech_started or timeout", t.CancelOn)
	}
	if *t.BargeOnsetMs < *t.FirstAudioMs || *t.CancelMs < *t.BargeOnsetMs {
		return "", fmt.Errorf("want first_audio_ms <= barge_onset_ms <= cancel_ms, got %s, %s, %s", num(*t.FirstAudioMs), num(*t.BargeOnsetMs), num(*t.CancelMs))
	}
	if *t.AudioAfterCancelMs < 0 || *t.CancelToLastAudioMs < 0 || *t.PlayedMs < 0 {
		return "", fmt.Errorf("played_ms %s, cancel_to_last_audio_ms %s, audio_after_cancel_ms %s: want none below 0",
			num(*t.PlayedMs), num(*t.CancelToLastAudioMs), num(*t.AudioAfterCancelMs))
	}
	return fmt.Sprintf("first audio %s <= onset %s <= cancel %s ms (on %s), %s ms played", num(*t.FirstAudioMs), num(*t.BargeOnsetMs),
		num(*t.CancelMs), t.CancelOn, num(*t.PlayedMs)), nil
}

// checkAudioAfterCancel is the finding of a server that kept sending the
// answer's audio after the client cancelled it: what the caller hears over
// their own voice. A warning, never a failure: the server's behaviour is
// what the step measures.
func checkAudioAfterCancel(l *lab) error {
	r := l.realtime
	n, late := 0, 0
	most, lastMost := 0.0, 0.0
	for _, s := range r.Sessions {
		for _, t := range s.Turns {
			if t.AudioAfterCancelMs == nil {
				continue
			}
			n++
			if *t.AudioAfterCancelMs > 0 {
				late++
				most = math.Max(most, *t.AudioAfterCancelMs)
			}
			if t.CancelToLastAudioMs != nil {
				lastMost = math.Max(lastMost, *t.CancelToLastAudioMs)
			}
		}
	}
	if n == 0 {
		return skip("no turn was barged into")
	}
	if late > 0 {
		return warn("the server kept sending the answer's audio after the cancel in %d of %d barge-ins (up to %s ms of audio, the last up to %s ms after the cancel): the caller hears it over their own voice",
			late, n, num(most), num(lastMost))
	}
	return l.pass("no audio after the cancel in %d barge-ins", n)
}
