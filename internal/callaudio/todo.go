package callaudio

import "context"

// Resample returns the clip at rate (the same clip when it already is).
func (c *Clip) Resample(rate int) *Clip { panic("callaudio.Resample: not written yet") }

// WAV is the clip as a RIFF WAV file (PCM16 mono at its rate).
func (c *Clip) WAV() []byte { panic("callaudio.WAV: not written yet") }

// ReadWAV reads a WAV file of any sample rate, 8/16/24/32-bit integer or
// 32-bit float, mono or more channels (mixed down), into a clip at its
// own rate; its Text is read from a file beside it (same name, .txt)
// when there is one.
func ReadWAV(path string) (*Clip, error) { panic("callaudio.ReadWAV: not written yet") }

// Synthesize speaks text with the espeak-ng at bin in voice ("" : chosen
// from the text's script, as the speech engine chooses), into a clip at
// espeak-ng's own rate (22050 Hz) whose Text is text.
func Synthesize(ctx context.Context, bin, text, voice string) (*Clip, error) {
	panic("callaudio.Synthesize: not written yet")
}
