package audio

import "encoding/binary"

// Resampler converts 16-bit mono PCM from one rate to another by linear
// interpolation, a read at a time: OpenAI's "pcm" is 24 kHz, espeak-ng
// speaks at 22.05 kHz, a speech-to-text upload is 16 kHz. Linear
// interpolation is coarse for listening and exact enough for timing:
// every input frame maps to its time.
type Resampler struct {
	from, to int
	// pos is the next output frame's position in input frames, relative
	// to prev (the last input frame of the previous read).
	pos     float64
	prev    int16
	hasPrev bool
	odd     []byte // half a frame left from the previous read
}

// NewResampler converts from Hz to Hz (both above 0).
func NewResampler(from, to int) *Resampler { return &Resampler{from: from, to: to} }

// Push converts b (little-endian PCM16, split anywhere) and appends the
// output to out. n input frames make n*to/from output frames, less the
// interpolation's last step.
func (r *Resampler) Push(out, b []byte) []byte {
	if len(r.odd) > 0 {
		b = append(r.odd, b...)
		r.odd = nil
	}
	if len(b)%2 == 1 {
		r.odd = []byte{b[len(b)-1]}
		b = b[:len(b)-1]
	}
	step := float64(r.from) / float64(r.to)
	for i := 0; i+1 < len(b); i += 2 {
		cur := int16(binary.LittleEndian.Uint16(b[i:]))
		if !r.hasPrev {
			r.prev, r.hasPrev = cur, true
			continue
		}
		// Output frames between prev (at 0) and cur (at 1).
		for r.pos < 1 {
			v := float64(r.prev) + r.pos*(float64(cur)-float64(r.prev))
			out = binary.LittleEndian.AppendUint16(out, uint16(int16(v)))
			r.pos += step
		}
		r.pos--
		r.prev = cur
	}
	return out
}
