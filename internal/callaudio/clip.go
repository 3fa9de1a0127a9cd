// Package callaudio is the caller's side of a voice turn as audio: an
// utterance (a Clip) synthesized from the turn's text by espeak-ng or read
// from the user's WAV file (any sample rate, resampled), the moment its
// speech ends known from the audio itself, and its frames as a phone line
// delivers them.
package callaudio

import (
	"encoding/binary"
	"math"
)

// DefaultFrameMs is the length of one frame of caller audio as a phone
// line delivers it.
const DefaultFrameMs = 20

// SpeechPeak is the share of full scale above which a frame's peak counts
// as speech: a frame whose largest |sample| exceeds 1 % of 32767 is
// speech, any other is silence. The speech end of a clip is the end of
// its last speech frame.
const SpeechPeak = 0.01

// speechLevel is SpeechPeak of full scale as a sample value.
var speechLevel = int(math.Ceil(SpeechPeak * 32767))

// IsSpeech says whether a sample is above SpeechPeak of full scale: the
// one rule of what counts as speech, for a clip's frames, the default
// engine's energy detector and the fakes' VADs alike.
func IsSpeech(v int16) bool { return int(v) > speechLevel || -int(v) > speechLevel }

// PCMHasSpeech says whether PCM16 (little-endian) holds a sample that
// IsSpeech.
func PCMHasSpeech(pcm []byte) bool {
	for i := 0; i+1 < len(pcm); i += 2 {
		if IsSpeech(int16(binary.LittleEndian.Uint16(pcm[i:]))) {
			return true
		}
	}
	return false
}

// Clip is one utterance of the caller: mono 16-bit PCM at Rate.
type Clip struct {
	Samples []int16
	Rate    int
	// Text is what was said (the text synthesized, or the text given
	// beside a WAV file), the reference of the transcript's word error
	// rate; "" when not known.
	Text string
	// Source says where the audio came from: "espeak-ng en-us", or the
	// WAV file's path.
	Source string
}

// DurationMs is the clip's length.
func (c *Clip) DurationMs() float64 {
	if c.Rate <= 0 {
		return 0
	}
	return float64(len(c.Samples)) * 1000 / float64(c.Rate)
}

// FrameSamples is the number of samples in one frame of frameMs (0:
// DefaultFrameMs) at the clip's rate, at least 1.
func (c *Clip) FrameSamples(frameMs int) int {
	if frameMs <= 0 {
		frameMs = DefaultFrameMs
	}
	n := c.Rate * frameMs / 1000
	if n < 1 {
		n = 1
	}
	return n
}

// Frames is the number of frames of frameMs the clip is sent as (the
// last one may be short).
func (c *Clip) Frames(frameMs int) int {
	n := c.FrameSamples(frameMs)
	return (len(c.Samples) + n - 1) / n
}

// Frame is frame i's samples (i from 0), as little-endian PCM16 bytes.
func (c *Clip) Frame(i, frameMs int) []byte {
	n := c.FrameSamples(frameMs)
	lo, hi := i*n, (i+1)*n
	if lo > len(c.Samples) {
		lo = len(c.Samples)
	}
	if hi > len(c.Samples) {
		hi = len(c.Samples)
	}
	return pcm(c.Samples[lo:hi])
}

// speechFrame says whether frame i of frameMs holds speech (its peak
// above SpeechPeak of full scale).
func (c *Clip) speechFrame(i, frameMs int) bool {
	n := c.FrameSamples(frameMs)
	for j := i * n; j < (i+1)*n && j < len(c.Samples); j++ {
		if IsSpeech(c.Samples[j]) {
			return true
		}
	}
	return false
}

// SpeechEndFrame is the index of the clip's last speech frame of frameMs,
// -1 when no frame holds speech.
func (c *Clip) SpeechEndFrame(frameMs int) int {
	for i := c.Frames(frameMs) - 1; i >= 0; i-- {
		if c.speechFrame(i, frameMs) {
			return i
		}
	}
	return -1
}

// SpeechStartFrame is the index of the clip's first speech frame, -1 when
// none holds speech.
func (c *Clip) SpeechStartFrame(frameMs int) int {
	for i := 0; i < c.Frames(frameMs); i++ {
		if c.speechFrame(i, frameMs) {
			return i
		}
	}
	return -1
}

// SpeechEndMs is where the caller's speech ends in the clip: the end of
// its last speech frame of frameMs, in ms from the clip's start (0 for a
// clip without speech).
func (c *Clip) SpeechEndMs(frameMs int) float64 {
	i := c.SpeechEndFrame(frameMs)
	if i < 0 {
		return 0
	}
	end := (i + 1) * c.FrameSamples(frameMs)
	if end > len(c.Samples) {
		end = len(c.Samples)
	}
	return float64(end) * 1000 / float64(c.Rate)
}

// PCM is the whole clip as little-endian PCM16 bytes.
func (c *Clip) PCM() []byte { return pcm(c.Samples) }

func pcm(s []int16) []byte {
	b := make([]byte, 2*len(s))
	for i, v := range s {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

// Silence is one frame of frameMs of silence at rate, as PCM16 bytes.
func Silence(rate, frameMs int) []byte {
	c := Clip{Rate: rate}
	return make([]byte, 2*c.FrameSamples(frameMs))
}
