package check

import (
	"fmt"
	"math"

	"ttftlab/internal/artifact"
	"ttftlab/internal/audio"
)

// audioRules check the audio step: the caller hears the answer after its
// first sentence, which comes after its first token; audio came; the
// playback adds up.
var audioRules = []rule{
	{"audio runs", []string{artifact.AudioFile}, func(l *lab) error {
		a := l.audio
		return l.checkRuns(len(a.Discarded), runsOf{name: "audio.json", repeat: a.Repeat, runs: len(a.Runs), legacy: oldRuns})
	}},
	{"audio timing order", []string{artifact.AudioFile}, func(l *lab) error {
		if len(l.audio.Runs) == 0 {
			return fmt.Errorf("audio.json has no runs")
		}
		return eachRepetition(l, l.audio.Runs, func(r artifact.AudioRun) (string, error) {
			if !(r.TTFTMs <= r.FirstSentenceMs && r.FirstSentenceMs <= r.TTSSentMs && r.TTSSentMs <= r.FirstAudioMs) {
				return "", fmt.Errorf("want ttft_ms <= first_sentence_ms <= tts_sent_ms <= first_audio_ms, got %s, %s, %s, %s",
					num(r.TTFTMs), num(r.FirstSentenceMs), num(r.TTSSentMs), num(r.FirstAudioMs))
			}
			if r.FirstVoicedMs != nil && *r.FirstVoicedMs < r.FirstAudioMs {
				return "", fmt.Errorf("first_voiced_ms %s before first_audio_ms %s", num(*r.FirstVoicedMs), num(r.FirstAudioMs))
			}
			if !near(r.FirstAudioMs-r.TTSSentMs, r.TTSFirstAudioMs) {
				return "", fmt.Errorf("tts_first_audio_ms %s is not first_audio_ms - tts_sent_ms (%s)", num(r.TTSFirstAudioMs), num(r.FirstAudioMs-r.TTSSentMs))
			}
			return fmt.Sprintf("ttft %s <= first sentence %s <= sent %s <= first audio %s ms", num(r.TTFTMs), num(r.FirstSentenceMs), num(r.TTSSentMs), num(r.FirstAudioMs)), nil
		})
	}},
	{"audio came", []string{artifact.AudioFile}, func(l *lab) error {
		if len(l.audio.Runs) == 0 {
			return fmt.Errorf("audio.json has no runs")
		}
		return eachRepetition(l, l.audio.Runs, func(r artifact.AudioRun) (string, error) {
			if !(r.AudioMs > 0) || r.Sentences < 1 {
				return "", fmt.Errorf("audio_ms %s over %s sentences: no audio", num(r.AudioMs), num(r.Sentences))
			}
			return fmt.Sprintf("%s ms of audio in %s sentences", num(r.AudioMs), num(r.Sentences)), nil
		})
	}},
	{"audio playback adds up", []string{artifact.AudioFile}, checkPlayback},
	{"audio medians", []string{artifact.AudioFile}, func(l *lab) error {
		a := l.audio
		col := func(f func(artifact.AudioRun) float64) float64 {
			v := make([]float64, len(a.Runs))
			for i, r := range a.Runs {
				v[i] = f(r)
			}
			return median(v)
		}
		for _, m := range []struct {
			name      string
			got, want float64
		}{
			{"first_audio_p50", a.FirstAudioP50, col(func(r artifact.AudioRun) float64 { return r.FirstAudioMs })},
			{"first_sentence_p50", a.FirstSentenceP50, col(func(r artifact.AudioRun) float64 { return r.FirstSentenceMs })},
			{"ttft_p50", a.TTFTP50, col(func(r artifact.AudioRun) float64 { return r.TTFTMs })},
			{"underrun_p50", a.UnderrunP50, col(func(r artifact.AudioRun) float64 { return r.UnderrunMs })},
		} {
			if !near(m.got, m.want) {
				return fmt.Errorf("%s is %s, the median of the runs is %s", m.name, num(m.got), num(m.want))
			}
		}
		// The medians are written to the microsecond: each may be off by
		// half of one, which moves the share by up to 0.001 / first_audio.
		if share := (a.FirstAudioP50 - a.FirstSentenceP50) / a.FirstAudioP50; math.Abs(share-a.TTSShare) > 0.002/a.FirstAudioP50+1e-6 {
			return fmt.Errorf("tts_share %s, want (first_audio_p50 - first_sentence_p50) / first_audio_p50 = %s", num(a.TTSShare), num(share))
		}
		return l.pass("first audio p50 %s ms, speech %s of the wait", num(a.FirstAudioP50), num(a.TTSShare))
	}},
}

// checkPlayback replays the first run's sentences as a speaker plays them
// (internal/audio's Place, the voice module's playback) and holds the
// recorded start and end times and the run's underruns to it.
func checkPlayback(l *lab) error {
	rows := l.audio.Spoken
	if len(rows) == 0 {
		return fmt.Errorf("audio.json has no spoken sentences")
	}
	// Each sentence against the one before as recorded: the times are
	// written to the microsecond, so a replay of the whole answer would
	// drift by a rounding a sentence.
	var pb audio.Playback
	for i, s := range rows {
		if !(s.ReadyMs <= s.TTSSentMs && s.TTSSentMs <= s.FirstAudioMs && s.FirstAudioMs <= s.AudioDoneMs) {
			return fmt.Errorf("sentence %d: want ready_ms <= tts_sent_ms <= first_audio_ms <= audio_done_ms, got %s, %s, %s, %s",
				i+1, num(s.ReadyMs), num(s.TTSSentMs), num(s.FirstAudioMs), num(s.AudioDoneMs))
		}
		prev := 0.0
		if i > 0 {
			prev = rows[i-1].EndMs
		}
		p := audio.Place(audio.Sentence{FirstAudioMs: s.FirstAudioMs, AudioDoneMs: s.AudioDoneMs, AudioMs: s.AudioMs}, prev, i == 0)
		pb.Add(p)
		if !near(p.StartMs, s.StartMs) || !near(p.EndMs, s.EndMs) {
			return fmt.Errorf("sentence %d plays %s-%s ms, want %s-%s: it starts when its audio has come and the one before has ended",
				i+1, num(s.StartMs), num(s.EndMs), num(p.StartMs), num(p.EndMs))
		}
	}
	r, last := l.audio.Runs[0], rows[len(rows)-1].EndMs
	slack := 0.002 * float64(len(rows)+1)
	if math.Abs(pb.UnderrunMs-r.UnderrunMs) > slack || float64(pb.Underruns) != r.Underruns || !near(last, r.SpeakEndMs) {
		return fmt.Errorf("run 1: underrun_ms %s (%s underruns), speak_end_ms %s; the sentences give %s (%d), %s",
			num(r.UnderrunMs), num(r.Underruns), num(r.SpeakEndMs), num(pb.UnderrunMs), pb.Underruns, num(last))
	}
	return l.pass("%d sentences, %d underruns (%s ms), silent at %s ms", len(rows), pb.Underruns, num(pb.UnderrunMs), num(last))
}

// near compares times written with microsecond rounding.
func near(a, b float64) bool { return math.Abs(a-b) <= 0.002 }
