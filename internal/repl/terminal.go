package repl

import (
	"errors"
	"strings"
	"sync"

	"github.com/peterh/liner"
)

// terminal reads lines with liner: editing, history, completion. liner
// puts the terminal in raw mode; Close puts it back.
type terminal struct {
	line *liner.State
	hist *history
	s    *session
	once sync.Once
}

func newTerminal(s *session) (*terminal, error) {
	t := &terminal{line: liner.NewLiner(), s: s}
	t.line.SetCtrlCAborts(true)
	t.line.SetTabCompletionStyle(liner.TabPrints)
	t.line.SetWordCompleter(s.complete)
	if s.cfg.HistoryFile != "" {
		h, entries, err := loadHistory(s.cfg.HistoryFile)
		if err != nil {
			s.errorf("history: %v (this session's lines are not kept)", err)
		} else {
			t.hist = h
		}
		if _, err := t.line.ReadHistory(strings.NewReader(strings.Join(entries, "\n"))); err != nil {
			s.errorf("history %s: %v", s.cfg.HistoryFile, err)
		}
	}
	return t, nil
}

func (t *terminal) readLine(p string) (string, error) {
	line, err := t.line.Prompt(p)
	if errors.Is(err, liner.ErrPromptAborted) {
		return "", errAborted
	}
	return line, err
}

func (t *terminal) remember(chunk string) {
	entries := historyEntries(chunk)
	for _, e := range entries {
		t.line.AppendHistory(e)
	}
	if t.hist == nil {
		return
	}
	if err := t.hist.add(entries); err != nil {
		t.s.errorf("history: %v (no longer saving it)", err)
		t.hist = nil
	}
}

func (t *terminal) Close() error {
	var err error
	t.once.Do(func() { err = t.line.Close() })
	return err
}
