package pocketsphinx

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"
)

// decodeWAV reads a RIFF WAV file's samples, mixed down to mono 16-bit:
// integer PCM of 8, 16, 24 or 32 bits or 32-bit float, any channels, any
// rate (WAVE_FORMAT_EXTENSIBLE too). A data chunk whose size is a
// placeholder (a file written to a pipe) runs to the end of b.
func decodeWAV(b []byte) (samples []int16, rate int, err error) {
	if len(b) < 12 || string(b[:4]) != "RIFF" || string(b[8:12]) != "WAVE" {
		return nil, 0, errors.New("not a WAV file (no RIFF/WAVE header)")
	}
	var format, channels, bits int
	haveFmt := false
	for p := 12; p+8 <= len(b); {
		id, size := string(b[p:p+4]), int(binary.LittleEndian.Uint32(b[p+4:]))
		body := b[p+8:]
		if size < 0 || size > len(body) {
			size = len(body)
		}
		switch id {
		case "fmt ":
			if size < 16 {
				return nil, 0, errors.New("the WAV file's fmt chunk is too short")
			}
			format = int(binary.LittleEndian.Uint16(body))
			channels = int(binary.LittleEndian.Uint16(body[2:]))
			rate = int(binary.LittleEndian.Uint32(body[4:]))
			bits = int(binary.LittleEndian.Uint16(body[14:]))
			if format == 0xfffe && size >= 26 { // WAVE_FORMAT_EXTENSIBLE: the sub-format's code
				format = int(binary.LittleEndian.Uint16(body[24:]))
			}
			haveFmt = true
		case "data":
			if !haveFmt {
				return nil, 0, errors.New("the WAV file has no fmt chunk before its data")
			}
			return mixDown(body[:size], format, channels, bits, rate)
		}
		p += 8 + size + size%2
	}
	return nil, 0, errors.New("the WAV file has no data chunk")
}

func mixDown(data []byte, format, channels, bits, rate int) ([]int16, int, error) {
	if rate <= 0 || channels <= 0 {
		return nil, 0, fmt.Errorf("the WAV file says %d Hz, %d channels", rate, channels)
	}
	var sample func([]byte) float64 // in [-1, 1]
	switch {
	case format == 1 && bits == 8:
		sample = func(s []byte) float64 { return (float64(s[0]) - 128) / 128 }
	case format == 1 && bits == 16:
		sample = func(s []byte) float64 { return float64(int16(binary.LittleEndian.Uint16(s))) / 32768 }
	case format == 1 && bits == 24:
		sample = func(s []byte) float64 {
			return float64(int32(uint32(s[0])<<8|uint32(s[1])<<16|uint32(s[2])<<24)>>8) / (1 << 23)
		}
	case format == 1 && bits == 32:
		sample = func(s []byte) float64 { return float64(int32(binary.LittleEndian.Uint32(s))) / (1 << 31) }
	case format == 3 && bits == 32:
		sample = func(s []byte) float64 { return float64(math.Float32frombits(binary.LittleEndian.Uint32(s))) }
	default:
		return nil, 0, fmt.Errorf("the WAV file's samples are format %d, %d bits: want integer PCM of 8, 16, 24 or 32 bits or 32-bit float", format, bits)
	}
	width := bits / 8
	frame := width * channels
	out := make([]int16, len(data)/frame)
	for i := range out {
		var sum float64
		for c := 0; c < channels; c++ {
			sum += sample(data[i*frame+c*width:])
		}
		v := math.Round(sum / float64(channels) * 32767)
		out[i] = int16(max(-32768, min(32767, v)))
	}
	return out, rate, nil
}

// resampler converts 16-bit mono samples from one rate to another by
// linear interpolation, a piece at a time (the Realtime session's audio
// arrives in pieces). Linear interpolation is coarse for listening and
// enough for a recognizer whose features stop at 6.8 kHz.
type resampler struct {
	from, to int
	// pos is the next output sample's position in input samples,
	// relative to prev (the last input sample of the previous piece).
	pos     float64
	prev    int16
	hasPrev bool
}

// push converts in and appends the result to out.
func (r *resampler) push(out, in []int16) []int16 {
	if r.from == r.to {
		return append(out, in...)
	}
	step := float64(r.from) / float64(r.to)
	for _, cur := range in {
		if !r.hasPrev {
			r.prev, r.hasPrev = cur, true
			continue
		}
		for r.pos < 1 {
			v := float64(r.prev) + r.pos*(float64(cur)-float64(r.prev))
			out = append(out, int16(math.Round(v)))
			r.pos += step
		}
		r.pos--
		r.prev = cur
	}
	return out
}

// pcm16 is samples as little-endian bytes.
func pcm16(s []int16) []byte {
	b := make([]byte, 2*len(s))
	for i, v := range s {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
	}
	return b
}

// samples16 reads little-endian 16-bit samples (an odd last byte is
// dropped).
func samples16(b []byte) []int16 {
	s := make([]int16, len(b)/2)
	for i := range s {
		s[i] = int16(binary.LittleEndian.Uint16(b[2*i:]))
	}
	return s
}
