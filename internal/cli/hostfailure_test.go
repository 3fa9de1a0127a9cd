package cli

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// notAnLLMServer answers as `python3 -m http.server` does: a page for
// GET, 501 with a page for POST.
func notAnLLMServer(t *testing.T) string {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html;charset=utf-8")
		status := http.StatusNotFound
		if r.Method == http.MethodPost {
			status = http.StatusNotImplemented
		}
		w.WriteHeader(status)
		w.Write([]byte("<!DOCTYPE HTML>\n<html lang=\"en\"><head><title>Error response</title></head>" +
			"<body><h1>Error response</h1><p>Error code: " + http.StatusText(status) + "</p></body></html>\n"))
	}))
	t.Cleanup(srv.Close)
	return srv.URL
}

// runPiped runs the REPL with code as its piped input.
func runPiped(code string, args ...string) (int, string, string) {
	var out, errb bytes.Buffer
	c := Main(context.Background(), append([]string{"repl"}, args...), Stdio{In: strings.NewReader(code), Out: &out, Err: &errb})
	return c, out.String(), errb.String()
}

// TestHostFailuresHaveNoTraceback: a host function's failure (stream()
// refused by a closed port, health() and stream() answered by a program
// that is not an LLM server) ends `run` and the piped REPL with the
// script's file:line and the message, no Lua stack traceback, and the
// non-LLM server is named as such, as lab and load name it; an error of
// the Lua code itself keeps its traceback.
// Fails before this change: "stack traceback: [G]: in function 'stream'"
// after each, and the other program's 501 page instead of "not as an LLM
// server".
// The case through ask failed before ask called stream() in a function
// of its own: pcall(stream, ...) left the message no position, so it
// named no line of the script.
func TestHostFailuresHaveNoTraceback(t *testing.T) {
	other := notAnLLMServer(t)
	streamCall := "local ok = 1\nstream({{role = 'user', content = 'Hi'}}, {max_tokens = 4})\n"
	for _, tc := range []struct {
		name, server, code, want string
	}{
		{"refused", noServer, streamCall, "nothing is listening there"},
		{"not an LLM server", other, streamCall, "but not as an LLM server"},
		{"health of not an LLM server", other, "local ok = 1\nhealth()\n", "but not as an LLM server"},
		{"through ask", noServer, "local ask = require('ask')\nask('Hi', {max_tokens = 4})\n", "nothing is listening there"},
		{"rethrown by pcall", noServer, "local ok, e\nok, e = pcall(function() return stream({{role = 'user', content = 'Hi'}}) end)\nerror('again: ' .. e, 0)\n", "nothing is listening there"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := writeScript(t, tc.code)
			code, stdout, stderr := runCLI("run", script, "--server", tc.server, "--out", t.TempDir())
			if code != 1 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "stack traceback") ||
				!strings.Contains(stderr, script+":2:") {
				t.Errorf("run: exit %d, want 1, %q with the script's line and no traceback:\n%s%s", code, tc.want, stdout, stderr)
			}
			if tc.server == other && strings.Contains(stderr, "answered HTTP 501 Not Implemented; the body starts") {
				t.Errorf("run shows the other program's page instead of naming it:\n%s", stderr)
			}
			code, stdout, stderr = runPiped(tc.code, "--server", tc.server, "--out", t.TempDir())
			if code != 1 || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "stack traceback") ||
				!strings.Contains(stderr, "stdin:2:") {
				t.Errorf("repl: exit %d, want 1, %q with the line and no traceback:\n%s%s", code, tc.want, stdout, stderr)
			}
		})
	}
	// The Lua code's own error keeps its traceback.
	script := writeScript(t, "local function f(t)\n  return t.x\nend\nf(nil)\n")
	code, stdout, stderr := runCLI("run", script, "--server", noServer, "--out", t.TempDir())
	if code != 1 || !strings.Contains(stderr, "stack traceback") || !strings.Contains(stderr, script+":4:") {
		t.Errorf("a nil index: exit %d, want 1 and a traceback through line 4:\n%s%s", code, stdout, stderr)
	}
}
