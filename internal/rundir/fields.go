package rundir

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Field is one value of a JSON file, named by its path ("model.name",
// "levels[0].summary.ttft_ms.p95"). Value is a float64, string, bool or
// nil; an array of plain values is one Field holding them joined by
// spaces, so a server's argument list reads as a command line.
type Field struct {
	Path  string
	Value any
}

// Number is the field's value when it is a number.
func (f Field) Number() (float64, bool) {
	v, ok := f.Value.(float64)
	return v, ok
}

// Flatten lists every value of a JSON document in the order of the file,
// so a page can show fields it does not know yet.
func Flatten(data []byte) ([]Field, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []Field
	if err := flattenValue(dec, "", &out); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err == nil {
		return nil, fmt.Errorf("more than one JSON value")
	}
	return out, nil
}

func flattenValue(dec *json.Decoder, path string, out *[]Field) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			return flattenObject(dec, path, out)
		}
		return flattenArray(dec, path, out)
	case json.Number:
		f, err := strconv.ParseFloat(string(t), 64)
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		*out = append(*out, Field{path, f})
	default:
		*out = append(*out, Field{path, t})
	}
	return nil
}

func flattenObject(dec *json.Decoder, path string, out *[]Field) error {
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string)
		if path != "" {
			key = path + "." + key
		}
		if err := flattenValue(dec, key, out); err != nil {
			return err
		}
	}
	_, err := dec.Token() // '}'
	return err
}

// flattenArray joins an array of plain values into one field and gives
// the members of any other array their index.
func flattenArray(dec *json.Decoder, path string, out *[]Field) error {
	var items []Field
	for i := 0; dec.More(); i++ {
		if err := flattenValue(dec, fmt.Sprintf("%s[%d]", path, i), &items); err != nil {
			return err
		}
	}
	if _, err := dec.Token(); err != nil { // ']'
		return err
	}
	plain := make([]string, 0, len(items))
	for i, it := range items {
		if it.Path != fmt.Sprintf("%s[%d]", path, i) {
			*out = append(*out, items...)
			return nil
		}
		plain = append(plain, fmt.Sprint(it.Value))
	}
	*out = append(*out, Field{path, strings.Join(plain, " ")})
	return nil
}
