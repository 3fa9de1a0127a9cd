package audio

import (
	"encoding/binary"
	"math"
	"strings"
	"testing"
)

// wav is a WAV file as a synthesizer writing to a pipe makes it: sizes
// that are placeholders, optionally a LIST chunk before the data.
func wav(f Format, code uint16, list bool, samples []byte) []byte {
	var b []byte
	u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
	u16 := func(v uint16) { b = binary.LittleEndian.AppendUint16(b, v) }
	b = append(b, "RIFF"...)
	u32(0x7ffff024)
	b = append(b, "WAVE"...)
	b = append(b, "fmt "...)
	u32(18) // with a cbSize extension
	u16(code)
	u16(uint16(f.Channels))
	u32(uint32(f.SampleRate))
	u32(uint32(f.SampleRate * f.FrameBytes()))
	u16(uint16(f.FrameBytes()))
	u16(uint16(f.BitsPerSample))
	u16(0)
	if list {
		b = append(b, "LIST"...)
		u32(5) // odd: padded to 6
		b = append(b, "INFOx\x00"...)
	}
	b = append(b, "data"...)
	u32(0x7ffff000)
	return append(b, samples...)
}

// pcm16 is n frames of silence then n frames of a loud tone.
func pcm16(silent, loud int) []byte {
	var b []byte
	for i := 0; i < silent; i++ {
		b = binary.LittleEndian.AppendUint16(b, uint16(int16(i%3-1))) // dither
	}
	for i := 0; i < loud; i++ {
		b = binary.LittleEndian.AppendUint16(b, uint16(int16(8000*math.Sin(float64(i)/3))))
	}
	return b
}

func TestWAVPlaceholderSizesAnySplit(t *testing.T) {
	f := Format{SampleRate: 22050, Channels: 1, BitsPerSample: 16}
	data := wav(f, 1, true, pcm16(2205, 2205))
	// Byte by byte, the n-th byte arriving at n ms.
	m := NewWAV(DefaultThreshold)
	for i := range data {
		m.Feed(float64(i), data[i:i+1])
	}
	if m.Err() != nil {
		t.Fatal(m.Err())
	}
	r := m.Result()
	head := len(data) - 2*2205*2
	if r.HeaderBytes != head || r.Format != f || r.AudioBytes != 2*2205*2 {
		t.Fatalf("header %d (want %d), format %+v, audio bytes %d", r.HeaderBytes, head, r.Format, r.AudioBytes)
	}
	if r.AudioMs != 200 {
		t.Fatalf("audio_ms %v, want 200 (4410 frames at 22050 Hz)", r.AudioMs)
	}
	// The first sample is whole at its second byte; the first voiced
	// frame is frame 2205 (frame 2205's sin(0) is 0: the next one).
	if *r.FirstAudioMs != float64(head+1) {
		t.Fatalf("first_audio_ms %v, want %d", *r.FirstAudioMs, head+1)
	}
	if *r.FirstVoicedMs != float64(head+2*2206+1) || math.Abs(*r.VoiceStartsMs-2206*1000.0/22050) > 1e-9 {
		t.Fatalf("first_voiced_ms %v (want %d), voice starts %v", *r.FirstVoicedMs, head+2*2206+1, *r.VoiceStartsMs)
	}
	// All at once: the same counts, every time the one arrival.
	one := NewWAV(DefaultThreshold)
	one.Feed(7, data)
	o := one.Result()
	if o.HeaderBytes != r.HeaderBytes || o.AudioMs != r.AudioMs || *o.FirstAudioMs != 7 || *o.FirstVoicedMs != 7 || *o.VoiceStartsMs != *r.VoiceStartsMs {
		t.Fatalf("one read: %+v", o)
	}
}

func TestSampleFormats(t *testing.T) {
	for _, c := range []struct {
		name  string
		f     Format
		code  uint16
		quiet []byte
		loud  []byte
	}{
		{"8-bit", Format{8000, 1, 8, false}, 1, []byte{128}, []byte{200}},
		{"24-bit", Format{8000, 1, 24, false}, 1, []byte{1, 0, 0}, []byte{0, 0, 0x40}},
		{"float", Format{8000, 1, 32, true}, 3, binary.LittleEndian.AppendUint32(nil, math.Float32bits(-0.001)), binary.LittleEndian.AppendUint32(nil, math.Float32bits(-0.5))},
		{"stereo, voice on the right", Format{8000, 2, 16, false}, 1, []byte{0, 0, 0, 0}, []byte{0, 0, 0, 0x40}},
	} {
		var s []byte
		for i := 0; i < 8; i++ {
			s = append(s, c.quiet...)
		}
		s = append(s, c.loud...)
		m := NewWAV(DefaultThreshold)
		m.Feed(1, wav(c.f, c.code, false, s))
		r := m.Result()
		if m.Err() != nil || r.Format != c.f || r.VoiceStartsMs == nil || *r.VoiceStartsMs != 1 || r.AudioMs != 9.0/8 {
			t.Errorf("%s: err %v, %+v", c.name, m.Err(), r)
		}
	}
}

func TestPCMAndErrors(t *testing.T) {
	m, err := NewPCM(OpenAIPCM, DefaultThreshold)
	if err != nil {
		t.Fatal(err)
	}
	m.Feed(3, pcm16(0, 2400)[:4799]) // a frame cut in half
	m.Feed(4, []byte{0})
	if r := m.Result(); r.AudioMs != 100 || *r.FirstAudioMs != 3 || r.HeaderBytes != 0 {
		t.Fatalf("pcm: %+v", r)
	}
	if _, err := NewPCM(Format{SampleRate: 24000, Channels: 1, BitsPerSample: 12}, 0.01); err == nil || !strings.Contains(err.Error(), "12-bit") {
		t.Fatalf("12-bit: %v", err)
	}
	bad := NewWAV(DefaultThreshold)
	bad.Feed(1, []byte("ID3\x03\x00\x00\x00\x00\x00\x00\x00\x00mp3..."))
	if bad.Err() == nil || !strings.Contains(bad.Err().Error(), "not WAV") {
		t.Fatalf("mp3: %v", bad.Err())
	}
	alaw := NewWAV(DefaultThreshold)
	alaw.Feed(1, wav(Format{8000, 1, 8, false}, 6, false, []byte{1, 2}))
	if alaw.Err() == nil || !strings.Contains(alaw.Err().Error(), "format code 6") {
		t.Fatalf("a-law: %v", alaw.Err())
	}
	none := NewWAV(DefaultThreshold)
	none.Feed(1, wav(OpenAIPCM, 1, false, nil))
	if r := none.Result(); r.FirstAudioMs != nil || r.FirstVoicedMs != nil || r.AudioMs != 0 {
		t.Fatalf("no samples: %+v", r)
	}
	if RealTimeFactor(50, 200) != 0.25 || RealTimeFactor(50, 0) != 0 {
		t.Fatal("real-time factor")
	}
}

// TestExtensibleSubformat: WAVE_FORMAT_EXTENSIBLE's samples are what its
// subformat says, float or integer, however the header is split.
func TestExtensibleSubformat(t *testing.T) {
	ext := func(sub uint16, bits int, samples []byte) []byte {
		var b []byte
		u32 := func(v uint32) { b = binary.LittleEndian.AppendUint32(b, v) }
		u16 := func(v uint16) { b = binary.LittleEndian.AppendUint16(b, v) }
		b = append(b, "RIFF"...)
		u32(0x7ffff024)
		b = append(b, "WAVEfmt "...)
		u32(40)
		u16(0xFFFE)
		u16(1)
		u32(8000)
		u32(uint32(8000 * bits / 8))
		u16(uint16(bits / 8))
		u16(uint16(bits))
		u16(22)
		u16(uint16(bits))
		u32(0)
		u16(sub)
		b = append(b, "\x00\x00\x00\x00\x10\x00\x80\x00\x00\xAA\x00\x38\x9B\x71"...)
		b = append(b, "data"...)
		u32(0x7ffff000)
		return append(b, samples...)
	}
	// Silence then a half-scale sample, as float.
	var fl []byte
	for _, v := range []float32{0, 0, 0.5} {
		fl = binary.LittleEndian.AppendUint32(fl, math.Float32bits(v))
	}
	data := ext(3, 32, fl)
	m := NewWAV(DefaultThreshold)
	for i := range data {
		m.Feed(float64(i), data[i:i+1])
	}
	r := m.Result()
	if m.Err() != nil || !r.Format.Float || r.VoiceStartsMs == nil || *r.VoiceStartsMs != 2*1000.0/8000 {
		t.Fatalf("float extensible: %+v, %v", r, m.Err())
	}
	f, s, err := DecodeWAV(data)
	if err != nil || len(s) != 12 || f.Sample(s[8:]) != 0.5 {
		t.Fatalf("decoded %+v, %d bytes, %v", f, len(s), err)
	}
	if _, _, err := DecodeWAV(ext(2, 16, nil)); err == nil || !strings.Contains(err.Error(), "subformat 2") {
		t.Fatalf("ADPCM subformat: %v", err)
	}
}
