package callaudio

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"

	"ttftlab/internal/audio"
	"ttftlab/internal/espeak"
)

// Resample returns the clip at rate (the same clip when it already is),
// by linear interpolation (audio.Resampler): n samples become about
// n*rate/Rate, so the clip lasts as long.
func (c *Clip) Resample(rate int) *Clip {
	if rate <= 0 || rate == c.Rate || c.Rate <= 0 {
		return c
	}
	b := audio.NewResampler(c.Rate, rate).Push(nil, c.PCM())
	out := &Clip{Samples: make([]int16, len(b)/2), Rate: rate, Text: c.Text, Source: c.Source}
	for i := range out.Samples {
		out.Samples[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return out
}

// WAV is the clip as a RIFF WAV file (PCM16 mono at its rate).
func (c *Clip) WAV() []byte {
	data := c.PCM()
	b := make([]byte, 0, 44+len(data))
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	u16 := func(v uint16) { b = binary.LittleEndian.AppendUint16(b, v) }
	b = append(b, "RIFF"...)
	u32(uint32(36 + len(data)))
	b = append(b, "WAVEfmt "...)
	u32(16)
	u16(1) // integer PCM
	u16(1) // mono
	u32(uint32(c.Rate))
	u32(uint32(2 * c.Rate))
	u16(2)
	u16(16)
	b = append(b, "data"...)
	u32(uint32(len(data)))
	return append(b, data...)
}

// ReadWAV reads a WAV file of any sample rate, 8/16/24/32-bit integer or
// 32-bit float (format 1, 3 or WAVE_FORMAT_EXTENSIBLE), mono or more
// channels (mixed down: their mean), into a clip at its own rate; its
// Text is read from a file beside it (same name, .txt) when there is one.
func ReadWAV(path string) (*Clip, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("caller audio: %w", err)
	}
	c, err := DecodeWAV(b)
	if err != nil {
		return nil, fmt.Errorf("caller audio %s: %v", path, err)
	}
	c.Source = path
	txt := strings.TrimSuffix(path, filepath.Ext(path)) + ".txt"
	if t, err := os.ReadFile(txt); err == nil {
		c.Text = strings.TrimSpace(string(t))
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("caller audio %s: its text: %v", path, err)
	}
	return c, nil
}

// DecodeWAV reads a whole WAV file (as ReadWAV takes it) into a mono clip
// at its own rate: for a file that came over the network.
func DecodeWAV(b []byte) (*Clip, error) {
	f, data, err := audio.DecodeWAV(b)
	if err != nil {
		return nil, err
	}
	fb, bps := f.FrameBytes(), f.BitsPerSample/8
	n := len(data) / fb
	if n == 0 {
		return nil, fmt.Errorf("the WAV file holds no samples")
	}
	c := &Clip{Samples: make([]int16, n), Rate: f.SampleRate}
	for i := range c.Samples {
		fr := data[i*fb : (i+1)*fb]
		sum := 0.0
		for ch := 0; ch < f.Channels; ch++ {
			sum += f.Sample(fr[ch*bps : (ch+1)*bps])
		}
		v := math.Round(sum / float64(f.Channels) * 32768)
		c.Samples[i] = int16(max(-32768, min(32767, v)))
	}
	return c, nil
}

// Synthesize speaks text with the espeak-ng at bin in voice ("" : chosen
// from the text's script, as the speech engine chooses), into a clip at
// espeak-ng's own rate (22050 Hz) whose Text is text.
func Synthesize(ctx context.Context, bin, text, voice string) (*Clip, error) {
	if strings.TrimSpace(text) == "" {
		return nil, fmt.Errorf("caller audio: nothing to say (the text is empty)")
	}
	if voice == "" {
		voice = espeak.VoiceFor(text)
	}
	vs, err := voices(bin)
	if err != nil {
		return nil, fmt.Errorf("caller audio: %v", err)
	}
	if !vs.Has(voice) {
		return nil, fmt.Errorf("caller audio: espeak-ng (%s) has no voice %q (see `espeak-ng --voices`)", bin, voice)
	}
	cmd := exec.CommandContext(ctx, bin, "--stdout", "-v", voice)
	cmd.Stdin = strings.NewReader(text)
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return nil, fmt.Errorf("caller audio: espeak-ng (%s, voice %s): %s", bin, voice, msg)
	}
	c, err := DecodeWAV(out.Bytes())
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg != "" {
			msg = " (" + msg + ")"
		}
		return nil, fmt.Errorf("caller audio: espeak-ng (%s, voice %s) wrote no audio to read: %v%s", bin, voice, err, msg)
	}
	c.Text, c.Source = text, "espeak-ng "+voice
	return c, nil
}

var (
	voicesMu sync.Mutex
	voicesOf = map[string]espeak.Voices{}
)

// voices are the voices of the espeak-ng at bin, asked once.
func voices(bin string) (espeak.Voices, error) {
	voicesMu.Lock()
	defer voicesMu.Unlock()
	if vs, ok := voicesOf[bin]; ok {
		return vs, nil
	}
	vs, err := espeak.ListVoices(bin)
	if err != nil {
		return nil, err
	}
	voicesOf[bin] = vs
	return vs, nil
}
