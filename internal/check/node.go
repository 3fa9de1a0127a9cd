package check

import (
	"fmt"
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

// parser reads typed values out of nodes and collects every problem instead
// of stopping at the first, so one run of check shows all of them.
type parser struct {
	problems []string
}

func (p *parser) bad(n node, want string) {
	name := n.path
	if name == "" {
		name = "the top level"
	}
	if !n.present {
		p.problems = append(p.problems, name+" is missing")
		return
	}
	p.problems = append(p.problems, fmt.Sprintf("%s is %s, want %s", name, describe(n.v), want))
}

func (p *parser) num(n node) float64 {
	f, ok := n.v.(float64)
	if !ok {
		p.bad(n, "a number")
	}
	return f
}

func (p *parser) str(n node) string {
	s, ok := n.v.(string)
	if !ok {
		p.bad(n, "a string")
	}
	return s
}

// arr returns the length of an array node (0 after a problem).
func (p *parser) arr(n node) int {
	a, ok := n.v.([]any)
	if !ok {
		p.bad(n, "an array")
	}
	return len(a)
}

func (p *parser) obj(n node) bool {
	_, ok := n.v.(map[string]any)
	if !ok {
		p.bad(n, "an object")
	}
	return ok
}

// optNum is num for a field that may be absent.
func (p *parser) optNum(n node) *float64 {
	if !n.present {
		return nil
	}
	f := p.num(n)
	return &f
}

// optBool reads a field that may be absent.
func (p *parser) optBool(n node) *bool {
	if !n.present {
		return nil
	}
	b, ok := n.v.(bool)
	if !ok {
		p.bad(n, "true or false")
	}
	return &b
}

// optStr reads a string field that may be absent.
func (p *parser) optStr(n node) *string {
	if !n.present {
		return nil
	}
	s := p.str(n)
	return &s
}

// strOrNull reads a field that must be present, as a string or null.
func (p *parser) strOrNull(n node) *string {
	if n.present && n.v == nil {
		return nil
	}
	s := p.str(n)
	return &s
}

func (p *parser) boolean(n node) bool {
	b, ok := n.v.(bool)
	if !ok {
		p.bad(n, "true or false")
	}
	return b
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
func num(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// excerpt quotes at most n bytes of s.
func excerpt(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:n]) + "..."
}
