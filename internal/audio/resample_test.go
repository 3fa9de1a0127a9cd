package audio

import (
	"encoding/binary"
	"math"
	"testing"
)

func TestResamplerKeepsDuration(t *testing.T) {
	var in []byte
	for i := 0; i < 22050; i++ {
		in = binary.LittleEndian.AppendUint16(in, uint16(int16(i%20000-10000)))
	}
	var out []byte
	r := NewResampler(22050, 24000)
	// Reads of odd sizes: half frames carried over.
	for len(in) > 0 {
		n := min(777, len(in))
		out = r.Push(out, in[:n])
		in = in[n:]
	}
	frames := len(out) / 2
	if frames < 23998 || frames > 24000 {
		t.Fatalf("one second at 22.05 kHz became %d frames, want 24000 (less the interpolation's last step)", frames)
	}
	// A ramp stays a ramp: frame k is near input k*22050/24000.
	for _, k := range []int{100, 5000, 12345} {
		got := int16(binary.LittleEndian.Uint16(out[2*k:]))
		want := float64(k)*22050/24000 - 10000
		if math.Abs(float64(got)-want) > 1.01 {
			t.Fatalf("frame %d = %d, want %.1f", k, got, want)
		}
	}
}
