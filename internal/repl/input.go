package repl

import (
	"bufio"
	"errors"
	"io"
	"strings"
)

const (
	prompt         = "> "
	continuePrompt = ">> "
)

// errAborted: Ctrl-C at the prompt dropped the line (and any unfinished
// chunk).
var errAborted = errors.New("input aborted")

// input is where lines come from: the terminal with line editing, or a
// plain reader.
type input interface {
	// readLine shows prompt (a terminal only) and returns one line without
	// its newline; io.EOF at the end, errAborted after Ctrl-C.
	readLine(prompt string) (string, error)
	// remember offers a finished chunk to the history.
	remember(chunk string)
	// Close restores the terminal. It may be called more than once, also
	// from another goroutine.
	Close() error
}

func (s *session) openInput() (input, error) {
	if s.cfg.Terminal {
		return newTerminal(s)
	}
	return &plainInput{r: bufio.NewReaderSize(s.cfg.In, 64<<10)}, nil
}

// readChunk reads lines until they form a chunk that is not incomplete.
// Without a terminal, end of input inside a chunk returns the chunk as it
// is, so its syntax error gets reported.
func (s *session) readChunk() (string, error) {
	var lines []string
	s.chunkLine = s.linesRead + 1
	for {
		p := prompt
		if len(lines) > 0 {
			p = continuePrompt
		}
		line, err := s.input.readLine(p)
		if err == nil {
			s.linesRead++
		}
		if errors.Is(err, io.EOF) && len(lines) > 0 && !s.cfg.Terminal {
			return strings.Join(lines, "\n"), nil
		}
		if err != nil {
			return "", err
		}
		lines = append(lines, line)
		chunk := strings.Join(lines, "\n")
		if len(lines) == 1 && strings.HasPrefix(strings.TrimSpace(line), ":") {
			s.input.remember(chunk)
			return chunk, nil
		}
		if strings.TrimSpace(chunk) == "" || !incomplete(chunk) {
			s.input.remember(chunk)
			return chunk, nil
		}
	}
}

// plainInput reads lines from a pipe or file: no prompts, no history.
type plainInput struct {
	r *bufio.Reader
}

func (p *plainInput) readLine(string) (string, error) {
	line, err := p.r.ReadString('\n')
	if err != nil && !(errors.Is(err, io.EOF) && line != "") {
		return "", err
	}
	line = strings.TrimSuffix(line, "\n")
	return strings.TrimSuffix(line, "\r"), nil
}

func (p *plainInput) remember(string) {}

func (p *plainInput) Close() error { return nil }
