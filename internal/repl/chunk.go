package repl

import (
	"errors"
	"strings"

	"github.com/yuin/gopher-lua/parse"
)

// compileForm decides how a complete chunk runs: as `return <chunk>` when
// that parses (so `1+1` prints 2), else as the statements it is. The error
// is the statement form's syntax error.
func compileForm(chunk string) (string, error) {
	if parses("return " + chunk) {
		return "return " + chunk, nil
	}
	if err := parseErr(chunk); err != nil {
		return "", err
	}
	return chunk, nil
}

// incomplete reports whether chunk fails to parse only because it ends
// too early (an open function, if, table, long string or bracket), as a
// parse error at end of input shows. A chunk that parses in either form is
// complete (`x` is a whole expression though an unfinished statement);
// otherwise an error at the end in either form means more is to come: `1 +`
// as an expression, `x =` as a statement.
func incomplete(chunk string) bool {
	exprErr, stmtErr := parseErr("return "+chunk), parseErr(chunk)
	if exprErr == nil || stmtErr == nil {
		return false
	}
	return atEOF(exprErr) || atEOF(stmtErr)
}

func parses(code string) bool { return parseErr(code) == nil }

// parseErr parses code with a final newline, so that a quoted string left
// open on its line is an error on that line (as in Lua), not at the end.
func parseErr(code string) error {
	_, err := parse.Parse(strings.NewReader(code+"\n"), chunkName)
	return err
}

func atEOF(err error) bool {
	var pe *parse.Error
	return errors.As(err, &pe) && pe.Pos.Line == parse.EOF
}
