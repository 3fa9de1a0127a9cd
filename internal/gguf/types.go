package gguf

import "fmt"

// TensorType is a ggml tensor element type, as stored in the file.
type TensorType uint32

// The tensor types this package can encode (ggml's numbering).
const (
	F32  TensorType = 0
	F16  TensorType = 1
	Q4_0 TensorType = 2
)

// q4BlockLen is the number of values in one Q4_0 block: a float16 scale and
// 16 bytes holding 32 four-bit values.
const q4BlockLen = 32

func (t TensorType) String() string {
	switch t {
	case F32:
		return "f32"
	case F16:
		return "f16"
	case Q4_0:
		return "q4_0"
	}
	return fmt.Sprintf("type%d", uint32(t))
}

// ParseTensorType turns "f32", "f16" or "q4_0" into a TensorType.
func ParseTensorType(s string) (TensorType, error) {
	for _, t := range []TensorType{F32, F16, Q4_0} {
		if t.String() == s {
			return t, nil
		}
	}
	return 0, fmt.Errorf("unknown tensor type %q (want f32, f16 or q4_0)", s)
}

// blockLen is how many values one block of t holds; a row must be a whole
// number of blocks.
func (t TensorType) blockLen() int {
	if t == Q4_0 {
		return q4BlockLen
	}
	return 1
}

// RowBytes is the encoded size of a row of n values.
func (t TensorType) RowBytes(n int) (int, error) {
	switch t {
	case F32:
		return 4 * n, nil
	case F16:
		return 2 * n, nil
	case Q4_0:
		if n%q4BlockLen != 0 {
			return 0, fmt.Errorf("a q4_0 row needs a multiple of %d values, got %d", q4BlockLen, n)
		}
		return n / q4BlockLen * (2 + q4BlockLen/2), nil
	}
	return 0, fmt.Errorf("tensor type %v cannot be encoded", t)
}

// valueType is a metadata value type, as stored in the file.
type valueType uint32

const (
	vtUint8   valueType = 0
	vtInt8    valueType = 1
	vtUint16  valueType = 2
	vtInt16   valueType = 3
	vtUint32  valueType = 4
	vtInt32   valueType = 5
	vtFloat32 valueType = 6
	vtBool    valueType = 7
	vtString  valueType = 8
	vtArray   valueType = 9
	vtUint64  valueType = 10
	vtInt64   valueType = 11
	vtFloat64 valueType = 12
)
