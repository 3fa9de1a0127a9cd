package trace

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// value is a field of a line: a JSON string or number, or a CSV cell
// (kind "cell", whose text is read as the field wants), or another JSON
// kind, named as a message says it ("an array": its text is the JSON).
type value struct{ kind, text string }

// record is one line's fields (a null or an empty cell is absent).
type record struct {
	path string
	line int
	vals map[string]value
}

func (r record) err(field, format string, args ...any) error {
	return &LineError{Path: r.path, Line: r.line, Field: field, Msg: fmt.Sprintf(format, args...)}
}

// jsonObject reads a line that must be one JSON object.
func jsonObject(line []byte, path string, n int) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	err := json.Unmarshal(line, &m)
	if err == nil && m != nil {
		return m, nil
	}
	if json.Valid(line) {
		return nil, &LineError{Path: path, Line: n, Msg: "not a JSON object: each line is one object, {...}"}
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return nil, &LineError{Path: path, Line: n, Msg: fmt.Sprintf("not JSON: %v (at byte %d)", se, se.Offset)}
	}
	return nil, &LineError{Path: path, Line: n, Msg: fmt.Sprintf("not JSON: %v", err)}
}

// jsonRecord reads a JSON line into its fields.
func jsonRecord(line []byte, path string, n int) (record, error) {
	m, err := jsonObject(line, path, n)
	if err != nil {
		return record{}, err
	}
	r := record{path: path, line: n, vals: map[string]value{}}
	for k, raw := range m {
		if v, ok := jsonValue(raw); ok {
			r.vals[k] = v
		}
	}
	return r, nil
}

// jsonValue is a JSON value as a field; null is absent (false).
func jsonValue(raw json.RawMessage) (value, bool) {
	text := strings.TrimSpace(string(raw))
	switch text[0] {
	case '"':
		var s string
		_ = json.Unmarshal(raw, &s) // valid: the line was read as JSON
		return value{"string", s}, true
	case '{':
		return value{"an object", text}, true
	case '[':
		return value{"an array", text}, true
	case 't', 'f':
		return value{"true or false", text}, true
	case 'n':
		return value{}, false
	}
	return value{"number", text}, true
}

// unknown is the first field (by name) not among known, "" when none.
func (r record) unknown(known []string) string {
	var bad []string
	for k := range r.vals {
		if !slices.Contains(known, k) {
			bad = append(bad, k)
		}
	}
	slices.Sort(bad)
	if len(bad) == 0 {
		return ""
	}
	return bad[0]
}

// num is a number field; ok false when absent.
func (r record) num(field string) (f float64, ok bool, err error) {
	v, ok := r.vals[field]
	if !ok {
		return 0, false, nil
	}
	switch v.kind {
	case "number", "cell":
		f, err := strconv.ParseFloat(strings.TrimSpace(v.text), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			if v.kind == "cell" && !errors.Is(err, strconv.ErrRange) {
				return 0, false, r.err(field, "want a number, got %q", v.text)
			}
			return 0, false, r.err(field, "%s is out of range", v.text)
		}
		return f, true, nil
	}
	return 0, false, r.err(field, "want a number, got %s", kindName(v.kind))
}

func kindName(kind string) string {
	if kind == "string" {
		return "a string"
	}
	return kind
}

// ms is a time in ms, 0 or more; missing says why a required one is.
func (r record) ms(field string, missing string) (float64, bool, error) {
	f, ok, err := r.num(field)
	switch {
	case err != nil:
		return 0, false, err
	case !ok && missing != "":
		return 0, false, r.err(field, "%s", missing)
	case ok && f < 0:
		return 0, false, r.err(field, "%s is negative: want ms, 0 or more", fmtMs(f))
	}
	return f, ok, nil
}

// tokens is a count of tokens, a whole number 1 or more; missing says
// why a required one is.
func (r record) tokens(field string, missing string) (int, bool, error) {
	f, ok, err := r.num(field)
	switch {
	case err != nil:
		return 0, false, err
	case !ok:
		if missing != "" {
			return 0, false, r.err(field, "%s", missing)
		}
		return 0, false, nil
	case f != math.Trunc(f):
		return 0, false, r.err(field, "%s is not a whole number of tokens", fmtMs(f))
	case f < 1:
		return 0, false, r.err(field, "%s: want 1 token or more", fmtMs(f))
	case f > math.MaxInt32:
		return 0, false, r.err(field, "%s tokens is out of range", fmtMs(f))
	}
	return int(f), true, nil
}

// str is a string field; ok false when absent.
func (r record) str(field string) (string, bool, error) {
	v, ok := r.vals[field]
	if !ok {
		return "", false, nil
	}
	if v.kind != "string" && v.kind != "cell" {
		return "", false, r.err(field, "want a string, got %s", kindName(v.kind))
	}
	return v.text, true, nil
}

// hashIDs is a Mooncake line's hash_ids: an array of whole numbers, 0 or
// more.
func (r record) hashIDs(field string) ([]int64, error) {
	v, ok := r.vals[field]
	if !ok {
		return nil, r.err(field, "missing (every line of a Mooncake trace has it; [] for a prompt shared with none)")
	}
	if v.kind != "an array" {
		return nil, r.err(field, "want an array of whole numbers, got %s", kindName(v.kind))
	}
	var items []json.RawMessage
	_ = json.Unmarshal([]byte(v.text), &items) // valid: the line was read as JSON
	ids := make([]int64, len(items))
	for i, raw := range items {
		text := strings.TrimSpace(string(raw))
		id, err := strconv.ParseInt(text, 10, 64)
		if err != nil {
			f, ferr := strconv.ParseFloat(text, 64)
			if ferr != nil || f != math.Trunc(f) || math.Abs(f) >= 1<<63 {
				return nil, r.err(field, "item %d: want a whole number, got %s", i+1, text)
			}
			id = int64(f)
		}
		if id < 0 {
			return nil, r.err(field, "item %d: %d is negative: want 0 or more", i+1, id)
		}
		ids[i] = id
	}
	return ids, nil
}

func fmtMs(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }
