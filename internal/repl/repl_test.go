package repl

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"ttftlab/internal/stream/streamtest"
)

func TestPipedExpressionsPrintTheirValues(t *testing.T) {
	code, out, errOut := runPiped(t, strings.Join([]string{
		`1+1`,
		`"a"`,
		`1, "x", nil`,
		`x = 3`,
		`x`,
		`print("hi")`,
		`{b = 2, a = {1, 2}}`,
		`stats.median({5, 1, 3})`,
		`local y = 4 return y * 2`,
	}, "\n"))
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	want := "2\n" + `"a"` + "\n" + `1	"x"	nil` + "\n3\nhi\n{a = {1, 2}, b = 2}\n3\n8\n"
	if out != want {
		t.Fatalf("stdout\n%s\nwant\n%s", out, want)
	}
}

func TestPipedMultiLineInput(t *testing.T) {
	code, out, errOut := runPiped(t, "function double(a)\n  return a * 2\nend\ndouble(21)\n"+
		"t = {\n  1,\n  2,\n}\n#t\n"+
		"s = [[one\ntwo]]\ns\n"+
		"if t[1] == 1 then\n  print('yes')\nend\n"+
		"1 +\n  2\n")
	if code != 0 || errOut != "" {
		t.Fatalf("exit %d, stderr %q", code, errOut)
	}
	if want := "42\n2\n\"one\\ntwo\"\nyes\n3\n"; out != want {
		t.Fatalf("stdout %q, want %q", out, want)
	}
}

func TestPipedErrorDoesNotEndTheSession(t *testing.T) {
	code, out, errOut := runPiped(t, "error('boom')\nx = = 1\nnope.field\n1+1\n")
	if out != "2\n" {
		t.Fatalf("stdout %q: statements after the errors must run", out)
	}
	mustContain(t, "stderr", errOut, "stdin:1: boom", "stdin:1:", "near '='", "attempt to index")
	if strings.Contains(errOut, "\x1b[") {
		t.Fatalf("colours without a terminal: %q", errOut)
	}
	if code != 1 {
		t.Fatalf("exit %d, want 1 after failed statements", code)
	}
}

func TestPipedIncompleteAtEndOfInput(t *testing.T) {
	code, _, errOut := runPiped(t, "print(1)\nfunction f()\n  return 1\n")
	mustContain(t, "stderr", errOut, "stdin:", "at the end")
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
}

func TestPipedOSExitAndQuit(t *testing.T) {
	code, out, _ := runPiped(t, "print('a')\nos.exit(3)\nprint('not reached')\n")
	if code != 3 || out != "a\n" {
		t.Fatalf("os.exit: exit %d, stdout %q", code, out)
	}
	code, out, _ = runPiped(t, ":quit\nprint('not reached')\n")
	if code != 0 || out != "" {
		t.Fatalf(":quit: exit %d, stdout %q", code, out)
	}
	code, _, errOut := runPiped(t, ":frobnicate\n")
	mustContain(t, "stderr", errOut, "unknown command :frobnicate", ":load")
	if code != 1 {
		t.Fatalf("unknown command: exit %d", code)
	}
}

func TestLoadAndReload(t *testing.T) {
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.lua")
	pre := filepath.Join(dir, "pre.lua")
	writeFile(t, lib, `VALUE = "v1" counter = (counter or 0) + 1`)
	writeFile(t, pre, `PRE = true`)
	p := newPiped(t, "http://127.0.0.1:1")
	p.cfg.Load = []string{pre}
	input := fmt.Sprintf(":load %s\nVALUE\nPRE\nwrite_text(%q, 'VALUE = \"v2\" counter = counter + 1')\n:reload\nVALUE\ncounter\n:load %s\n:load missing.lua\n",
		lib, lib, filepath.Join(dir, "nope.lua"))
	code := p.run(input)
	want := "\"v1\"\ntrue\n" + fmt.Sprintf("%q\n", lib) + "\"v2\"\n2\n"
	if got := p.out.String(); got != want {
		t.Fatalf("stdout\n%s\nwant\n%s\nstderr:\n%s", got, want, p.err.String())
	}
	mustContain(t, "stderr", p.err.String(), "reloading "+pre, "reloading "+lib, "cannot load "+filepath.Join(dir, "nope.lua"), "cannot load missing.lua")
	if code != 1 {
		t.Fatalf("exit %d, want 1 after the failed loads", code)
	}
}

func TestLoadFileWithErrorIsRemembered(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "bad.lua")
	writeFile(t, f, "x = = 1")
	p := newPiped(t, "http://127.0.0.1:1")
	p.run(fmt.Sprintf(":load %s\nwrite_text(%q, 'FIXED = 1')\n:reload\nFIXED\n", f, f))
	mustContain(t, "stderr", p.err.String(), f+":1:")
	if !strings.HasSuffix(p.out.String(), "1\n") {
		t.Fatalf("stdout %q: :reload must run the fixed file", p.out.String())
	}
}

func TestStreamResultPrintsASummary(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{" Once", " upon", " a", " time.", " The", " end"}}).Start(t)
	p := newPiped(t, url)
	code := p.run("stream('hi')\nchunks, total_ms, timings, info = stream('hi')\n#chunks\n")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, p.err.String())
	}
	out := p.out.String()
	mustContain(t, "stdout", out,
		`answer: " Once upon a time. The end"`,
		`first sentence at `, `"Once upon a time."`,
		"ttft ", "total ", "tokens 6", "prompt_n 11", "cache_n 4", "finish stop")
	if strings.Count(out, "answer:") != 1 || !strings.HasSuffix(out, "\n6\n") {
		t.Fatalf("only the bare stream() call is summarised:\n%s", out)
	}
	if strings.Contains(out, "t_ms") {
		t.Fatalf("the summary must not list chunks:\n%s", out)
	}
}

func TestAskPrintsAsItArrives(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Hello", " there.", " Bye", " now."}}).Start(t)
	p := newPiped(t, url)
	if code := p.run("ask('hi', {system = 'Be brief.', max_tokens = 8})\n"); code != 0 {
		t.Fatalf("exit %d: %s", code, p.err.String())
	}
	out := p.out.String()
	lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], "Hello there.  [") || !strings.HasPrefix(lines[1], "Bye now.  [") ||
		!strings.HasPrefix(lines[2], "ttft ") || !strings.Contains(lines[2], "cache_n 4") {
		t.Fatalf("ask printed:\n%s", out)
	}
}

// TestCtrlCCutsTheStream sends the session a SIGINT while a slow stream
// runs: the connection closes, the partial answer is shown and the session
// goes on.
func TestCtrlCCutsTheStream(t *testing.T) {
	f := &streamtest.FakeLlama{Pieces: []string{"one", " two", " three", " four", " five", " six", " seven", " eight", " nine", " ten"},
		Delay: 30 * time.Millisecond, After: 3, Reached: make(chan struct{})}
	url := f.Start(t)
	p := newPiped(t, url)
	sig := make(chan os.Signal, 1)
	p.cfg.Signals = sig
	p.cfg.HardExit = func(code int) { t.Errorf("hard exit %d", code) }
	go func() {
		<-f.Reached
		sig <- os.Interrupt
	}()
	code := p.run("stream('count')\n1+1\n")
	select {
	case <-f.Gone():
	case <-time.After(5 * time.Second):
		t.Fatal("the server never saw the connection close")
	}
	mustContain(t, "stderr", p.err.String(), "interrupted")
	out := p.out.String()
	mustContain(t, "stdout", out, "one two", "cut at ")
	if strings.Contains(out, "answer:") || strings.Contains(out, "error:") {
		t.Fatalf("an interrupted stream shows its text as is, and no error line:\n%s", out)
	}
	if strings.Contains(out, " ten") || strings.Contains(out, "first sentence at") || !strings.HasSuffix(out, "2\n") {
		t.Fatalf("stdout:\n%s", out)
	}
	if code != 1 {
		t.Fatalf("exit %d", code)
	}
}

// TestCtrlCInBusyLoop: an interrupt stops pure Lua too, and a second
// evaluation works.
func TestCtrlCInBusyLoop(t *testing.T) {
	p := newPiped(t, "http://127.0.0.1:1")
	sig := make(chan os.Signal, 1)
	p.cfg.Signals = sig
	p.cfg.HardExit = func(code int) { t.Errorf("hard exit %d", code) }
	time.AfterFunc(100*time.Millisecond, func() { sig <- os.Interrupt })
	p.run("n = 0 while true do n = n + 1 end\nn > 0\n")
	mustContain(t, "stderr", p.err.String(), "interrupted")
	if p.out.String() != "true\n" {
		t.Fatalf("stdout %q", p.out.String())
	}
}

func TestHelp(t *testing.T) {
	_, out, errOut := runPiped(t, ":help\n:help stream\n:help stats\n:help :load\n:help nope\n")
	mustContain(t, "stdout", out,
		"Commands:", ":reload", "Bindings:", "stream", "One streamed chat completion", "kb_docs",
		"Globals:", "SERVER", "Modules", "stats", "summary statistics",
		"cut_after_ms", // :help stream in full
		"stats.percentile(xs, p)",
		"run a Lua file in this session")
	mustContain(t, "stderr", errOut, `no help for "nope"`)
}

// TestHelpListen: :help listen shows its call, its summary and its help
// from the registry.
func TestHelpListen(t *testing.T) {
	_, out, errOut := runPiped(t, ":help listen\n")
	mustContain(t, "stdout", out, "listen(text_or_wav, opts) -> info", "sent to the speech-to-text server (--stt)",
		"stt_final_ms", "frame_ms")
	if errOut != "" {
		t.Errorf("stderr %q", errOut)
	}
}

// TestHelpModuleFunction: :help ask.ab shows what ask's notes say of it
// (its call, its paragraph, the comment above it), and :help stats.median
// its line of the list. Fails before this change: "ask.ab is a function
// without a help entry".
func TestHelpModuleFunction(t *testing.T) {
	_, out, errOut := runPiped(t, ":help ask.ab\n:help stats.median\n")
	mustContain(t, "stdout", out,
		"ask.ab(question, opts_a, opts_b, ab_opts) -> ab()'s result",
		"ab_opts.runs times each (default 6)",
		"ab compares two ask variants",
		"stats.median(xs)        -> number")
	if strings.Contains(out+errOut, "without a help entry") || strings.Contains(out, "While the answer streams") {
		t.Errorf(":help ask.ab:\n%s%s", out, errOut)
	}
}
