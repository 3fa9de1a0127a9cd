package gguf

import (
	"bytes"
	"math"
	"reflect"
	"strings"
	"testing"
)

func writeAll(t *testing.T, w *Writer) []byte {
	t.Helper()
	var buf bytes.Buffer
	n, err := w.WriteTo(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if n != int64(buf.Len()) || n != w.Size() {
		t.Fatalf("WriteTo returned %d, wrote %d, Size() said %d", n, buf.Len(), w.Size())
	}
	return buf.Bytes()
}

func TestRoundTripMetadataAndTensors(t *testing.T) {
	w := NewWriter()
	meta := []struct {
		key  string
		in   any
		want any
	}{
		{"a.u8", uint8(200), uint8(200)},
		{"a.i8", int8(-5), int8(-5)},
		{"a.u16", uint16(65000), uint16(65000)},
		{"a.i16", int16(-300), int16(-300)},
		{"a.u32", uint32(4_000_000_000), uint32(4_000_000_000)},
		{"a.i32", int32(-7), int32(-7)},
		{"a.f32", float32(1e6), float32(1e6)},
		{"a.bool", true, true},
		{"a.str", "héllo ▁world", "héllo ▁world"},
		{"a.u64", uint64(1) << 40, uint64(1) << 40},
		{"a.i64", int64(-1) << 40, int64(-1) << 40},
		{"a.f64", 0.1, 0.1},
		{"a.strs", []string{"<s>", "", "▁Please"}, []any{"<s>", "", "▁Please"}},
		{"a.f32s", []float32{-1, 2.5}, []any{float32(-1), float32(2.5)}},
		{"a.i32s", []int32{1, 6, 3}, []any{int32(1), int32(6), int32(3)}},
		{"a.bools", []bool{false, true}, []any{false, true}},
		{"a.empty", []uint32{}, []any{}},
	}
	for _, m := range meta {
		w.Set(m.key, m.in)
	}
	w.AddTensor("vec", F32, []uint64{3}, func(i int, dst []float32) { copy(dst, []float32{1, -2, 3.25}) })
	w.AddTensor("half", F16, []uint64{5, 2}, func(i int, dst []float32) {
		for j := range dst {
			dst[j] = float32(10*i + j)
		}
	})
	w.AddTensor("quant", Q4_0, []uint64{64, 3}, func(i int, dst []float32) {
		dst[i] = 1 // one-hot rows must survive quantisation exactly
	})
	data := writeAll(t, w)

	f, err := parseGGUF(data)
	if err != nil {
		t.Fatal(err)
	}
	if f.version != 3 {
		t.Errorf("version %d, want 3", f.version)
	}
	if f.keys[0] != "general.alignment" || f.kv["general.alignment"] != uint32(32) {
		t.Errorf("first key %q = %v, want general.alignment = 32", f.keys[0], f.kv[f.keys[0]])
	}
	for _, m := range meta {
		if got := f.kv[m.key]; !reflect.DeepEqual(got, m.want) {
			t.Errorf("%s = %#v, want %#v", m.key, got, m.want)
		}
	}
	if len(f.keys) != len(meta)+1 {
		t.Errorf("%d keys, want %d", len(f.keys), len(meta)+1)
	}

	wantShapes := []readTensor{{name: "vec", dims: []uint64{3}, typ: F32}, {name: "half", dims: []uint64{5, 2}, typ: F16},
		{name: "quant", dims: []uint64{64, 3}, typ: Q4_0}}
	if len(f.tensors) != len(wantShapes) {
		t.Fatalf("%d tensors, want %d", len(f.tensors), len(wantShapes))
	}
	for i, want := range wantShapes {
		got := f.tensors[i]
		if got.name != want.name || !reflect.DeepEqual(got.dims, want.dims) || got.typ != want.typ {
			t.Errorf("tensor %d = %s %v %v, want %s %v %v", i, got.name, got.dims, got.typ, want.name, want.dims, want.typ)
		}
		if got.offset%32 != 0 || (f.dataStart+got.offset)%32 != 0 {
			t.Errorf("tensor %s at offset %d (data at %d) is not 32-aligned", got.name, got.offset, f.dataStart)
		}
	}
	checkValues(t, f, 0, []float32{1, -2, 3.25})
	checkValues(t, f, 1, []float32{0, 1, 2, 3, 4, 10, 11, 12, 13, 14})
	quant := make([]float32, 64*3)
	for i := 0; i < 3; i++ {
		quant[i*64+i] = 1
	}
	checkValues(t, f, 2, quant)
	if len(data)%32 != 0 {
		t.Errorf("file length %d is not padded to the alignment", len(data))
	}
}

func checkValues(t *testing.T, f *readFile, i int, want []float32) {
	t.Helper()
	got, err := f.values(f.tensors[i])
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tensor %s = %v, want %v", f.tensors[i].name, got, want)
	}
}

func TestFloat16(t *testing.T) {
	cases := []struct {
		in   float32
		want uint16
	}{
		{0, 0x0000},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.5, 0x3800},
		{65504, 0x7bff},
		{65520, 0x7c00},                       // rounds up to infinity
		{1e6, 0x7c00},                         // overflow
		{0.1, 0x2e66},                         // 0.0999755859375
		{1.0 + 1.0/2048, 0x3c00},              // exactly halfway: ties to even (down)
		{1.0 + 3.0/2048, 0x3c02},              // halfway, odd below: ties to even (up)
		{float32(math.Ldexp(1, -24)), 0x0001}, // smallest subnormal
		{float32(math.Ldexp(1, -25)), 0x0000}, // halfway to it: ties to even (zero)
		{float32(math.Ldexp(1.5, -25)), 0x0001},
		{float32(math.Ldexp(1, -14)), 0x0400}, // smallest normal
		{float32(math.Inf(-1)), 0xfc00},
	}
	for _, c := range cases {
		if got := float16Bits(c.in); got != c.want {
			t.Errorf("float16Bits(%g) = %#04x, want %#04x", c.in, got, c.want)
		}
	}
	if got := float16Bits(float32(math.NaN())); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Errorf("NaN encoded as %#04x", got)
	}
	// Every finite half value must survive a trip through float32.
	for h := 0; h < 1<<16; h++ {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue
		}
		if got := float16Bits(halfToFloat(uint16(h))); got != uint16(h) {
			t.Fatalf("half %#04x -> %g -> %#04x", h, halfToFloat(uint16(h)), got)
		}
	}
}

func TestQ4Block(t *testing.T) {
	x := make([]float32, 32)
	for i := range x {
		x[i] = float32(i-12) * 0.37
	}
	block := appendQ4Block(nil, x)
	if len(block) != 18 {
		t.Fatalf("block is %d bytes, want 18", len(block))
	}
	// The largest magnitude is x[31] = 19*0.37 (positive), so d = -19*0.37/8.
	d := halfToFloat(uint16(block[0]) | uint16(block[1])<<8)
	if want := float32(-19 * 0.37 / 8); math.Abs(float64(d-want)) > 1e-3 {
		t.Errorf("scale %g, want %g", d, want)
	}
	if block[2+15]>>4 != 0 {
		t.Errorf("the extreme value must be stored as code 0, got %d", block[2+15]>>4)
	}
	for j := 0; j < 32; j++ {
		code := block[2+j%16] & 0x0f
		if j >= 16 {
			code = block[2+j%16] >> 4
		}
		got := float32(int(code)-8) * d
		if err := math.Abs(float64(got - x[j])); err > math.Abs(float64(d))/2+1e-3 {
			t.Errorf("x[%d] = %g decodes to %g (error %g > d/2 = %g)", j, x[j], got, err, math.Abs(float64(d))/2)
		}
	}
	zero := appendQ4Block(nil, make([]float32, 32))
	for i, b := range zero {
		if want := byte(0x88); i >= 2 && b != want {
			t.Fatalf("all-zero block byte %d = %#x, want %#x", i, b, want)
		}
	}
}

func TestWriterRefusesMistakes(t *testing.T) {
	cases := []struct {
		name  string
		build func(w *Writer)
		want  string
	}{
		{"plain int", func(w *Writer) { w.Set("x", 3) }, `metadata key "x": unsupported value type int`},
		{"key twice", func(w *Writer) { w.Set("x", uint32(1)); w.Set("x", uint32(2)) }, `metadata key "x" set twice`},
		{"tensor twice", func(w *Writer) {
			w.AddTensor("t", F32, []uint64{2}, func(int, []float32) {})
			w.AddTensor("t", F32, []uint64{2}, func(int, []float32) {})
		}, `tensor "t" added twice`},
		{"q4_0 row", func(w *Writer) { w.AddTensor("t", Q4_0, []uint64{40, 2}, func(int, []float32) {}) }, "multiple of 32 values, got 40"},
		{"zero dim", func(w *Writer) { w.AddTensor("t", F32, []uint64{4, 0}, func(int, []float32) {}) }, "a dimension is zero"},
	}
	for _, c := range cases {
		w := NewWriter()
		c.build(w)
		_, err := w.WriteTo(&bytes.Buffer{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want it to contain %q", c.name, err, c.want)
		}
	}
}

func TestParseTensorType(t *testing.T) {
	for _, s := range []string{"f32", "f16", "q4_0"} {
		typ, err := ParseTensorType(s)
		if err != nil || typ.String() != s {
			t.Errorf("ParseTensorType(%q) = %v, %v", s, typ, err)
		}
	}
	if _, err := ParseTensorType("q8_0"); err == nil || !strings.Contains(err.Error(), "f32, f16 or q4_0") {
		t.Errorf("q8_0: %v", err)
	}
}
