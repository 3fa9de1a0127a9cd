package cli

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
)

const noServer = "http://127.0.0.1:1"

// TestReplTerminal drives the prompt on a pseudo-terminal: values,
// continuation lines, errors, completion, Ctrl-C at the prompt, Ctrl-D.
func TestReplTerminal(t *testing.T) {
	s := startTerm(t, t.TempDir(), "repl", "--server", noServer, "--out", t.TempDir())
	s.expect("Lua prompt for "+noServer, 10*time.Second)
	s.expect("> ", 5*time.Second)
	s.requireRawMode()

	s.send("1+1\r")
	s.expect("1+1\r\n2\r\n> ", 5*time.Second)

	// An open function continues on ">> " lines.
	s.send("function triple(a)\r")
	s.expect(">> ", 5*time.Second)
	s.send("return a * 3\r")
	s.expect(">> ", 5*time.Second)
	s.send("end\r")
	s.expect("> ", 5*time.Second)
	s.send("triple(14)\r")
	s.expect("42\r\n> ", 5*time.Second)

	// An error is shown in red and the session goes on.
	s.send("error('boom')\r")
	s.expect("stdin:1: boom", 5*time.Second)
	if !strings.Contains(s.raw(), "\x1b[31mstdin:1: boom") {
		t.Errorf("the error is not red")
	}
	s.send("2+3\r")
	s.expect("5\r\n> ", 5*time.Second)

	// Tab completes a field, a second Tab lists the choices.
	s.send("stats.me\t\t")
	s.expect("mean", 5*time.Second)
	s.expect("median", 5*time.Second)
	s.send("dian({4, 1, 3})\r")
	s.expect("3\r\n> ", 5*time.Second)
	// A module name inside require("...").
	s.send(`require("sen` + "\t")
	s.expect(`require("sentence`, 5*time.Second)
	s.send(`").split("One. Two.")[2]` + "\r")
	s.expect(`"Two."`+"\r\n> ", 5*time.Second)

	// Ctrl-C drops the line being typed, also an unfinished chunk.
	s.send("this is not lua\x03")
	s.expect("^C", 5*time.Second)
	s.send("function half_typed()\r")
	s.expect(">> ", 5*time.Second)
	s.send("\x03")
	// Typed only once the prompt has taken the Ctrl-C: sent at once, both
	// may come in one read, and the line goes on with "6*7".
	s.expect("^C", 5*time.Second)
	s.send("6*7\r")
	between := s.expect("42\r\n> ", 5*time.Second)
	if strings.Contains(between, "error") || strings.Contains(between, "near") {
		t.Errorf("a dropped line was run: %q", between)
	}

	// A top-level local lives on; an error shows its message only, and
	// :trace its traceback.
	s.send("local kept = 7\r")
	s.expect("> ", 5*time.Second)
	s.send("kept * 6\r")
	s.expect("42\r\n> ", 5*time.Second)
	s.send("function deep() error('down here') end\r")
	s.expect("> ", 5*time.Second)
	s.send("deep()\r")
	shown := s.expect("down here", 5*time.Second)
	after := s.expect("> ", 5*time.Second)
	if strings.Contains(shown+after, "traceback") || strings.Contains(shown+after, "tailcall") {
		t.Errorf("an error at the prompt shows a traceback: %q", shown+after)
	}
	s.send(":trace\r")
	s.expect("in function 'deep'", 5*time.Second)
	s.expect("> ", 5*time.Second)

	// Ctrl-D leaves; the terminal is as it was.
	s.send("\x04")
	if code := s.wait(10 * time.Second); code != 0 {
		t.Errorf("exit code %d after Ctrl-D", code)
	}
	s.requireCookedMode()
}

// TestReplTerminalExitPaths: os.exit in Lua and SIGTERM both restore the
// terminal.
func TestReplTerminalExitPaths(t *testing.T) {
	s := startTerm(t, t.TempDir(), "repl", "--server", noServer, "--out", t.TempDir())
	s.expect("> ", 10*time.Second)
	s.send("os.exit(3)\r")
	if code := s.wait(10 * time.Second); code != 3 {
		t.Errorf("exit code %d after os.exit(3)", code)
	}
	s.requireCookedMode()

	s = startTerm(t, t.TempDir(), "repl", "--server", noServer, "--out", t.TempDir())
	s.expect("> ", 10*time.Second)
	s.requireRawMode()
	s.cmd.Process.Signal(syscall.SIGTERM)
	if code := s.wait(10 * time.Second); code != 128+int(syscall.SIGTERM) {
		t.Errorf("exit code %d after SIGTERM", code)
	}
	s.requireCookedMode()
}

// TestReplNoArgumentsOnATerminal: plain `ttftlab` at a terminal is the
// prompt.
func TestReplNoArgumentsOnATerminal(t *testing.T) {
	s := startTerm(t, t.TempDir())
	s.expect("Lua prompt", 10*time.Second)
	s.send(":quit\r")
	if code := s.wait(10 * time.Second); code != 0 {
		t.Errorf("exit code %d", code)
	}
}

// TestReplHistoryAcrossSessions: a line typed in one session is recalled
// with the Up key in the next; a line starting with a space is not kept.
func TestReplHistoryAcrossSessions(t *testing.T) {
	state := t.TempDir()
	s := startTerm(t, state, "repl", "--server", noServer, "--out", t.TempDir())
	s.expect("> ", 10*time.Second)
	s.send("remembered = 40 + 2\r")
	s.expect("> ", 5*time.Second)
	s.send(" hidden = 1\r")
	s.expect("> ", 5*time.Second)
	s.send(":quit\r")
	s.wait(10 * time.Second)

	data, err := os.ReadFile(filepath.Join(state, "repl_history"))
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != "remembered = 40 + 2\n:quit\n" {
		t.Fatalf("history file %q", data)
	}

	s = startTerm(t, state, "repl", "--server", noServer, "--out", t.TempDir())
	s.expect("> ", 10*time.Second)
	s.send("\x1b[A\x1b[A") // Up, Up: past :quit to the assignment
	s.expect("remembered = 40 + 2", 5*time.Second)
	s.send("\r")
	s.expect("> ", 5*time.Second)
	s.send("remembered\r")
	s.expect("42\r\n> ", 5*time.Second)
	s.send("\x04")
	s.wait(10 * time.Second)
}

// TestReplPiped: without a terminal, statements come from standard input
// with no prompt and no colours.
func TestReplPiped(t *testing.T) {
	cmd := childCommand(t.TempDir(), "repl", "--server", noServer, "--out", t.TempDir())
	cmd.Stdin = strings.NewReader("x = 20\nfunction f()\n  return x + 1\nend\nf()\nerror('boom')\nf() * 2\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if stdout.String() != "21\n42\n" {
		t.Fatalf("stdout %q, stderr %q", stdout.String(), stderr.String())
	}
	if !strings.Contains(stderr.String(), "stdin:6: boom") || strings.Contains(stderr.String(), "\x1b[") {
		t.Fatalf("stderr %q", stderr.String())
	}
	if cmd.ProcessState.ExitCode() != 1 {
		t.Fatalf("exit %v, want 1 after a failed statement", err)
	}
}

func TestReplRejectsArguments(t *testing.T) {
	code, _, stderr := runCLI("repl", "script.lua")
	if code != 2 || !strings.Contains(stderr, "-l FILE") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

// TestReplComparesPromptVariants is the session the REPL is for, against
// the real llama-server: the same question twice with 4 KB docs (the
// second reuses the prompt cache), then once with the cache off.
func TestReplComparesPromptVariants(t *testing.T) {
	srv := startLlama(t)
	cmd := childCommand(t.TempDir(), "repl", "--server", srv.URL, "--out", t.TempDir())
	sys := `{system = "You are a clinic phone assistant.", docs = 4, max_tokens = 24`
	cmd.Stdin = strings.NewReader(
		`ask("Do you open on Saturday?", ` + sys + `})` + "\n" +
			`ask("Do you open on Saturday?", ` + sys + `})` + "\n" +
			`ask("Do you open on Saturday?", ` + sys + `, cache = false})` + "\n")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("%v\nstdout:\n%s\nstderr:\n%s", err, stdout.String(), stderr.String())
	}
	t.Logf("session:\n%s", stdout.String())
	summaries := regexp.MustCompile(`ttft ([\d.]+) ms \| first sentence \S+( ms)? \| total [\d.]+ ms \| spoken [^|]+ \| tokens \d+ \| prompt_n (\d+) \| cache_n (\d+)`).
		FindAllStringSubmatch(stdout.String(), -1)
	if len(summaries) != 3 {
		t.Fatalf("want 3 summary lines, got %d", len(summaries))
	}
	promptN := func(i int) int { n, _ := strconv.Atoi(summaries[i][3]); return n }
	cacheN := func(i int) int { n, _ := strconv.Atoi(summaries[i][4]); return n }
	if cacheN(1) <= promptN(1) || cacheN(1) < promptN(0)/2 {
		t.Errorf("the repeated prompt should reuse the cache: first prompt_n %d, second prompt_n %d cache_n %d",
			promptN(0), promptN(1), cacheN(1))
	}
	if cacheN(2) != 0 || promptN(2) < promptN(0)/2 {
		t.Errorf("cache = false must evaluate the whole prompt: prompt_n %d cache_n %d", promptN(2), cacheN(2))
	}
	if !regexp.MustCompile(`(?m)^\S.*  \[[\d.]+ ms\]$`).MatchString(stdout.String()) {
		t.Errorf("no sentence printed with its time")
	}
}

// TestReplCtrlCCutsRealStream: Ctrl-C during a long answer from the real
// llama-server closes the connection; the server cancels the task, its
// slot goes idle, and the prompt comes back with what had arrived. Once
// for a bare stream(), once for ask(), which prints as it goes.
func TestReplCtrlCCutsRealStream(t *testing.T) {
	srv := startLlama(t)
	s := startTerm(t, t.TempDir(), "repl", "--server", srv.URL, "--server-log", srv.LogPath, "--out", t.TempDir())
	s.expect("> ", 10*time.Second)
	long := `"Tell me a long story.", {max_tokens = 1800, body = {ignore_eos = true}}`

	// Tokens are on their way, none printed yet.
	summary := interruptLong(t, s, srv, "stream("+long+")", func() { waitDecoded(t, srv.URL, 100) })
	if !regexp.MustCompile(`^\s*\S[\s\S]*\r\nttft [\d.]+ ms \|[\s\S]*\| cut at [\d.]+ ms$`).MatchString(summary) {
		t.Fatalf("no partial text and cut summary after the interrupt:\n%q", summary)
	}

	// ask prints as it goes: Ctrl-C once the first sentence is on screen.
	summary = interruptLong(t, s, srv, "ask("+long+")", func() { s.expect(" ms]", 10*time.Second) })
	if !strings.Contains(summary, "| cut at ") {
		t.Fatalf("no cut summary after interrupting ask:\n%s", summary)
	}

	s.send("1+1\r")
	s.expect("2\r\n> ", 5*time.Second)
	s.send("\x04")
	if code := s.wait(10 * time.Second); code != 0 {
		t.Errorf("exit code %d", code)
	}
	s.requireCookedMode()
}

// fullAnswer is the server's log line for a task that generated all 1800
// tokens.
var fullAnswer = regexp.MustCompile(`eval time = .*/\s*1800 tokens`)

// interruptLong types line (a long answer), waits for ready and presses
// Ctrl-C. It requires the statement to be interrupted, the prompt back,
// the slot idle and a new "cancel task" in the server log, and returns what
// was printed between the interrupt note and the prompt.
//
// On this 2-core machine the server's busy threads can starve the client
// so long that the server has generated the whole answer before the cut
// reaches it (or the client has read it all before Ctrl-C), or so that
// nothing has reached the client yet when the cut comes. Such a try, which
// the server log shows as a complete answer or the summary as one without
// a first token, does not count and is repeated.
func interruptLong(t *testing.T, s *termSession, srv *llamaserver.Server, line string, ready func()) string {
	t.Helper()
	logCount := func(re *regexp.Regexp) int {
		data, _ := os.ReadFile(srv.LogPath)
		return len(re.FindAllIndex(data, -1))
	}
	cancelTask := regexp.MustCompile(`cancel task`)
	for try := 1; try <= 4; try++ {
		cancels, fulls := logCount(cancelTask), logCount(fullAnswer)
		s.send(line + "\r")
		ready()
		s.send("\x03")
		got, _ := s.expectAny(15*time.Second, "interrupted (Ctrl-C)", "^C")
		after := ""
		if got != "^C" {
			after = s.expect("\r\n> ", 10*time.Second)
		}
		waitSlots(t, srv.URL, false)
		deadline := time.Now().Add(5 * time.Second)
		for logCount(cancelTask) == cancels && logCount(fullAnswer) == fulls && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		switch {
		case logCount(cancelTask) > cancels && strings.Contains(after, "ttft - |"):
			t.Logf("try %d: cut before the first token reached the client; again", try)
		case logCount(cancelTask) > cancels && got != "^C":
			return after
		case logCount(fullAnswer) > fulls:
			t.Logf("try %d: the server finished the answer before the cut reached it; again", try)
		default:
			t.Fatalf("after Ctrl-C (%s) the server log shows neither a cancelled task nor a finished one", got)
		}
	}
	t.Fatal("Ctrl-C never cut the answer while the server generated it")
	return ""
}

// slotState is what /slots says about the server's slots: whether any is
// processing, and the most tokens one has decoded for its task.
func slotState(server string) (processing bool, decoded int, err error) {
	resp, err := http.Get(server + "/slots")
	if err != nil {
		return false, 0, err
	}
	defer resp.Body.Close()
	var slots []struct {
		IsProcessing bool            `json:"is_processing"`
		NextToken    json.RawMessage `json:"next_token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&slots); err != nil {
		return false, 0, err
	}
	for _, sl := range slots {
		processing = processing || sl.IsProcessing
		// next_token is an object in some builds, a one-element array in others.
		var one struct {
			NDecoded int `json:"n_decoded"`
		}
		var list []struct {
			NDecoded int `json:"n_decoded"`
		}
		if json.Unmarshal(sl.NextToken, &one) != nil && json.Unmarshal(sl.NextToken, &list) == nil && len(list) > 0 {
			one.NDecoded = list[0].NDecoded
		}
		if sl.IsProcessing {
			decoded = max(decoded, one.NDecoded)
		}
	}
	return processing, decoded, nil
}

// waitSlots polls /slots until some slot is processing (busy) or none is.
func waitSlots(t *testing.T, server string, busy bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if processing, _, err := slotState(server); err == nil && processing == busy {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
	t.Fatalf("/slots never showed processing=%v", busy)
}

// waitDecoded polls /slots until a processing slot has decoded n tokens.
func waitDecoded(t *testing.T, server string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		if _, decoded, err := slotState(server); err == nil && decoded >= n {
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Fatalf("/slots never showed a slot with %d tokens decoded", n)
}

// waitLog waits until the log holds text at least n times.
func waitLog(t *testing.T, path, text string, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		data, _ := os.ReadFile(path)
		if strings.Count(string(data), text) >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%q appears %d times in the server log, want %d", text, strings.Count(string(data), text), n)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
