package runtime

import (
	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/sentence"
)

// The sentence rules for scripts: the Go copy (internal/sentence), which
// the stdlib module sentence binds (sentence.first, first_clause, chars).

// sentenceEnd is sentence_end(text, final) -> end_index | nil: the byte
// length of text's first sentence (sentence.First), nil while undecided.
func sentenceEnd(L *lua.LState) int {
	end, ok := sentence.First(L.CheckString(1), L.ToBool(2))
	return pushEnd(L, end, ok)
}

// clauseEnd is clause_end(text, final, [min_chars]) -> end_index | nil:
// sentence.FirstClause, min_chars defaulting to sentence.MinClauseChars.
func clauseEnd(L *lua.LState) int {
	text, final := L.CheckString(1), L.ToBool(2)
	min := sentence.MinClauseChars
	if L.Get(3) != lua.LNil {
		n, ok := L.Get(3).(lua.LNumber)
		if !ok || n < 0 || n != lua.LNumber(int(n)) {
			L.ArgError(3, "min_chars must be a whole number >= 0, got "+L.Get(3).String())
		}
		min = int(n)
	}
	end, ok := sentence.FirstClause(text, final, min)
	return pushEnd(L, end, ok)
}

func pushEnd(L *lua.LState, end int, ok bool) int {
	if !ok {
		L.Push(lua.LNil)
		return 1
	}
	L.Push(lua.LNumber(end))
	return 1
}

// charCount is char_count(text) -> n: text's UTF-8 characters as
// sentence.Chars counts them.
func charCount(L *lua.LState) int {
	L.Push(lua.LNumber(sentence.Chars(L.CheckString(1))))
	return 1
}
