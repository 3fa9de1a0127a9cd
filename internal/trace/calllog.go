package trace

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// callFields are the call log's fields.
var callFields = []string{"call", "start_ms", "text", "input_tokens", "speak_ms", "pause_ms", "output_tokens", "audio"}

// readCallsJSONL reads a call log written as JSON lines.
func readCallsJSONL(data []byte, path string) ([]Call, int, error) {
	b := callLog{path: path, dir: filepath.Dir(path), last: map[string]int{}}
	for i, l := range bytes.Split(data, []byte("\n")) {
		if l = bytes.TrimSpace(l); len(l) == 0 {
			continue
		}
		r, err := jsonRecord(l, path, i+1)
		if err != nil {
			return nil, 0, err
		}
		if k := r.unknown(callFields); k != "" {
			return nil, 0, r.err(k, "unknown field: a call log's fields are %s", strings.Join(callFields, ", "))
		}
		if err := b.add(r); err != nil {
			return nil, 0, err
		}
	}
	return b.calls, b.lines, nil
}

// readCallsCSV reads a call log written as CSV: a header row naming the
// columns (the call log's fields, in any order), then a row a turn; an
// empty cell is an absent field.
func readCallsCSV(data []byte, path string) ([]Call, int, error) {
	cr := csv.NewReader(bytes.NewReader(data))
	cr.FieldsPerRecord = -1
	header, err := cr.Read()
	if err != nil {
		return nil, 0, csvError(err, path)
	}
	hl, _ := cr.FieldPos(0)
	for i, h := range header {
		h = strings.TrimSpace(h)
		header[i] = h
		switch {
		case h == "":
			return nil, 0, &LineError{Path: path, Line: hl, Msg: fmt.Sprintf("column %d of the header has no name: a call log's columns are %s", i+1, strings.Join(callFields, ", "))}
		case indexOf(callFields, h) < 0:
			return nil, 0, &LineError{Path: path, Line: hl, Field: h, Msg: fmt.Sprintf("unknown column: a call log's columns are %s", strings.Join(callFields, ", "))}
		case indexOf(header[:i], h) >= 0:
			return nil, 0, &LineError{Path: path, Line: hl, Field: h, Msg: "column named twice in the header"}
		}
	}
	if indexOf(header, "call") < 0 {
		return nil, 0, &LineError{Path: path, Line: hl, Field: "call", Msg: "no such column in the header: every line names its call"}
	}
	b := callLog{path: path, dir: filepath.Dir(path), last: map[string]int{}}
	for {
		row, err := cr.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, 0, csvError(err, path)
		}
		line, _ := cr.FieldPos(0)
		if len(row) != len(header) {
			return nil, 0, &LineError{Path: path, Line: line, Msg: fmt.Sprintf("%d cells, the header has %d", len(row), len(header))}
		}
		r := record{path: path, line: line, vals: map[string]value{}}
		for i, cell := range row {
			if cell != "" {
				r.vals[header[i]] = value{"cell", cell}
			}
		}
		if err := b.add(r); err != nil {
			return nil, 0, err
		}
	}
	return b.calls, b.lines, nil
}

func indexOf(s []string, x string) int {
	for i, v := range s {
		if v == x {
			return i
		}
	}
	return -1
}

func csvError(err error, path string) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		msg := "not CSV: " + pe.Err.Error()
		if pe.Line != pe.StartLine {
			msg += fmt.Sprintf(" (found on line %d)", pe.Line)
		}
		return &LineError{Path: path, Line: pe.StartLine, Msg: msg}
	}
	return &LineError{Path: path, Msg: err.Error()}
}

// callLog gathers a call log's lines into calls.
type callLog struct {
	path, dir string
	calls     []Call
	lines     int
	// last is each call's last line so far.
	last map[string]int
}

// add adds a line: a turn of the current call, or the first of a new one.
func (b *callLog) add(r record) error {
	b.lines++
	id, ok, err := r.str("call")
	switch {
	case err != nil:
		return err
	case !ok || strings.TrimSpace(id) == "":
		return r.err("call", "missing: every line names its call")
	}
	var c *Call
	if n := len(b.calls); n > 0 && b.calls[n-1].ID == id {
		c = &b.calls[n-1]
		start, ok, err := r.ms("start_ms", "")
		if err != nil {
			return err
		}
		if ok && start != c.StartMs {
			return r.err("start_ms", "%s, but call %q began at %s (a later line of a call may repeat its start, not change it)", fmtMs(start), id, fmtMs(c.StartMs))
		}
	} else {
		if l, ok := b.last[id]; ok {
			return r.err("call", "call %q's turns are not on consecutive lines (its last before was line %d)", id, l)
		}
		start, _, err := r.ms("start_ms", "missing on the call's first line: when the call began")
		if err != nil {
			return err
		}
		if n > 0 && start < b.calls[n-1].StartMs {
			p := b.calls[n-1]
			return r.err("start_ms", "call %q starts at %s ms, before call %q at %s ms: times out of order", id, fmtMs(start), p.ID, fmtMs(p.StartMs))
		}
		b.calls = append(b.calls, Call{ID: id, StartMs: start})
		c = &b.calls[len(b.calls)-1]
	}
	b.last[id] = r.line
	t := Turn{Line: r.line}
	text, hasText, err := r.str("text")
	if err != nil {
		return err
	}
	in, hasIn, err := r.tokens("input_tokens", "")
	switch {
	case err != nil:
		return err
	case hasText && hasIn:
		return r.err("input_tokens", "given with text: give the caller's words (text) or their length (input_tokens), not both")
	case hasText && strings.TrimSpace(text) == "":
		return r.err("text", "empty: give the caller's words, or their length as input_tokens")
	case !hasText && !hasIn:
		return r.err("text", "missing: give the caller's words (text) or their length in tokens (input_tokens)")
	}
	t.Text, t.InputTokens = text, in
	if t.SpeakMs, _, err = r.ms("speak_ms", ""); err != nil {
		return err
	}
	if t.PauseMs, _, err = r.ms("pause_ms", ""); err != nil {
		return err
	}
	if t.OutputTokens, _, err = r.tokens("output_tokens", ""); err != nil {
		return err
	}
	audio, ok, err := r.str("audio")
	switch {
	case err != nil:
		return err
	case ok:
		if t.Audio, err = b.audio(r, audio); err != nil {
			return err
		}
	}
	c.Turns = append(c.Turns, t)
	return nil
}

// audio is a turn's audio file, resolved against the trace's folder; it
// must be a file that is there.
func (b *callLog) audio(r record, a string) (string, error) {
	if strings.TrimSpace(a) == "" {
		return "", r.err("audio", "empty: name the turn's audio file, or leave the field out")
	}
	p := a
	if !filepath.IsAbs(p) {
		p = filepath.Join(b.dir, p)
	}
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return "", r.err("audio", "%s: no such file (a relative name is taken from the trace's folder)", p)
	case fi.IsDir():
		return "", r.err("audio", "%s is a folder, not an audio file", p)
	}
	return p, nil
}
