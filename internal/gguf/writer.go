package gguf

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math"
)

// Alignment is where every tensor's data starts (a multiple of it, counted
// from the start of the data section), recorded as general.alignment.
const Alignment = 32

// RowFunc fills dst (one row: the tensor's innermost dimension) with the
// values of row i. dst arrives zeroed, so a sparse row sets only what is
// not zero. Rows are requested in order, once per WriteTo.
type RowFunc func(i int, dst []float32)

type tensor struct {
	name   string
	typ    TensorType
	dims   []uint64 // innermost first, as ggml's ne
	rows   RowFunc
	nrows  int
	offset uint64 // from the start of the data section
	size   uint64
}

type kv struct {
	key   string
	value any
}

// Writer collects metadata and tensors and then writes the file in one
// pass. Mistakes (an unsupported value type, a duplicate name, a row length
// the type cannot encode) are remembered and returned by WriteTo, so a
// model is described without an error check per line.
type Writer struct {
	kvs     []kv
	keys    map[string]bool
	tensors []*tensor
	names   map[string]bool
	dataLen uint64
	err     error
}

// NewWriter returns an empty writer whose first metadata entry is
// general.alignment.
func NewWriter() *Writer {
	w := &Writer{keys: map[string]bool{}, names: map[string]bool{}}
	w.Set("general.alignment", uint32(Alignment))
	return w
}

func (w *Writer) fail(format string, args ...any) {
	if w.err == nil {
		w.err = fmt.Errorf("gguf: "+format, args...)
	}
}

// Set adds a metadata entry. value is one of bool, string, the sized
// integer types (uint8 ... int64), float32, float64, or a slice of one of
// them. Plain int is refused: the file needs an explicit width.
func (w *Writer) Set(key string, value any) {
	if w.keys[key] {
		w.fail("metadata key %q set twice", key)
		return
	}
	if _, _, err := typeOf(value); err != nil {
		w.fail("metadata key %q: %v", key, err)
		return
	}
	w.keys[key] = true
	w.kvs = append(w.kvs, kv{key, value})
}

// AddTensor declares a tensor. dims are innermost first (ggml's ne: a matrix
// of R rows of C values is {C, R}); rows produces its values row by row.
func (w *Writer) AddTensor(name string, typ TensorType, dims []uint64, rows RowFunc) {
	if w.names[name] {
		w.fail("tensor %q added twice", name)
		return
	}
	if len(dims) == 0 || len(dims) > 4 {
		w.fail("tensor %q: %d dimensions, want 1 to 4", name, len(dims))
		return
	}
	n := uint64(1)
	for _, d := range dims {
		if d == 0 {
			w.fail("tensor %q: a dimension is zero in %v", name, dims)
			return
		}
		n *= d
	}
	rowBytes, err := typ.RowBytes(int(dims[0]))
	if err != nil {
		w.fail("tensor %q %v: %v", name, dims, err)
		return
	}
	w.names[name] = true
	t := &tensor{name: name, typ: typ, dims: append([]uint64(nil), dims...), rows: rows,
		nrows: int(n / dims[0]), offset: w.dataLen, size: uint64(rowBytes) * (n / dims[0])}
	w.tensors = append(w.tensors, t)
	w.dataLen = align(t.offset + t.size)
}

func align(n uint64) uint64 {
	return (n + Alignment - 1) / Alignment * Alignment
}

// Size is the length of the file WriteTo will write.
func (w *Writer) Size() int64 {
	return int64(align(uint64(w.headerLen())) + w.dataLen)
}

// WriteTo writes the whole file to out.
func (w *Writer) WriteTo(out io.Writer) (int64, error) {
	if w.err != nil {
		return 0, w.err
	}
	bw := bufio.NewWriterSize(out, 1<<20)
	cw := &countingWriter{w: bw}
	w.writeHeader(cw)
	cw.pad(align(cw.n))
	dataStart := cw.n
	for _, t := range w.tensors {
		cw.pad(dataStart + t.offset)
		w.writeData(cw, t)
	}
	cw.pad(dataStart + w.dataLen)
	if cw.err == nil {
		cw.err = bw.Flush()
	}
	if cw.err != nil {
		return int64(cw.n), fmt.Errorf("gguf: writing: %w", cw.err)
	}
	return int64(cw.n), nil
}

func (w *Writer) writeHeader(cw *countingWriter) {
	cw.raw([]byte("GGUF"))
	cw.u32(3)
	cw.u64(uint64(len(w.tensors)))
	cw.u64(uint64(len(w.kvs)))
	for _, e := range w.kvs {
		cw.str(e.key)
		writeValue(cw, e.value)
	}
	for _, t := range w.tensors {
		cw.str(t.name)
		cw.u32(uint32(len(t.dims)))
		for _, d := range t.dims {
			cw.u64(d)
		}
		cw.u32(uint32(t.typ))
		cw.u64(t.offset)
	}
}

// headerLen measures the header by writing it nowhere.
func (w *Writer) headerLen() uint64 {
	cw := &countingWriter{w: io.Discard}
	w.writeHeader(cw)
	return cw.n
}

func (w *Writer) writeData(cw *countingWriter, t *tensor) {
	row := make([]float32, t.dims[0])
	buf := make([]byte, 0, 4*len(row))
	for i := 0; i < t.nrows && cw.err == nil; i++ {
		clear(row)
		t.rows(i, row)
		buf = appendRow(buf[:0], t.typ, row)
		cw.raw(buf)
	}
}

// countingWriter writes little-endian values, counts bytes and keeps the
// first error.
type countingWriter struct {
	w   io.Writer
	n   uint64
	err error
}

func (c *countingWriter) raw(p []byte) {
	if c.err != nil {
		return
	}
	n, err := c.w.Write(p)
	c.n += uint64(n)
	c.err = err
}

func (c *countingWriter) pad(to uint64) {
	if to > c.n {
		c.raw(make([]byte, to-c.n))
	}
}

func (c *countingWriter) u32(v uint32) { c.raw(binary.LittleEndian.AppendUint32(nil, v)) }
func (c *countingWriter) u64(v uint64) { c.raw(binary.LittleEndian.AppendUint64(nil, v)) }

func (c *countingWriter) str(s string) {
	c.u64(uint64(len(s)))
	c.raw([]byte(s))
}

func (c *countingWriter) f64(v float64) { c.u64(math.Float64bits(v)) }
