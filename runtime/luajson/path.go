package luajson

import (
	"fmt"
	"strconv"
	"strings"
)

// keyPath locates a value inside the table being converted, for error
// messages such as `runs[3].ttft_ms`. It is a linked list built while
// descending (see encoder.child) and only formatted when something fails.
type keyPath struct {
	parent *keyPath
	key    string // object member; used when index is 0
	index  int    // array position (1-based, as Lua users count)
}

// A path of more than pathShown steps (only values nested near the
// depth limit have one) keeps its first and last pathShown/2 steps
// around "…(N more)…", so a message stays readable.
const pathShown = 16

// String writes the path as a Lua expression would reach the value from
// the top: `.name` for members (the first without the dot), `["a b"]`
// for names that are not identifiers, `[3]` for array items (1-based),
// "(top level)" for the value itself.
func (p *keyPath) String() string {
	var parts []string
	for q := p; q != nil && q.parent != nil; q = q.parent {
		switch {
		case q.index > 0:
			parts = append(parts, "["+strconv.Itoa(q.index)+"]")
		case isIdentifier(q.key):
			parts = append(parts, "."+q.key)
		default:
			parts = append(parts, fmt.Sprintf("[%q]", q.key))
		}
	}
	if len(parts) == 0 {
		return "(top level)"
	}
	var b strings.Builder
	for i := len(parts) - 1; i >= 0; i-- {
		if n := len(parts); n > pathShown && i == n-1-pathShown/2 {
			fmt.Fprintf(&b, "…(%d more)…", n-pathShown)
			i = pathShown/2 - 1
		}
		b.WriteString(parts[i])
	}
	return strings.TrimPrefix(b.String(), ".")
}

func isIdentifier(s string) bool {
	if s == "" {
		return false
	}
	for i, c := range s {
		letter := c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// jsonError is a conversion failure at a key path.
type jsonError struct {
	path string
	msg  string
}

func (e *jsonError) Error() string { return e.path + ": " + e.msg }

// failAt formats the path at once: the encoder reuses path nodes once
// the descent has moved on.
func failAt(p *keyPath, format string, args ...any) error {
	return &jsonError{path: p.String(), msg: fmt.Sprintf(format, args...)}
}
