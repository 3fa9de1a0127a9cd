package gguf

import (
	"fmt"
	"math"
)

// typeOf maps a Go value to its metadata type; for a slice, elem is the
// element type.
func typeOf(v any) (t, elem valueType, err error) {
	switch v.(type) {
	case uint8:
		return vtUint8, 0, nil
	case int8:
		return vtInt8, 0, nil
	case uint16:
		return vtUint16, 0, nil
	case int16:
		return vtInt16, 0, nil
	case uint32:
		return vtUint32, 0, nil
	case int32:
		return vtInt32, 0, nil
	case float32:
		return vtFloat32, 0, nil
	case bool:
		return vtBool, 0, nil
	case string:
		return vtString, 0, nil
	case uint64:
		return vtUint64, 0, nil
	case int64:
		return vtInt64, 0, nil
	case float64:
		return vtFloat64, 0, nil
	case []uint8:
		return vtArray, vtUint8, nil
	case []int8:
		return vtArray, vtInt8, nil
	case []uint16:
		return vtArray, vtUint16, nil
	case []int16:
		return vtArray, vtInt16, nil
	case []uint32:
		return vtArray, vtUint32, nil
	case []int32:
		return vtArray, vtInt32, nil
	case []float32:
		return vtArray, vtFloat32, nil
	case []bool:
		return vtArray, vtBool, nil
	case []string:
		return vtArray, vtString, nil
	case []uint64:
		return vtArray, vtUint64, nil
	case []int64:
		return vtArray, vtInt64, nil
	case []float64:
		return vtArray, vtFloat64, nil
	}
	return 0, 0, fmt.Errorf("unsupported value type %T (use a sized integer, float32/64, bool, string or a slice of one)", v)
}

// writeValue writes a value's type tag and the value.
func writeValue(c *countingWriter, v any) {
	t, elem, _ := typeOf(v) // checked by Set
	c.u32(uint32(t))
	if t != vtArray {
		writeScalar(c, v)
		return
	}
	c.u32(uint32(elem))
	switch a := v.(type) {
	case []uint8:
		writeArray(c, a)
	case []int8:
		writeArray(c, a)
	case []uint16:
		writeArray(c, a)
	case []int16:
		writeArray(c, a)
	case []uint32:
		writeArray(c, a)
	case []int32:
		writeArray(c, a)
	case []float32:
		writeArray(c, a)
	case []bool:
		writeArray(c, a)
	case []string:
		writeArray(c, a)
	case []uint64:
		writeArray(c, a)
	case []int64:
		writeArray(c, a)
	case []float64:
		writeArray(c, a)
	}
}

func writeArray[T any](c *countingWriter, a []T) {
	c.u64(uint64(len(a)))
	for _, v := range a {
		writeScalar(c, v)
	}
}

// writeScalar writes one value without its type tag.
func writeScalar(c *countingWriter, v any) {
	switch x := v.(type) {
	case uint8:
		c.raw([]byte{x})
	case int8:
		c.raw([]byte{byte(x)})
	case uint16:
		c.raw([]byte{byte(x), byte(x >> 8)})
	case int16:
		c.raw([]byte{byte(x), byte(uint16(x) >> 8)})
	case uint32:
		c.u32(x)
	case int32:
		c.u32(uint32(x))
	case float32:
		c.u32(math.Float32bits(x))
	case bool:
		if x {
			c.raw([]byte{1})
		} else {
			c.raw([]byte{0})
		}
	case string:
		c.str(x)
	case uint64:
		c.u64(x)
	case int64:
		c.u64(uint64(x))
	case float64:
		c.f64(x)
	}
}
