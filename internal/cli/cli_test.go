package cli

import (
	"strings"
	"testing"
)

// TestUsageAndExitCodes: unknown commands and bad flags print usage and
// exit 2, -h is help (exit 0) on every command, version prints one.
func TestUsageAndExitCodes(t *testing.T) {
	cases := []struct {
		args   []string
		code   int
		output string // expected in stdout or stderr
	}{
		{[]string{"frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"run"}, 2, "missing SCRIPT"},
		{[]string{"run", "x.lua", "--no-such-flag"}, 2, "flag provided but not defined"},
		{[]string{"lab", "--no-such-flag"}, 2, "Usage: ttftlab lab"},
		{[]string{"check"}, 2, "missing OUT_DIR"},
		{[]string{"server", "frobnicate"}, 2, `unknown command "frobnicate"`},
		{[]string{"version"}, 0, "ttftlab "},
		{[]string{"version", "extra"}, 2, `unexpected arguments ["extra"]`},
		{[]string{"help"}, 0, "Usage:"},
		{[]string{"run", "-h"}, 0, "-server"},
		{[]string{"lab", "-h"}, 0, "-keep-going"},
		{[]string{"check", "-h"}, 0, "-server-log"},
		{[]string{"server", "up", "-h"}, 0, "-model"},
		{[]string{"repl", "-h"}, 0, "-server"},
		{[]string{"calibrate", "-h"}, 0, "-rate"},
		{[]string{"model", "synth", "-h"}, 0, "-preset"},
	}
	for _, c := range cases {
		code, stdout, stderr := runCLI(c.args...)
		if code != c.code || !strings.Contains(stdout+stderr, c.output) {
			t.Errorf("ttftlab %s: exit %d, want %d with %q in:\n%s%s", strings.Join(c.args, " "), code, c.code, c.output, stdout, stderr)
		}
	}
}

// TestTopLevelUsageNamesEverySubcommand: the top-level usage line of a
// command group lists each of its subcommands (it left out `server list`).
func TestTopLevelUsageNamesEverySubcommand(t *testing.T) {
	for name, g := range map[string]*group{"server": serverCommands, "tts": ttsCommands, "stt": sttCommands, "voice": voiceCommands, "model": modelCommands} {
		var top string
		for _, c := range commands.commands {
			if c.name == name {
				top = c.args
			}
		}
		listed := map[string]bool{}
		for _, w := range strings.FieldsFunc(top, func(r rune) bool { return r == '|' || r == ' ' }) {
			listed[w] = true
		}
		for _, c := range g.commands {
			if !listed[c.name] {
				t.Errorf("ttftlab -h shows %q for %s, without its subcommand %q", top, name, c.name)
			}
		}
	}
}
