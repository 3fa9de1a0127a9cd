// Package voice speaks a streamed answer as a voice agent does: each
// sentence goes to the speech server the moment it is complete (one
// request per sentence, several in flight), and the audio is played back
// as a speaker plays it. It is the pipeline of the stdlib's voice module
// for the requests that stream_many runs on goroutines of their own,
// with the same sentence rules (internal/sentence) and the same playback.
package voice

// Played is a sentence's audio on the answer's time axis: when its first
// and last bytes came and how long it lasts. Play sets Start and End.
type Played struct {
	FirstAudioMs, AudioDoneMs, AudioMs float64
	StartMs, EndMs                     float64
}

// Playback is the answer as a speaker plays it.
type Playback struct {
	StartMs, EndMs float64
	UnderrunMs     float64
	Underruns      int
}

// Play plays the sentences in order, as stdlib/voice.lua's play does:
// sentence k starts when its first audio has come and sentence k-1 has
// been played, and lasts AudioMs, unless its audio comes slower than it
// plays: then it ends when its last byte came (a sentence's audio is
// taken to arrive at an even pace). A start after the previous end, and
// an end stretched by slow audio, are underruns.
func Play(ss []Played) Playback {
	var out Playback
	for i := range ss {
		s := &ss[i]
		start := s.FirstAudioMs
		if i > 0 {
			if prev := ss[i-1].EndMs; s.FirstAudioMs > prev {
				out.UnderrunMs += s.FirstAudioMs - prev
				out.Underruns++
			} else {
				start = prev
			}
		}
		end := start + s.AudioMs
		if s.AudioDoneMs > end {
			out.UnderrunMs += s.AudioDoneMs - end
			out.Underruns++
			end = s.AudioDoneMs
		}
		s.StartMs, s.EndMs = start, end
		if i == 0 {
			out.StartMs = start
		}
		out.EndMs = end
	}
	return out
}
