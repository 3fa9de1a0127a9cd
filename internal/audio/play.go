package audio

// Sentence is one sentence's audio on an answer's time axis: when its
// first and last bytes came, and how long it lasts.
type Sentence struct {
	FirstAudioMs, AudioDoneMs, AudioMs float64
}

// Played is when a speaker plays one sentence, and the silence it heard
// on the way: WaitMs before it started, waiting for its first audio after
// the sentence before had ended, and StretchMs inside it, its end put off
// by audio that came slower than it plays. Each is an underrun when it is
// above 0.
type Played struct {
	StartMs, EndMs    float64
	WaitMs, StretchMs float64
}

// Underruns is how many times the speaker fell silent in the sentence:
// 0, 1 or 2.
func (p Played) Underruns() int {
	n := 0
	if p.WaitMs > 0 {
		n++
	}
	if p.StretchMs > 0 {
		n++
	}
	return n
}

// Place plays s after a sentence that ended at prevEndMs (none before it
// when first is true). s starts when its first audio has come and the one
// before has been played, and lasts AudioMs, unless its audio comes
// slower than it plays: then it ends when its last byte came (a
// sentence's audio is taken to arrive at an even pace). A start after the
// previous end, and an end stretched by slow audio, are underruns.
func Place(s Sentence, prevEndMs float64, first bool) Played {
	var p Played
	p.StartMs = s.FirstAudioMs
	if !first {
		if s.FirstAudioMs > prevEndMs {
			p.WaitMs = s.FirstAudioMs - prevEndMs
		} else {
			p.StartMs = prevEndMs
		}
	}
	p.EndMs = p.StartMs + s.AudioMs
	if s.AudioDoneMs > p.EndMs {
		p.StretchMs = s.AudioDoneMs - p.EndMs
		p.EndMs = s.AudioDoneMs
	}
	return p
}

// Playback is an answer as a speaker plays it: when it starts (the first
// audio the caller hears) and falls silent, the silence in the middle of
// it and how many times the speaker waited, and each sentence's place.
type Playback struct {
	StartMs, EndMs float64
	UnderrunMs     float64
	Underruns      int
	Sentences      []Played
}

// Play plays the sentences in order, each placed after the one before
// (Place). The underruns are summed in the order they happen (the wait
// before a sentence, then its stretch). Without sentences nothing plays:
// the Playback is zero.
func Play(ss []Sentence) Playback {
	out := Playback{Sentences: make([]Played, len(ss))}
	for i, s := range ss {
		prev := 0.0
		if i > 0 {
			prev = out.Sentences[i-1].EndMs
		}
		p := Place(s, prev, i == 0)
		out.Sentences[i] = p
		out.Add(p)
		if i == 0 {
			out.StartMs = p.StartMs
		}
		out.EndMs = p.EndMs
	}
	return out
}

// Add counts the underruns of p, a sentence placed after the last one
// added, into the answer's, in the order they happened.
func (out *Playback) Add(p Played) {
	if p.WaitMs > 0 {
		out.UnderrunMs += p.WaitMs
		out.Underruns++
	}
	if p.StretchMs > 0 {
		out.UnderrunMs += p.StretchMs
		out.Underruns++
	}
}
