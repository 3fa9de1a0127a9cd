package runtime

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
