// Package runs is the runs(n, fn) and ab(fa, fb, opts) bindings: a
// script's function called over and over, what each call returns pooled
// into figures with their 95 % intervals (internal/figures), the same
// records --runs writes; and two variants run interleaved (A B B A ...)
// and compared figure by figure.
package runs

import (
	"io"

	lua "github.com/yuin/gopher-lua"
)

// Host is what the bindings take from the Lua host.
type Host struct {
	// Stderr takes ab's progress lines (unless opts.quiet).
	Stderr io.Writer
	// Null is json_null: the mean of a run that had a failure.
	Null lua.LValue
	// CallModule calls require(module)[fn](args...) protected and returns
	// what it returned: the sentence module reads a stream's first
	// sentence, ask.flush() empties the server's cache before a run.
	CallModule func(L *lua.LState, module, fn string, args ...lua.LValue) ([]lua.LValue, error)
}
