package runtime

import (
	"fmt"
	"strconv"
	"strings"
)

// keyPath locates a value inside the table being converted, for error
// messages such as `runs[3].ttft_ms`. It is a linked list built while
// descending and only formatted when something fails.
type keyPath struct {
	parent *keyPath
	key    string // object member; used when index is 0
	index  int    // array position (1-based, as Lua users count)
}

func (p *keyPath) member(key string) *keyPath { return &keyPath{parent: p, key: key} }
func (p *keyPath) item(i int) *keyPath        { return &keyPath{parent: p, index: i} }

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
	path *keyPath
	msg  string
}

func (e *jsonError) Error() string { return e.path.String() + ": " + e.msg }

func failAt(p *keyPath, format string, args ...any) error {
	return &jsonError{path: p, msg: fmt.Sprintf(format, args...)}
}
