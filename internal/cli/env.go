package cli

import (
	"os"

	"ttftlab/internal/repl"
)

// env is what every command shares: the streams, the name of the running
// command (for messages) and the process's signal handling.
type env struct {
	Stdio
	cmd     string
	signals *signals
}

func newEnv(stdio Stdio) *env {
	s := watchSignals(&stdio)
	return &env{Stdio: stdio, signals: s}
}

// stdinIsTerminal decides what plain 'ttftlab' does: a prompt for a person
// at a terminal, the usage text otherwise.
func stdinIsTerminal(s Stdio) bool {
	f, ok := s.In.(*os.File)
	return ok && repl.IsTerminal(f)
}
