package check

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"

	"ttftlab/internal/artifact"
	"ttftlab/internal/turn"
)

// callRules check the call step: each turn's events in the order a voice
// turn has them, its parts as internal/turn computes them from its stamps
// and adding up to mouth to ear, its transcript's word error rate, the
// runs and the medians.
var callRules = []rule{
	{"call runs", []string{artifact.CallFile}, func(l *lab) error {
		c := l.call
		if err := l.checkRuns(len(c.Discarded), runsOf{name: "call.json", repeat: c.Repeat, runs: len(c.Runs)}); err != nil {
			return err
		}
		shown := l.shown
		for i, r := range c.Runs {
			if len(r.Turns) != len(c.Questions) {
				return fmt.Errorf("repetition %d of %d has %d turns, want one a question (%d)", i+1, len(c.Runs), len(r.Turns), len(c.Questions))
			}
		}
		return l.pass("%s, %d turns each", shown, len(c.Questions))
	}},
	{"call timing order", []string{artifact.CallFile}, func(l *lab) error {
		return eachCallTurn(l, func(t artifact.CallTurn) (string, error) {
			s := t.Stamps
			if !(s.SpeechEndMs < s.FinalMs && s.FinalMs <= s.RequestMs && s.RequestMs <= s.TTFTMs && s.TTFTMs <= s.FirstSentenceMs &&
				s.FirstSentenceMs <= s.TTSSentMs && s.TTSSentMs <= s.FirstAudioMs) {
				return "", fmt.Errorf("want speech_end_ms < final_ms <= request_ms <= ttft_ms <= first_sentence_ms <= tts_sent_ms <= first_audio_ms, got %s, %s, %s, %s, %s, %s, %s",
					num(s.SpeechEndMs), num(s.FinalMs), num(s.RequestMs), num(s.TTFTMs), num(s.FirstSentenceMs), num(s.TTSSentMs), num(s.FirstAudioMs))
			}
			return fmt.Sprintf("speech end %s < final transcript %s <= request %s <= ttft %s <= first sentence %s <= first audio %s ms",
				num(s.SpeechEndMs), num(s.FinalMs), num(s.RequestMs), num(s.TTFTMs), num(s.FirstSentenceMs), num(s.FirstAudioMs)), nil
		})
	}},
	{"call parts add up", []string{artifact.CallFile}, func(l *lab) error {
		return eachCallTurn(l, func(t artifact.CallTurn) (string, error) {
			left := recordedParts(t.Parts).Unaccounted()
			if left == nil || math.Abs(*left) > turn.RoundingMs {
				return "", fmt.Errorf("stt_final_ms %s + llm_ttft_ms %s + first_sentence_ms %s + tts_first_audio_ms %s + client_overhead_ms %s leave %s ms of mouth_to_ear_ms %s unaccounted",
					num(t.Parts.SttFinalMs), num(t.Parts.LLMTTFTMs), num(t.Parts.FirstSentenceMs), num(t.Parts.TTSFirstAudioMs),
					num(t.Parts.ClientOverheadMs), num(*left), num(t.Parts.MouthToEarMs))
			}
			if d := partsDiffer(t); d != "" {
				return "", fmt.Errorf("the parts add up, but are not their stamps' differences: %s", d)
			}
			p := t.Parts
			return fmt.Sprintf("mouth to ear %s = stt final %s + llm ttft %s + first sentence %s + tts first audio %s + client %s ms",
				num(p.MouthToEarMs), num(p.SttFinalMs), num(p.LLMTTFTMs), num(p.FirstSentenceMs), num(p.TTSFirstAudioMs), num(p.ClientOverheadMs)), nil
		})
	}},
	{"call transcripts", []string{artifact.CallFile}, checkTranscripts},
	{"call medians", []string{artifact.CallFile}, func(l *lab) error {
		c := l.call
		var m2e, final []float64
		worst := 0.0
		for _, r := range c.Runs {
			for _, t := range r.Turns {
				m2e, final = append(m2e, t.Parts.MouthToEarMs), append(final, t.Parts.SttFinalMs)
				worst = math.Max(worst, t.WER)
			}
		}
		if len(m2e) == 0 {
			return fmt.Errorf("call.json has no turns")
		}
		for _, m := range []struct {
			name      string
			got, want float64
		}{
			{"mouth_to_ear_p50", c.MouthToEarP50, median(m2e)},
			{"stt_final_p50", c.SttFinalP50, median(final)},
			{"wer_max", c.WERMax, worst},
		} {
			if !near(m.got, m.want) {
				return fmt.Errorf("%s is %s, the turns give %s", m.name, num(m.got), num(m.want))
			}
		}
		return l.pass("mouth to ear p50 %s ms, final transcript p50 %s ms after the speech end, over %d turns", num(c.MouthToEarP50), num(c.SttFinalP50), len(m2e))
	}},
}

// eachCallTurn holds every turn of every repetition to check; a failure
// names the turn (and the repetition, when there are several).
func eachCallTurn(l *lab, check func(artifact.CallTurn) (string, error)) error {
	if len(l.call.Runs) == 0 {
		return fmt.Errorf("call.json has no runs")
	}
	return eachRepetition(l, l.call.Runs, func(r artifact.CallRun) (string, error) {
		if len(r.Turns) == 0 {
			return "", fmt.Errorf("no turns")
		}
		var first string
		for k, t := range r.Turns {
			seen, err := check(t)
			if err != nil {
				return "", fmt.Errorf("turn %d: %w", k+1, err)
			}
			if k == 0 {
				first = "turn 1: " + seen
			}
		}
		if len(r.Turns) > 1 {
			first += fmt.Sprintf("; holds in all %d turns", len(r.Turns))
		}
		return first, nil
	})
}

// callStamps are a recorded turn's stamps as internal/turn takes them.
func callStamps(s artifact.CallStamps) turn.Stamps {
	return turn.Stamps{SpeechEndMs: s.SpeechEndMs, SpeechStoppedMs: s.SpeechStoppedMs, FirstPartialMs: s.FirstPartialMs,
		FinalMs: &s.FinalMs, RequestMs: &s.RequestMs, TTFTMs: &s.TTFTMs, FirstSentenceMs: &s.FirstSentenceMs,
		TTSSentMs: &s.TTSSentMs, FirstAudioMs: &s.FirstAudioMs}
}

// recordedParts are a recorded turn's parts as internal/turn's.
func recordedParts(p artifact.CallParts) turn.Parts {
	return turn.Parts{MouthToEarMs: &p.MouthToEarMs, EndpointingMs: p.EndpointingMs, SttFinalMs: &p.SttFinalMs,
		SttFirstPartialMs: p.SttFirstPartialMs, TranscriptionMs: p.TranscriptionMs, HandoffMs: &p.HandoffMs,
		LLMTTFTMs: &p.LLMTTFTMs, FirstSentenceMs: &p.FirstSentenceMs, TTSHandoffMs: &p.TTSHandoffMs,
		TTSFirstAudioMs: &p.TTSFirstAudioMs, ClientOverheadMs: &p.ClientOverheadMs}
}

// partSlack is how far a recorded part may be from the one internal/turn
// computes from the recorded stamps: the host computed it from the
// stamps before they were written to the microsecond, so each of the up
// to four stamps a part spans (client_overhead_ms: two hand-offs) may be
// off by 0.0005 ms, and each side rounded its differences once more.
const partSlack = 0.005

// partsDiffer says, part by part (by its JSON name), where a turn's
// recorded parts differ from those internal/turn computes from its
// recorded stamps ("llm_ttft_ms 150, its stamps give 140"); "" when
// they agree within partSlack.
func partsDiffer(t artifact.CallTurn) string {
	got, want := partValues(recordedParts(t.Parts)), partValues(callStamps(t.Stamps).Parts())
	var d []string
	for name, w := range want {
		g := got[name]
		switch {
		case g == nil && w == nil:
		case g == nil:
			d = append(d, fmt.Sprintf("%s absent, its stamps give %s", name, num(*w)))
		case w == nil:
			d = append(d, fmt.Sprintf("%s %s, its stamps give none", name, num(*g)))
		case math.Abs(*g-*w) > partSlack:
			d = append(d, fmt.Sprintf("%s %s, its stamps give %s", name, num(*g), num(*w)))
		}
	}
	sort.Strings(d)
	return strings.Join(d, "; ")
}

// partValues are p's values by their JSON names.
func partValues(p turn.Parts) map[string]*float64 {
	data, err := json.Marshal(p)
	if err != nil {
		panic(err) // a struct of float pointers always marshals
	}
	var m map[string]*float64
	if err := json.Unmarshal(data, &m); err != nil {
		panic(err)
	}
	return m
}

// namedGarbled is how many garbled turns the warning names.
const namedGarbled = 3

// checkTranscripts holds each turn's word error rate to what was said
// and the transcript (internal/turn's WER, to its rounding: a folder
// written before it was rounded holds it to every digit), a number not
// below 0; a
// garbled transcript (turn.Garbled) is a warning: the LLM was asked
// another question, so the turn's LLM timings are of that one.
func checkTranscripts(l *lab) error {
	c := l.call
	if len(c.Runs) == 0 {
		return fmt.Errorf("call.json has no runs")
	}
	var garbled []string
	worst, n := 0.0, 0
	for i, r := range c.Runs {
		for k, t := range r.Turns {
			at := fmt.Sprintf("turn %d", k+1)
			if len(c.Runs) > 1 {
				at = fmt.Sprintf("repetition %d of %d, %s", i+1, len(c.Runs), at)
			}
			if math.IsNaN(t.WER) || t.WER < 0 {
				return fmt.Errorf("%s: wer %s, want a number not below 0", at, num(t.WER))
			}
			if want := turn.WER(t.Said, t.Transcript); math.Abs(want-t.WER) > turn.WERStep/2+1e-9 {
				return fmt.Errorf("%s: wer %s, but %s transcribed as %s has %s", at, num(t.WER), excerpt(t.Said, 60), excerpt(t.Transcript, 60), num(want))
			}
			if turn.Garbled(t.WER) {
				garbled = append(garbled, fmt.Sprintf("%s (wer %s: %s heard as %s)", at, num(t.WER), excerpt(t.Said, 40), excerpt(t.Transcript, 40)))
			}
			worst, n = math.Max(worst, t.WER), n+1
		}
	}
	if len(garbled) > 0 {
		named := garbled[:min(len(garbled), namedGarbled)]
		more := ""
		if len(garbled) > len(named) {
			more = fmt.Sprintf("; and %d more", len(garbled)-len(named))
		}
		return warn("%d of %d transcripts are garbled (word error rate above %s), so the LLM's timings of those turns are of a garbled question: %s%s",
			len(garbled), n, num(turn.GarbledWER), strings.Join(named, "; "), more)
	}
	return l.pass("%d transcripts, word error rate at most %s", n, num(worst))
}
