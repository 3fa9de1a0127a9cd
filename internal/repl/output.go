package repl

import (
	"fmt"
	"strings"

	lua "github.com/yuin/gopher-lua"
)

const (
	red    = "\x1b[31m"
	yellow = "\x1b[33m"
	reset  = "\x1b[0m"
)

// interruptedTextMax is how much of a cut stream's text is shown, from
// its end: enough to read what the model was saying when it was cut.
const interruptedTextMax = 4000

// show prints a statement's values: a stream() result as a summary, other
// values pretty-printed, tab-separated on one line or one per line when
// any of them spans lines.
func (s *session) show(values []lua.LValue) {
	if len(values) == 0 {
		return
	}
	if isStreamResult(values) {
		s.showStream(values, true, 0)
		return
	}
	parts := make([]string, len(values))
	sep := "\t"
	for i, v := range values {
		parts[i] = pretty(s.L, v, defaultPrettyLimits)
		if strings.Contains(parts[i], "\n") {
			sep = "\n"
		}
	}
	fmt.Fprintln(s.cfg.Out, strings.Join(parts, sep))
}

// isStreamResult recognises the four values stream() (and ask) return:
// a chunks table, total_ms, timings (a table or nil) and an info table
// with boolean done and cut and a numeric status. A statement whose values
// are exactly these prints as a summary.
func isStreamResult(v []lua.LValue) bool {
	if len(v) != 4 {
		return false
	}
	_, chunks := v[0].(*lua.LTable)
	_, total := v[1].(lua.LNumber)
	_, timingsTable := v[2].(*lua.LTable)
	info, isInfo := v[3].(*lua.LTable)
	if !chunks || !total || !(timingsTable || v[2] == lua.LNil) || !isInfo {
		return false
	}
	_, done := info.RawGetString("done").(lua.LBool)
	_, cut := info.RawGetString("cut").(lua.LBool)
	_, status := info.RawGetString("status").(lua.LNumber)
	return done && cut && status
}

// showStream prints ask.summary of a stream result; withText includes the
// answer's text (cut after maxText bytes; 0: the summary's default). A
// result that ask already printed (info.printed), or was told to keep
// quiet about (info.quiet), shows nothing more.
func (s *session) showStream(values []lua.LValue, withText bool, maxText int) {
	info := values[3].(*lua.LTable)
	if info.RawGetString("printed") == lua.LTrue || info.RawGetString("quiet") == lua.LTrue {
		return
	}
	text, err := s.summary(values, withText, maxText)
	if err != nil {
		s.errorf("summarising the stream result: %v", err)
		for _, v := range values {
			fmt.Fprintln(s.cfg.Out, pretty(s.L, v, defaultPrettyLimits))
		}
		return
	}
	fmt.Fprintln(s.cfg.Out, text)
}

// summary calls require("ask").summary, so the REPL and scripts share one
// wording.
func (s *session) summary(values []lua.LValue, withText bool, maxText int) (string, error) {
	L := s.L
	if err := L.CallByParam(lua.P{Fn: L.GetGlobal("require"), NRet: 1, Protect: true}, lua.LString("ask")); err != nil {
		return "", err
	}
	mod := L.Get(-1)
	L.Pop(1)
	fn := L.GetField(mod, "summary")
	opts := L.NewTable()
	opts.RawSetString("text", lua.LBool(withText))
	if maxText > 0 {
		opts.RawSetString("max_text", lua.LNumber(maxText))
	}
	args := append(append([]lua.LValue{}, values...), opts)
	if err := L.CallByParam(lua.P{Fn: fn, NRet: 1, Protect: true}, args...); err != nil {
		return "", err
	}
	text := L.Get(-1)
	L.Pop(1)
	return lua.LVAsString(text), nil
}

// showInterrupted prints what a stream cut by Ctrl-C had received: the
// text as it is (unless an on_chunk callback such as ask's has shown it
// already), then the summary line. The interrupt note replaces info.error.
func (s *session) showInterrupted() {
	in := s.vm.Interrupted()
	if in == nil {
		return
	}
	if text := chunkText(in.Values[0].(*lua.LTable)); text != "" && !in.OnChunk {
		fmt.Fprintln(s.cfg.Out, tail(text, interruptedTextMax))
	}
	in.Values[3].(*lua.LTable).RawSetString("error", lua.LNil)
	s.showStream(in.Values, false, 0)
}

// chunkText joins the text of a chunks table.
func chunkText(chunks *lua.LTable) string {
	var b strings.Builder
	for i := 1; i <= chunks.Len(); i++ {
		if c, ok := chunks.RawGetInt(i).(*lua.LTable); ok {
			b.WriteString(lua.LVAsString(c.RawGetString("text")))
		}
	}
	return b.String()
}

// tail keeps the last max bytes of s (on a character boundary), saying
// how much was left out.
func tail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := len(s) - max
	for cut < len(s) && s[cut]&0xC0 == 0x80 {
		cut++
	}
	return fmt.Sprintf("[… %d bytes before]%s", cut, s[cut:])
}

// errorf prints an error message, red on a terminal.
func (s *session) errorf(format string, args ...any) {
	s.colored(red, fmt.Sprintf(format, args...))
}

// notef prints a note about the session (an interrupt, a reload), yellow
// on a terminal.
func (s *session) notef(format string, args ...any) {
	s.colored(yellow, fmt.Sprintf(format, args...))
}

func (s *session) colored(color, msg string) {
	if s.color {
		msg = color + msg + reset
	}
	fmt.Fprintln(s.cfg.Err, msg)
}
