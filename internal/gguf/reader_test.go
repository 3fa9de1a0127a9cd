package gguf

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// A small GGUF reader for the tests, written from the format description
// rather than from the writer, so the two cannot share a mistake silently.

type readTensor struct {
	name   string
	dims   []uint64
	typ    TensorType
	offset uint64
}

type readFile struct {
	version   uint32
	kv        map[string]any
	keys      []string // in file order
	tensors   []readTensor
	dataStart uint64
	raw       []byte
}

type reader struct {
	r   *bytes.Reader
	err error
}

func (r *reader) read(v any) {
	if r.err == nil {
		r.err = binary.Read(r.r, binary.LittleEndian, v)
	}
}

func (r *reader) u32() (v uint32) { r.read(&v); return }
func (r *reader) u64() (v uint64) { r.read(&v); return }

func (r *reader) str() string {
	n := r.u64()
	if r.err != nil || n > uint64(r.r.Len()) {
		r.err = fmt.Errorf("bad string length %d", n)
		return ""
	}
	b := make([]byte, n)
	_, r.err = io.ReadFull(r.r, b)
	return string(b)
}

func (r *reader) scalar(t uint32) any {
	switch t {
	case 0:
		var v uint8
		r.read(&v)
		return v
	case 1:
		var v int8
		r.read(&v)
		return v
	case 2:
		var v uint16
		r.read(&v)
		return v
	case 3:
		var v int16
		r.read(&v)
		return v
	case 4:
		return r.u32()
	case 5:
		var v int32
		r.read(&v)
		return v
	case 6:
		var v float32
		r.read(&v)
		return v
	case 7:
		var v uint8
		r.read(&v)
		if v > 1 {
			r.err = fmt.Errorf("bool byte %d", v)
		}
		return v == 1
	case 8:
		return r.str()
	case 10:
		return r.u64()
	case 11:
		var v int64
		r.read(&v)
		return v
	case 12:
		var v float64
		r.read(&v)
		return v
	}
	r.err = fmt.Errorf("unknown value type %d", t)
	return nil
}

// value reads a typed value; arrays come back as []any.
func (r *reader) value() any {
	t := r.u32()
	if t != 9 {
		return r.scalar(t)
	}
	elem, n := r.u32(), r.u64()
	if n > uint64(r.r.Len()) {
		r.err = fmt.Errorf("bad array length %d", n)
		return nil
	}
	out := make([]any, 0, n)
	for i := uint64(0); i < n && r.err == nil; i++ {
		out = append(out, r.scalar(elem))
	}
	return out
}

func parseGGUF(data []byte) (*readFile, error) {
	r := &reader{r: bytes.NewReader(data)}
	magic := make([]byte, 4)
	r.read(magic)
	if string(magic) != "GGUF" {
		return nil, fmt.Errorf("magic %q", magic)
	}
	f := &readFile{version: r.u32(), kv: map[string]any{}, raw: data}
	nt, nkv := r.u64(), r.u64()
	for i := uint64(0); i < nkv && r.err == nil; i++ {
		k := r.str()
		f.keys = append(f.keys, k)
		f.kv[k] = r.value()
	}
	for i := uint64(0); i < nt && r.err == nil; i++ {
		t := readTensor{name: r.str()}
		nd := r.u32()
		for j := uint32(0); j < nd; j++ {
			t.dims = append(t.dims, r.u64())
		}
		t.typ = TensorType(r.u32())
		t.offset = r.u64()
		f.tensors = append(f.tensors, t)
	}
	if r.err != nil {
		return nil, r.err
	}
	alignment := uint64(32)
	if a, ok := f.kv["general.alignment"].(uint32); ok {
		alignment = uint64(a)
	}
	pos := uint64(len(data) - r.r.Len())
	f.dataStart = (pos + alignment - 1) / alignment * alignment
	return f, nil
}

// values decodes every value of tensor t.
func (f *readFile) values(t readTensor) ([]float32, error) {
	n := uint64(1)
	for _, d := range t.dims {
		n *= d
	}
	start := f.dataStart + t.offset
	var out []float32
	switch t.typ {
	case F32:
		for i := uint64(0); i < n; i++ {
			out = append(out, math.Float32frombits(binary.LittleEndian.Uint32(f.raw[start+4*i:])))
		}
	case F16:
		for i := uint64(0); i < n; i++ {
			out = append(out, halfToFloat(binary.LittleEndian.Uint16(f.raw[start+2*i:])))
		}
	case Q4_0:
		for b := uint64(0); b < n/32; b++ {
			block := f.raw[start+18*b : start+18*b+18]
			d := halfToFloat(binary.LittleEndian.Uint16(block))
			vals := make([]float32, 32)
			for j := 0; j < 16; j++ {
				vals[j] = float32(int(block[2+j]&0x0f)-8) * d
				vals[j+16] = float32(int(block[2+j]>>4)-8) * d
			}
			out = append(out, vals...)
		}
	default:
		return nil, fmt.Errorf("type %v", t.typ)
	}
	return out, nil
}

// halfToFloat decodes IEEE half precision bits.
func halfToFloat(h uint16) float32 {
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	exp := int(h>>10) & 0x1f
	mant := float64(h & 0x3ff)
	switch exp {
	case 0:
		return sign * float32(math.Ldexp(mant, -24))
	case 0x1f:
		if mant != 0 {
			return float32(math.NaN())
		}
		return sign * float32(math.Inf(1))
	}
	return sign * float32(math.Ldexp(1+mant/1024, exp-15))
}
