// Package audio reads a text-to-speech answer as it arrives: the WAV header
// (with the placeholder sizes a synthesizer writing to a pipe puts there)
// or raw PCM of a known format, when the first sample came, when the first
// voiced sample came (leading silence is part of what a caller waits for),
// and how long the audio received lasts; and how a speaker plays an
// answer's sentences as their audio comes (Play): when each starts and
// ends, and the silence in the middle of the answer.
package audio

import (
	"encoding/binary"
	"fmt"
	"math"
)

// Format is the layout of the samples.
type Format struct {
	SampleRate    int `json:"sample_rate"`
	Channels      int `json:"channels"`
	BitsPerSample int `json:"bits_per_sample"`
	// Float is IEEE float samples (WAV format 3), else signed integers
	// (unsigned for 8 bits, as WAV has it).
	Float bool `json:"float,omitempty"`
}

// OpenAIPCM is the "pcm" response format of OpenAI's speech API: 24 kHz,
// 16-bit signed little-endian, mono. A server of another rate must be
// told (--tts-sample-rate): raw PCM carries no header.
var OpenAIPCM = Format{SampleRate: 24000, Channels: 1, BitsPerSample: 16}

// FrameBytes is the bytes of one sample of every channel.
func (f Format) FrameBytes() int { return f.Channels * f.BitsPerSample / 8 }

func (f Format) check() error {
	if f.SampleRate <= 0 || f.Channels <= 0 {
		return fmt.Errorf("audio format %d Hz, %d channels: want a positive rate and channel count", f.SampleRate, f.Channels)
	}
	switch {
	case f.Float && f.BitsPerSample == 32, !f.Float && (f.BitsPerSample == 8 || f.BitsPerSample == 16 || f.BitsPerSample == 24 || f.BitsPerSample == 32):
		return nil
	}
	kind := "integer"
	if f.Float {
		kind = "float"
	}
	return fmt.Errorf("audio of %d-bit %s samples is not read (8, 16, 24 or 32-bit integers, 32-bit float)", f.BitsPerSample, kind)
}

// DefaultThreshold is the amplitude, as a share of full scale, above which
// a sample is voiced: 1 % (-40 dBFS), above a synthesizer's dither and
// below any spoken sound.
const DefaultThreshold = 0.01

// Meter follows one audio answer chunk by chunk. Feed it each read with
// its arrival time; Result tells what came.
type Meter struct {
	wav       bool
	threshold float64

	format Format
	// head holds a WAV header not yet complete.
	head []byte
	// inData is true once the samples began (at once for raw PCM).
	inData bool
	// skip is the bytes of a WAV chunk still to pass over.
	skip int
	// part is a frame split across reads.
	part []byte

	headerBytes   int
	audioBytes    int64
	frames        int64
	firstAudioMs  float64
	firstVoicedMs float64
	gotAudio      bool
	gotVoiced     bool
	// voicedFrame is the index of the first voiced frame: where in the
	// audio the voice begins, as opposed to when its bytes arrived.
	voicedFrame int64
	// dataSize is the size the data chunk's header gives (perhaps a
	// placeholder).
	dataSize int64
	err      error
}

// NewWAV is a meter of a WAV answer.
func NewWAV(threshold float64) *Meter {
	return &Meter{wav: true, threshold: threshold}
}

// NewPCM is a meter of raw PCM in format f.
func NewPCM(f Format, threshold float64) (*Meter, error) {
	if err := f.check(); err != nil {
		return nil, err
	}
	return &Meter{format: f, inData: true, threshold: threshold}, nil
}

// Feed reads the next bytes of the answer, which arrived tMs after the
// request's t0. After an error (a header that is not WAV, a format not
// read) Feed does nothing and Err says why.
func (m *Meter) Feed(tMs float64, b []byte) {
	if m.err != nil {
		return
	}
	if !m.inData {
		b = m.header(b)
		if m.err != nil || !m.inData {
			return
		}
	}
	m.samples(tMs, b)
}

// header consumes WAV header bytes and returns what follows the start of
// the data chunk (nil while the header is incomplete).
func (m *Meter) header(b []byte) []byte {
	for len(b) > 0 && !m.inData {
		if m.skip > 0 {
			n := min(m.skip, len(b))
			m.skip -= n
			m.headerBytes += n
			b = b[n:]
			continue
		}
		m.head = append(m.head, b...)
		b = nil
		if m.headerBytes == 0 {
			if len(m.head) < 12 {
				return nil
			}
			if string(m.head[0:4]) != "RIFF" || string(m.head[8:12]) != "WAVE" {
				m.err = fmt.Errorf("the audio is not WAV: it begins %q, not RIFF....WAVE", printable(m.head[:12]))
				return nil
			}
			m.headerBytes = 12
			m.head = m.head[12:]
		}
		for len(m.head) >= 8 {
			id := string(m.head[0:4])
			size := int(binary.LittleEndian.Uint32(m.head[4:8]))
			if id == "data" {
				// The size may be a placeholder (a pipe cannot seek back
				// to write it): the samples run to the end of the answer.
				m.dataSize = int64(uint32(size))
				m.headerBytes += 8
				rest := m.head[8:]
				m.head = nil
				if m.format.SampleRate == 0 {
					m.err = fmt.Errorf("the WAV answer has its data before its fmt chunk")
					return nil
				}
				m.inData = true
				return rest
			}
			padded := size + size&1
			if id == "fmt " {
				if size < 16 {
					m.err = fmt.Errorf("the WAV fmt chunk is %d bytes, want 16 or more", size)
					return nil
				}
				// WAVE_FORMAT_EXTENSIBLE names its samples' kind in the
				// extension's subformat: the first 40 bytes are read.
				need := 16
				if size >= 40 && len(m.head) >= 10 && binary.LittleEndian.Uint16(m.head[8:10]) == formatExtensible {
					need = 40
				}
				if len(m.head) < 8+need {
					break
				}
				m.err = m.readFmt(m.head[8 : 8+need])
				if m.err != nil {
					return nil
				}
			}
			// Pass over the chunk (fmt's extension, LIST, fact, ...).
			if len(m.head) >= 8+padded {
				m.headerBytes += 8 + padded
				m.head = m.head[8+padded:]
				continue
			}
			m.skip = 8 + padded - len(m.head)
			m.headerBytes += len(m.head)
			m.head = nil
			break
		}
	}
	return nil
}

func (m *Meter) readFmt(b []byte) error {
	code := binary.LittleEndian.Uint16(b[0:2])
	f := Format{
		Channels:      int(binary.LittleEndian.Uint16(b[2:4])),
		SampleRate:    int(binary.LittleEndian.Uint32(b[4:8])),
		BitsPerSample: int(binary.LittleEndian.Uint16(b[14:16])),
	}
	if code == formatExtensible && len(b) >= 40 {
		// The subformat GUID begins with the format code it stands for.
		sub := binary.LittleEndian.Uint16(b[24:26])
		if sub != 1 && sub != 3 {
			return fmt.Errorf("WAV format extensible of subformat %d is not read (1: integer PCM, 3: float)", sub)
		}
		code = sub
	}
	switch code {
	case 1, formatExtensible: // PCM; extensible without its subformat is read as its bits say
	case 3:
		f.Float = true
	default:
		return fmt.Errorf("WAV format code %d is not read (1: integer PCM, 3: float, 0xFFFE: extensible)", code)
	}
	if err := f.check(); err != nil {
		return err
	}
	m.format = f
	return nil
}

// samples counts frames and finds the first voiced one.
func (m *Meter) samples(tMs float64, b []byte) {
	if len(b) == 0 {
		return
	}
	m.audioBytes += int64(len(b))
	fb := m.format.FrameBytes()
	if len(m.part) > 0 {
		need := fb - len(m.part)
		if len(b) < need {
			m.part = append(m.part, b...)
			return
		}
		m.part = append(m.part, b[:need]...)
		m.frame(tMs, m.part)
		m.part = m.part[:0]
		b = b[need:]
	}
	for len(b) >= fb {
		m.frame(tMs, b[:fb])
		b = b[fb:]
	}
	m.part = append(m.part, b...)
}

func (m *Meter) frame(tMs float64, f []byte) {
	if !m.gotAudio {
		m.gotAudio, m.firstAudioMs = true, tMs
	}
	if !m.gotVoiced {
		bps := m.format.BitsPerSample / 8
		for c := 0; c < m.format.Channels; c++ {
			if m.amplitude(f[c*bps:(c+1)*bps]) > m.threshold {
				m.gotVoiced, m.firstVoicedMs, m.voicedFrame = true, tMs, m.frames
				break
			}
		}
	}
	m.frames++
}

// amplitude is |sample| as a share of full scale.
func (m *Meter) amplitude(s []byte) float64 { return math.Abs(m.format.Sample(s)) }

// Sample is one channel's sample s (BitsPerSample/8 bytes, little-endian)
// as a share of full scale, from -1 to 1.
func (f Format) Sample(s []byte) float64 {
	switch {
	case f.Float:
		return float64(math.Float32frombits(binary.LittleEndian.Uint32(s)))
	case len(s) == 1:
		return float64(int(s[0])-128) / 128
	case len(s) == 2:
		return float64(int16(binary.LittleEndian.Uint16(s))) / 32768
	case len(s) == 3:
		v := int32(uint32(s[0])<<8|uint32(s[1])<<16|uint32(s[2])<<24) >> 8
		return float64(v) / (1 << 23)
	default:
		return float64(int32(binary.LittleEndian.Uint32(s))) / (1 << 31)
	}
}

// formatExtensible is WAVE_FORMAT_EXTENSIBLE's format code.
const formatExtensible = 0xFFFE

// DecodeWAV splits a whole WAV file into its format and its samples'
// bytes (whole frames): the header read as a meter reads it, the data
// chunk's size taken when it fits the file, else (a placeholder) the
// samples run to its end.
func DecodeWAV(b []byte) (Format, []byte, error) {
	m := NewWAV(DefaultThreshold)
	data := m.header(b)
	if m.err != nil {
		return Format{}, nil, m.err
	}
	if !m.inData {
		if m.headerBytes == 0 && len(m.head) < 12 {
			return Format{}, nil, fmt.Errorf("the file is %d bytes, too short for a WAV header", len(b))
		}
		return Format{}, nil, fmt.Errorf("the WAV file has no data chunk (or its header is cut short)")
	}
	if m.dataSize > 0 && m.dataSize <= int64(len(data)) {
		data = data[:m.dataSize]
	}
	fb := m.format.FrameBytes()
	return m.format, data[:len(data)/fb*fb], nil
}

// Err is why the meter stopped reading, nil when it did not.
func (m *Meter) Err() error { return m.err }

// Result is what a meter saw.
type Result struct {
	Format Format
	// FirstAudioMs is when the first whole sample arrived; FirstVoicedMs
	// when the first sample above the threshold did. Null (nil) when none
	// came.
	FirstAudioMs  *float64
	FirstVoicedMs *float64
	// VoiceStartsMs is where in the audio the voice begins: the leading
	// silence's length. Nil without a voiced sample.
	VoiceStartsMs *float64
	HeaderBytes   int
	AudioBytes    int64
	// AudioMs is the length of the whole frames received.
	AudioMs float64
}

// Result is what came so far.
func (m *Meter) Result() Result {
	r := Result{Format: m.format, HeaderBytes: m.headerBytes, AudioBytes: m.audioBytes}
	if m.format.SampleRate > 0 {
		r.AudioMs = float64(m.frames) * 1000 / float64(m.format.SampleRate)
	}
	if m.gotAudio {
		v := m.firstAudioMs
		r.FirstAudioMs = &v
	}
	if m.gotVoiced {
		v, s := m.firstVoicedMs, float64(m.voicedFrame)*1000/float64(m.format.SampleRate)
		r.FirstVoicedMs, r.VoiceStartsMs = &v, &s
	}
	return r
}

// RealTimeFactor is the time the audio took to arrive over its length: below
// 1 the engine speaks faster than it is played. 0 when no audio came.
func RealTimeFactor(wallMs, audioMs float64) float64 {
	if !(audioMs > 0) {
		return 0
	}
	return wallMs / audioMs
}

func printable(b []byte) string {
	out := make([]byte, len(b))
	for i, c := range b {
		if c < 32 || c > 126 {
			c = '.'
		}
		out[i] = c
	}
	return string(out)
}
