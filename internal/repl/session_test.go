package repl

import (
	"strings"
	"testing"

	"ttftlab/internal/stream/streamtest"
)

// TestTopLevelLocalsLive: a local typed at the prompt lives on for the
// next statements; locals inside blocks stay local.
func TestTopLevelLocalsLive(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Hi", " there."}}).Start(t)
	p := newPiped(t, url)
	code := p.run(`local x = 42
x
local a, b = 1
a, b
local function twice(n) return 2 * n end
twice(x)
local c, total, tm, info = stream("hi")
info.ttft_ms ~= nil, #c
do local inner = 1 end
inner
`)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, p.err.String())
	}
	if got := p.out.String(); got != "42\n1\tnil\n84\ntrue\t2\nnil\n" {
		t.Errorf("stdout %q", got)
	}
}

// TestPipedErrorsNameTheInputLine: positions count from the start of the
// input, and the traceback names the function, as `ttftlab run` does.
func TestPipedErrorsNameTheInputLine(t *testing.T) {
	_, _, errOut := runPiped(t, "a = 1\nb = 2\nfunction f()\n  return nil + 1\nend\nf()\n")
	mustContain(t, "stderr", errOut, "stdin:4: ", "stack traceback:", "stdin:4: in function 'f'", "stdin:6: in main chunk")
	if strings.Contains(errOut, "stdin:2") {
		t.Errorf("an error names line 2:\n%s", errOut)
	}
}

// TestErrorsFromModulesNameTheUserLine: an error in a module's checks
// names the line typed, not the module's.
func TestErrorsFromModulesNameTheUserLine(t *testing.T) {
	_, _, errOut := runPiped(t, "x = 1\nprompt.build('S', {'a'}, 3)\n")
	mustContain(t, "stderr", errOut, "stdin:2: prompt.build: asked for 3 docs")
	if strings.Contains(errOut, "stdin:2: stdlib/") || strings.HasPrefix(errOut, "stdlib/") {
		t.Errorf("the message starts in the stdlib:\n%s", errOut)
	}
}

// TestQuietAskPrintsNothing: quiet means quiet, also as an expression.
func TestQuietAskPrintsNothing(t *testing.T) {
	url := (&streamtest.FakeLlama{Pieces: []string{"Hello", " there."}}).Start(t)
	p := newPiped(t, url)
	if code := p.run("ask('hi', {quiet = true})\n"); code != 0 {
		t.Fatalf("exit %d: %s", code, p.err.String())
	}
	if got := p.out.String(); got != "" {
		t.Errorf("quiet ask printed %q", got)
	}
}

// TestTraceShowsTheLastTraceback: :trace prints what the last error's
// traceback was.
func TestTraceShowsTheLastTraceback(t *testing.T) {
	_, out, _ := runPiped(t, "function g() error('deep') end\ng()\n:trace\n")
	mustContain(t, "stdout", out, "stack traceback:", "in function 'g'")
}
