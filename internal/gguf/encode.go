package gguf

import (
	"encoding/binary"
	"math"
)

// appendRow encodes one row of values as t and appends it to dst. The row
// length has already been checked against t's block size.
func appendRow(dst []byte, t TensorType, row []float32) []byte {
	switch t {
	case F32:
		for _, v := range row {
			dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(v))
		}
	case F16:
		for _, v := range row {
			dst = binary.LittleEndian.AppendUint16(dst, float16Bits(v))
		}
	case Q4_0:
		for i := 0; i < len(row); i += q4BlockLen {
			dst = appendQ4Block(dst, row[i:i+q4BlockLen])
		}
	}
	return dst
}

// appendQ4Block encodes 32 values the way ggml's reference quantizer does:
// the value of largest magnitude (with its sign) maps to -8, the scale is
// d = max / -8, and each value is stored as round(x/d) + 8 in four bits
// (0..15), so it decodes as (q - 8) * d. Values 0..15 of the block go into
// the low nibbles of the 16 bytes, values 16..31 into the high nibbles.
// Zero, and a block's extreme value, decode exactly.
func appendQ4Block(dst []byte, x []float32) []byte {
	var amax, peak float32
	for _, v := range x {
		if a := float32(math.Abs(float64(v))); a > amax {
			amax, peak = a, v
		}
	}
	d := peak / -8
	var id float32
	if d != 0 {
		id = 1 / d
	}
	dst = binary.LittleEndian.AppendUint16(dst, float16Bits(d))
	const half = q4BlockLen / 2
	for j := 0; j < half; j++ {
		lo := nibble(x[j] * id)
		hi := nibble(x[half+j] * id)
		dst = append(dst, lo|hi<<4)
	}
	return dst
}

// nibble rounds a scaled value in [-8, 8] to its stored 4-bit code. Like
// ggml it truncates v+8.5 (never negative here), which rounds half up.
func nibble(v float32) byte {
	q := int(v + 8.5)
	return byte(min(max(q, 0), 15))
}

// float16Bits converts to IEEE 754 half precision, rounding to nearest even;
// too large values become infinity, too small ones zero or subnormal.
func float16Bits(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int(b>>23) & 0xff
	mant := b & 0x7fffff
	switch {
	case exp == 0xff && mant != 0:
		return sign | 0x7e00 // NaN
	case exp == 0xff:
		return sign | 0x7c00 // infinity
	}
	e := exp - 127 + 15
	if e >= 0x1f {
		return sign | 0x7c00
	}
	if e <= 0 {
		return sign | subnormal16(mant|0x800000, uint(126-exp))
	}
	h := sign | uint16(e)<<10 | uint16(mant>>13)
	if roundUp(mant, 13, uint32(h)) {
		h++ // a carry into the exponent is the correct result
	}
	return h
}

// subnormal16 shifts a 24-bit significand right by shift (at least 14),
// rounding to nearest even; the result is a half subnormal (or the smallest
// normal after rounding up).
func subnormal16(m uint32, shift uint) uint16 {
	if shift > 24 {
		return 0
	}
	h := m >> shift
	if roundUp(m, shift, h) {
		h++
	}
	return uint16(h)
}

// roundUp reports whether dropping the low `bits` bits of m should round the
// kept part (whose lowest bit is kept&1) up, to nearest even.
func roundUp(m uint32, bits uint, kept uint32) bool {
	rem := m & (1<<bits - 1)
	half := uint32(1) << (bits - 1)
	return rem > half || (rem == half && kept&1 == 1)
}
