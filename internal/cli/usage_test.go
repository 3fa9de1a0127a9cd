package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNumericFlagsRefuseBadValues: a value out of range is a usage error
// naming the flag, on every command (never a panic or a silent default).
func TestNumericFlagsRefuseBadValues(t *testing.T) {
	cases := [][]string{
		{"server", "log", "-n", "-5"},
		{"server", "log", "--port", "70000"},
		{"server", "status", "--port", "-1"},
		{"server", "down", "--port", "x"},
		{"server", "up", "--model", "m.gguf", "--port", "0"},
		{"server", "up", "--model", "m.gguf", "--slots", "0"},
		{"server", "up", "--model", "m.gguf", "--ctx", "-4096"},
		{"server", "up", "--model", "m.gguf", "--threads", "-2"},
		{"server", "up", "--model", "m.gguf", "--cache-ram", "-7"},
		{"server", "up", "--model", "m.gguf", "--timeout", "-1s"},
		{"lab", "--slots", "-1"},
		{"run", "x.lua", "--ctx", "0"},
		{"repl", "--threads", "lots"},
		{"calibrate", "--rate", "-3"},
		{"calibrate", "--rate", "NaN"},
		{"calibrate", "--chunks", "-1"},
		{"calibrate", "--burst-size", "0"},
		{"calibrate", "--first-request", "0"},
		{"model", "synth", "--out", "x.gguf", "--layers", "-1"},
	}
	for _, args := range cases {
		code, stdout, stderr := runCLI(args...)
		flag := args[len(args)-2]
		first, _, _ := strings.Cut(stderr, "\n")
		if code != 2 || !strings.Contains(first, "flag "+strings.TrimLeft(flag, "-")) && !strings.Contains(first, "flag -"+strings.TrimLeft(flag, "-")) {
			t.Errorf("ttftlab %s: exit %d, first line %q (stdout %q), want 2 naming %s", strings.Join(args, " "), code, first, stdout, flag)
		}
		if !strings.HasPrefix(first, "ttftlab "+args[0]) {
			t.Errorf("ttftlab %s: the first line should name the command: %q", strings.Join(args, " "), first)
		}
	}
	code, _, stderr := runCLI("server", "up", "--model", "m.gguf", "--timeout", "5")
	if code != 2 || !strings.Contains(stderr, "use one, e.g. 5s") {
		t.Errorf("--timeout 5: exit %d, %s", code, stderr)
	}
}

// TestFlagsAfterScriptArguments: ttftlab's flags are parsed wherever they
// stand before --; after -- everything goes to the script.
func TestFlagsAfterScriptArguments(t *testing.T) {
	out := filepath.Join(t.TempDir(), "X")
	script := writeScript(t, "write_text('args.txt', table.concat(arg, ' '))\n")
	code, _, stderr := runCLI("run", script, "2", "3", "--out", out, "--", "--verbose", "4")
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	got, err := os.ReadFile(filepath.Join(out, "args.txt"))
	if err != nil || string(got) != "2 3 --verbose 4" {
		t.Errorf("the script got %q (%v), want its arguments only, with --out taken by ttftlab", got, err)
	}
	code, _, stderr = runCLI("run", script, "2", "--verbose")
	if code != 2 || !strings.Contains(stderr, "-verbose") {
		t.Errorf("an unknown flag after the script must be refused naming it: exit %d, %s", code, stderr)
	}
}

// TestServerURLCheckedAtStart: a --server that is no base URL is refused
// before anything starts, by every command that takes one.
func TestServerURLCheckedAtStart(t *testing.T) {
	script := writeScript(t, "print('ran')\n")
	for _, args := range [][]string{
		{"run", script, "--server", "127.0.0.1:8080"},
		{"lab", "--server", "127.0.0.1:8080"},
		{"repl", "--server", "localhost:8080"},
		{"run", script, "--server", "http://127.0.0.1:8080/?model=x"},
	} {
		code, stdout, stderr := runCLI(args...)
		if code != 2 || strings.Contains(stdout, "ran") || !strings.Contains(stderr, "want") || !strings.Contains(stderr, "http://") {
			t.Errorf("ttftlab %s: exit %d, %s%s", strings.Join(args, " "), code, stdout, stderr)
		}
	}
}

// TestLabNamesAForeignServer: with another HTTP server at --server, the
// lab says what answered and gives its own ways out.
func TestLabNamesAForeignServer(t *testing.T) {
	serverTestEnv(t)
	foreign := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.WriteHeader(http.StatusNotFound)
		w.Write([]byte("<html>no such page</html>"))
	}))
	defer foreign.Close()
	code, stdout, stderr := runCLI("lab", "--server", foreign.URL, "--out", t.TempDir())
	for _, want := range []string{foreign.URL, "HTTP 404", "text/html", "--server URL", "--model"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q", want)
		}
	}
	if code != 1 || strings.Contains(stderr, "--port") || strings.Contains(stdout, "starting llama-server") {
		t.Errorf("exit %d:\n%s%s", code, stdout, stderr)
	}
}

// TestLabChecksInputsBeforeAServerStarts: an unknown step or an empty KB
// is refused before llama-server is started.
func TestLabChecksInputsBeforeAServerStarts(t *testing.T) {
	port := serverTestEnv(t)
	marker := filepath.Join(t.TempDir(), "started")
	fake := filepath.Join(t.TempDir(), "llama-server")
	os.WriteFile(fake, []byte("#!/bin/sh\ntouch "+marker+"\nexec sleep 30\n"), 0o755)
	model := filepath.Join(t.TempDir(), "m.gguf")
	os.WriteFile(model, []byte("GGUF\x03\x00\x00\x00"), 0o644)
	url := "http://127.0.0.1:" + itoa(port)
	empty := t.TempDir()
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--", "nosuchstep"}, 2, `unknown step "nosuchstep"; steps are: server, stream`},
		{[]string{"--", "cach"}, 2, `unknown step "cach" (did you mean "cache"?); steps are: server, stream`},
		{[]string{"--kb", empty}, 1, "no *.md files"},
		{[]string{"--kb", filepath.Join(empty, "nope"), "--", "prefill"}, 1, "does not exist"},
	}
	for _, c := range cases {
		args := append([]string{"lab", "--server", url, "--model", model, "--llama-server", fake, "--out", t.TempDir(), "--timeout", "5s"}, c.args...)
		code, stdout, stderr := runCLI(args...)
		if code != c.code || !strings.Contains(stderr, c.want) {
			t.Errorf("lab %s: exit %d, want %d with %q:\n%s%s", strings.Join(c.args, " "), code, c.code, c.want, stdout, stderr)
		}
		if _, err := os.Stat(marker); err == nil {
			t.Fatalf("lab %s started llama-server before refusing its inputs", strings.Join(c.args, " "))
		}
	}
}

// TestHelpReadsWell: placeholders are words, every synopsis lists what
// the command takes.
func TestHelpReadsWell(t *testing.T) {
	_, out, _ := runCLI("check", "-h")
	if !strings.Contains(out, "-server-log file") || strings.Contains(out, "-server-log cancel task") {
		t.Errorf("check -h:\n%s", out)
	}
	_, out, _ = runCLI("server", "up", "-h")
	for _, flag := range []string{"-threads", "-slots", "-ctx", "-cache-ram", "-timeout", "-port", "-host", "-llama-server"} {
		if !strings.Contains(out, flag) {
			t.Errorf("server up -h lacks %s", flag)
		}
	}
	// ab's --no-report leaves the comparison's page drawn, and says so.
	_, out, _ = runCLI("ab", "-h")
	if !strings.Contains(out, "do not draw OUT/A/report.html and OUT/B/report.html (the comparison's OUT/report.html is always drawn)") {
		t.Errorf("ab -h does not say what --no-report leaves out:\n%s", out)
	}
	// ab's --budget takes a count as well as a time, and its placeholder says so.
	if !strings.Contains(out, "-budget DURATION or N\n") {
		t.Errorf("ab -h: --budget's placeholder hides the count it takes:\n%s", out)
	}
	code, _, stderr := runCLI("lab", "--no-such-flag")
	if code != 2 || !strings.HasPrefix(stderr, "ttftlab lab: flag provided but not defined: -no-such-flag\n") ||
		strings.Count(stderr, "\n") > 6 {
		t.Errorf("a bad flag should read as one line naming the command, then the synopsis:\n%s", stderr)
	}
}

// TestLabUsageNamesEveryStep: `lab -h` names every step the lab has, one
// per NN_name.lua file. Fails before this change: the list was a copy
// without audio.
func TestLabUsageNamesEveryStep(t *testing.T) {
	_, stdout, stderr := runCLI("lab", "-h")
	usage := stdout + stderr
	files, err := filepath.Glob("../../scripts/[0-9][0-9]_*.lua")
	if err != nil || len(files) < 10 {
		t.Fatalf("step files: %v %v", files, err)
	}
	for _, f := range files {
		name := strings.TrimSuffix(filepath.Base(f)[3:], ".lua")
		if !strings.Contains(usage, " "+name+",") && !strings.Contains(usage, " "+name+")") && !strings.Contains(usage, "("+name+",") {
			t.Errorf("lab -h does not name step %s:\n%s", name, usage)
		}
	}
}

// TestFlagTyposSuggest: a mistyped flag, and a mistyped metric in --slo,
// name the nearest one as ask()'s options do; a flag nothing resembles
// gets no guess. Fails before this change: neither suggested anything.
func TestFlagTyposSuggest(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"load", "--concurency", "4"}, "flag provided but not defined: -concurency; did you mean --concurrency?"},
		{[]string{"lab", "--keep-goin"}, "did you mean --keep-going?"},
		// A flag of another command says where it belongs.
		{[]string{"lab", "--until-decided"}, "one lab has no verdict to decide; `ttftlab ab --until-decided"},
		{[]string{"ab", "--runs", "3"}, "-runs: ab runs each set-up once, interleaved; --repeat N gives each step more repetitions"},
		{[]string{"ab", "--a", "--runs 3"}, `--a "--runs 3": flag provided but not defined: -runs: ab runs each set-up once`},
		// A flag of both set-ups inside a set-up's own says where it goes.
		{[]string{"ab", "--a", "--seed 3"}, `--a "--seed 3": flag provided but not defined: -seed: --seed is one for both set-ups: give it among the common flags, outside --a and --b`},
		{[]string{"ab", "--a", "--b x"}, `--a "--b x": flag provided but not defined: -b: --a and --b stand among the common flags`},
		{[]string{"load", "--slo", "first_sentense_ms<=500@p95"}, `no metric "first_sentense_ms" (did you mean "first_sentence_ms"?)`},
		{[]string{"load", "--slo", "mouth_to_eer_ms<=1500@p95"}, `no metric "mouth_to_eer_ms" (did you mean "mouth_to_ear_ms"?)`},
	} {
		code, _, stderr := runCLI(c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("ttftlab %s: exit %d, stderr %q, want 2 and %q", strings.Join(c.args, " "), code, stderr, c.want)
		}
	}
	if _, _, stderr := runCLI("lab", "--zzzzzzzz"); strings.Contains(stderr, "did you mean") {
		t.Errorf("a flag like none guesses one: %s", stderr)
	}
}
