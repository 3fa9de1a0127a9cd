package check

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// node is a decoded JSON value (encoding/json into any: float64, string,
// bool, nil, []any, map[string]any) together with its path in the file, so
// that problems read like "runs[2].ttft_ms is missing".
type node struct {
	v       any
	path    string
	present bool
}

func root(v any) node { return node{v: v, present: true} }

func (n node) key(k string) node {
	m, _ := n.v.(map[string]any)
	v, ok := m[k]
	p := k
	if n.path != "" {
		p = n.path + "." + k
	}
	return node{v: v, path: p, present: ok}
}

func (n node) at(i int) node {
	a, _ := n.v.([]any)
	p := fmt.Sprintf("%s[%d]", n.path, i)
	if i < 0 || i >= len(a) {
		return node{path: p}
	}
	return node{v: a[i], path: p, present: true}
}

// parser collects every problem instead of stopping at the first, so one
// run of check shows all of them.
type parser struct {
	problems []string
}

// err joins the problems into one error, or returns nil.
func (p *parser) err() error {
	const show = 6
	if len(p.problems) == 0 {
		return nil
	}
	msg := strings.Join(p.problems[:min(show, len(p.problems))], "; ")
	if len(p.problems) > show {
		msg += fmt.Sprintf("; and %d more", len(p.problems)-show)
	}
	return fmt.Errorf("%s", msg)
}

func describe(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case float64:
		return "the number " + num(x)
	case string:
		return "the string " + excerpt(x, 30)
	case bool:
		return strconv.FormatBool(x)
	case []any:
		return "an array"
	default:
		return "an object"
	}
}

// num formats a number the way JSON would show it, never in exponent form
// for ordinary millisecond values.
//
// It keeps at most 6 decimals: the artifacts carry times to the
// microsecond (3 decimals), so that loses nothing written, while a
// difference of two of them (ttft_ms - prompt_ms) prints as 1.194, not as
// float noise (1.1939999999999884).
func num(f float64) string {
	if math.Abs(f) < 1e9 {
		f = math.Round(f*1e6) / 1e6
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// exact formats f with every digit it has.
func exact(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// excerpt quotes at most n bytes of s.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:n]) + "..."
}

// decodeJSON parses one JSON value of the server's stream, saying where
// the syntax breaks.
func decodeJSON(data []byte) (node, error) {
	var v any
	if err := json.Unmarshal(data, &v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return node{}, fmt.Errorf("not valid JSON at byte %d: %w", se.Offset, err)
		}
		return node{}, fmt.Errorf("not valid JSON: %w", err)
	}
	return root(v), nil
}
