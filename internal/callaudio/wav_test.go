package callaudio

import (
	"context"
	"encoding/binary"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"ttftlab/internal/tts"
)

// tone is n samples of a sine of amplitude amp (share of full scale).
func tone(n int, amp float64) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = amp * math.Sin(float64(i)/5)
	}
	return out
}

// wavFile is a WAV file of the given layout holding the samples (shares
// of full scale), channel c of each frame scaled by (c+1)/channels so a
// mix-down is told from a first channel. ext makes the fmt chunk
// WAVE_FORMAT_EXTENSIBLE (40 bytes).
func wavFile(rate, channels, bits int, float, ext bool, s []float64) []byte {
	var data []byte
	for _, v := range s {
		for c := 0; c < channels; c++ {
			x := v * float64(c+1) / float64(channels)
			switch {
			case float:
				data = binary.LittleEndian.AppendUint32(data, math.Float32bits(float32(x)))
			case bits == 8:
				data = append(data, byte(int(math.Round(x*127))+128))
			case bits == 16:
				data = binary.LittleEndian.AppendUint16(data, uint16(int16(math.Round(x*32767))))
			case bits == 24:
				u := uint32(int32(math.Round(x * (1<<23 - 1))))
				data = append(data, byte(u), byte(u>>8), byte(u>>16))
			default:
				data = binary.LittleEndian.AppendUint32(data, uint32(int32(math.Round(x*(1<<31-1)))))
			}
		}
	}
	code := uint16(1)
	if float {
		code = 3
	}
	var fmtc []byte
	u16 := func(v uint16) { fmtc = binary.LittleEndian.AppendUint16(fmtc, v) }
	u32 := func(v uint32) { fmtc = binary.LittleEndian.AppendUint32(fmtc, v) }
	fb := channels * bits / 8
	if ext {
		u16(0xFFFE)
	} else {
		u16(code)
	}
	u16(uint16(channels))
	u32(uint32(rate))
	u32(uint32(rate * fb))
	u16(uint16(fb))
	u16(uint16(bits))
	if ext {
		u16(22)
		u16(uint16(bits))
		u32(0)
		u16(code) // the subformat GUID's first two bytes
		fmtc = append(fmtc, "\x00\x00\x00\x00\x10\x00\x80\x00\x00\xAA\x00\x38\x9B\x71"...)
	}
	var b []byte
	b = append(b, "RIFF"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(4+8+len(fmtc)+8+len(data)+8+4))
	b = append(b, "WAVEfmt "...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(fmtc)))
	b = append(b, fmtc...)
	b = append(b, "data"...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	b = append(b, data...)
	// A chunk after the data, which is not audio.
	b = append(b, "LIST"...)
	b = binary.LittleEndian.AppendUint32(b, 4)
	return append(b, "INFO"...)
}

func write(t *testing.T, name string, b []byte) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestWAVRoundTrip(t *testing.T) {
	c := &Clip{Rate: 16000, Samples: []int16{0, 1, -1, 32767, -32768, 1234, -4321}}
	p := write(t, "q.wav", c.WAV())
	if err := os.WriteFile(strings.TrimSuffix(p, ".wav")+".txt", []byte("What time is it?\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadWAV(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.Rate != c.Rate || len(got.Samples) != len(c.Samples) || got.Text != "What time is it?" || got.Source != p {
		t.Fatalf("read back %d Hz, %d samples, text %q, source %q", got.Rate, len(got.Samples), got.Text, got.Source)
	}
	for i := range c.Samples {
		if got.Samples[i] != c.Samples[i] {
			t.Fatalf("sample %d read back as %d, want %d", i, got.Samples[i], c.Samples[i])
		}
	}
	// Without a .txt beside it the text is unknown.
	got, err = ReadWAV(write(t, "other.wav", c.WAV()))
	if err != nil || got.Text != "" {
		t.Fatalf("text %q, err %v; want none", got.Text, err)
	}
}

func TestReadWAVSampleFormats(t *testing.T) {
	src := tone(441, 0.5)
	for _, tc := range []struct {
		name           string
		channels, bits int
		float, ext     bool
		tol            float64 // in 16-bit steps
	}{
		{"8-bit", 1, 8, false, false, 260}, {"16-bit", 1, 16, false, false, 1}, {"24-bit", 1, 24, false, false, 1},
		{"32-bit", 1, 32, false, false, 1}, {"float", 1, 32, true, false, 1}, {"16-bit stereo", 2, 16, false, false, 1},
		{"24-bit 6 channels", 6, 24, false, false, 1}, {"extensible 16-bit", 2, 16, false, true, 1},
		{"extensible float", 1, 32, true, true, 1}, {"extensible 24-bit", 1, 24, false, true, 1},
	} {
		c, err := ReadWAV(write(t, "a.wav", wavFile(44100, tc.channels, tc.bits, tc.float, tc.ext, src)))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if c.Rate != 44100 || len(c.Samples) != len(src) {
			t.Errorf("%s: %d Hz, %d samples; want 44100 Hz, %d", tc.name, c.Rate, len(c.Samples), len(src))
			continue
		}
		// The mix-down is the mean of the channels, channel c scaled by
		// (c+1)/n: the mean of those scales is (n+1)/(2n).
		k := float64(tc.channels+1) / float64(2*tc.channels)
		for i, v := range src {
			want := v * k * 32768
			if d := math.Abs(float64(c.Samples[i]) - want); d > tc.tol+1 {
				t.Errorf("%s: sample %d = %d, want %.1f", tc.name, i, c.Samples[i], want)
				break
			}
		}
	}
}

func TestReadWAVErrors(t *testing.T) {
	good := wavFile(8000, 1, 16, false, false, tone(80, 0.3))
	adpcm := append([]byte(nil), good...)
	binary.LittleEndian.PutUint16(adpcm[20:], 2)
	ext := wavFile(8000, 1, 16, false, true, tone(80, 0.3))
	binary.LittleEndian.PutUint16(ext[20+24:], 2) // subformat ADPCM
	bits := append([]byte(nil), good...)
	binary.LittleEndian.PutUint16(bits[34:], 12)
	for name, tc := range map[string]struct {
		b    []byte
		want string
	}{
		"not WAV":       {[]byte("ID3\x03 this is an mp3 file, not a wav"), "not WAV"},
		"short":         {[]byte("RIFF"), "too short"},
		"ADPCM":         {adpcm, "format code 2"},
		"extensible":    {ext, "subformat 2"},
		"12-bit":        {bits, "12-bit"},
		"no data":       {good[:36], "no data chunk"},
		"no samples":    {good[:44], "no samples"},
		"data first":    {[]byte("RIFF\x00\x00\x00\x00WAVEdata\x02\x00\x00\x00\x00\x00"), "data before its fmt"},
		"fmt too small": {[]byte("RIFF\x00\x00\x00\x00WAVEfmt \x04\x00\x00\x00\x01\x00\x01\x00"), "fmt chunk is 4 bytes"},
	} {
		p := write(t, "bad.wav", tc.b)
		_, err := ReadWAV(p)
		if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one naming %s and saying %q", name, err, p, tc.want)
		}
	}
	missing := filepath.Join(t.TempDir(), "none.wav")
	if _, err := ReadWAV(missing); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing file: %v", err)
	}
}

func TestResample(t *testing.T) {
	c := &Clip{Rate: 22050, Samples: make([]int16, 22050), Text: "t", Source: "s"}
	for i := range c.Samples {
		c.Samples[i] = int16(10000 * math.Sin(float64(i)/7))
	}
	for _, rate := range []int{16000, 24000, 8000, 44100} {
		r := c.Resample(rate)
		// n samples become n*rate/Rate, less the interpolation's last step.
		want := len(c.Samples) * rate / c.Rate
		if r.Rate != rate || len(r.Samples) > want || len(r.Samples) < want-2 || r.Text != c.Text || r.Source != c.Source {
			t.Fatalf("at %d Hz: %d samples (want %d), rate %d, text %q", rate, len(r.Samples), want, r.Rate, r.Text)
		}
		// It lasts as long, to within two of its samples.
		if d := c.DurationMs() - r.DurationMs(); d < 0 || d > 2*1000/float64(rate) {
			t.Fatalf("at %d Hz it lasts %v ms, the clip %v", rate, r.DurationMs(), c.DurationMs())
		}
	}
	if c.Resample(22050) != c {
		t.Fatal("a clip at the rate asked is not the same clip")
	}
}

// espeakBin is espeak-ng (.ci/run installs it; TTFTLAB_REQUIRE_TTS makes
// its absence a failure).
func espeakBin(t *testing.T) string {
	t.Helper()
	bin, err := tts.Find()
	if err != nil {
		if os.Getenv("TTFTLAB_REQUIRE_TTS") != "" {
			t.Fatalf("TTFTLAB_REQUIRE_TTS is set: %v", err)
		}
		t.Skipf("espeak-ng is not installed, the synthesized caller audio is not tested: %v", err)
	}
	return bin
}

func TestSynthesize(t *testing.T) {
	bin := espeakBin(t)
	ctx := context.Background()
	c, err := Synthesize(ctx, bin, "What is the capital of France?", "")
	if err != nil {
		t.Fatal(err)
	}
	if c.Rate != 22050 || c.Text != "What is the capital of France?" || c.Source != "espeak-ng en" {
		t.Fatalf("clip at %d Hz, text %q, source %q", c.Rate, c.Text, c.Source)
	}
	// The speech starts, then ends, before the clip does (espeak-ng
	// writes silence after the last word).
	s, e := c.SpeechStartFrame(DefaultFrameMs), c.SpeechEndFrame(DefaultFrameMs)
	startMs := float64(s*c.FrameSamples(DefaultFrameMs)) * 1000 / float64(c.Rate)
	if s < 0 || !(e > s) || !(c.SpeechEndMs(DefaultFrameMs) > startMs) || !(c.SpeechEndMs(DefaultFrameMs) < c.DurationMs()) {
		t.Fatalf("speech frames %d..%d, speech end %v ms, clip %v ms", s, e, c.SpeechEndMs(DefaultFrameMs), c.DurationMs())
	}
	// The voice follows the text's script.
	zh, err := Synthesize(ctx, bin, "你好，今天怎么样？", "")
	if err != nil {
		t.Fatal(err)
	}
	if zh.Source != "espeak-ng cmn" || zh.SpeechEndFrame(DefaultFrameMs) < 0 {
		t.Fatalf("Chinese text spoken by %q, speech end frame %d", zh.Source, zh.SpeechEndFrame(DefaultFrameMs))
	}
	// A voice espeak-ng lacks, and a binary that is not there, are errors.
	if _, err := Synthesize(ctx, bin, "Hello.", "no-such-voice"); err == nil || !strings.Contains(err.Error(), "no-such-voice") {
		t.Fatalf("an unknown voice: %v", err)
	}
	if _, err := Synthesize(ctx, filepath.Join(t.TempDir(), "espeak-ng"), "Hello.", ""); err == nil {
		t.Fatal("a missing espeak-ng is no error")
	}
}

// TestIsSpeech: a sample counts as speech above 1 % of full scale
// rounded up (above 328, either sign), and PCM holds speech when one of its samples
// does.
func TestIsSpeech(t *testing.T) {
	for v, want := range map[int16]bool{0: false, 328: false, -328: false, 329: true, -329: true, 32767: true, -32768: true} {
		if IsSpeech(v) != want {
			t.Errorf("IsSpeech(%d) = %v", v, !want)
		}
	}
	quiet, loud := make([]byte, 40), make([]byte, 40)
	binary.LittleEndian.PutUint16(loud[30:], 329) // sample 15
	if PCMHasSpeech(quiet) || !PCMHasSpeech(loud) || PCMHasSpeech(loud[:30]) {
		t.Errorf("PCMHasSpeech: quiet %v, loud %v, before the loud sample %v", PCMHasSpeech(quiet), PCMHasSpeech(loud), PCMHasSpeech(loud[:30]))
	}
}
