// Package cli is ttftlab's command line: one file per command, each a type
// with Run(ctx, args) error and its usage. Main dispatches, prints a
// command's error once and maps it to the exit code once.
package cli

import (
	"context"
	"io"
	"os"
)

// Stdio are the streams a command reads and writes.
type Stdio struct {
	In       io.Reader
	Out, Err io.Writer
}

// OS is the process's own streams.
func OS() Stdio { return Stdio{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

// commands is ttftlab's top level.
var commands = &group{
	about: "ttftlab: measure how an LLM server streams its answer",
	commands: []command{
		{"run", "SCRIPT [flags] [-- args]", "run a Lua script", newRun},
		{"lab", "[flags] [-- STEP...]", "run the whole lab (scripts/lab.lua)", newLab},
		{"ab", "[flags] --a 'FLAGS' --b 'FLAGS' [-- STEP...]", "the lab of set-ups A and B taking turns, then B against A", newAB},
		{"load", "[flags]", "many calls at once, a level at a time: the server's voice capacity", newLoad},
		{"merge", "DIR... --out DIR", "merge the shard folders of a sharded load run into one load folder", newMerge},
		{"check", "OUT_DIR [--server-log FILE]", "verify a lab output folder", newCheck},
		{"report", "DIR [DIR_B] [--out FILE]", "draw a run's HTML report, or compare two runs", newReport},
		{"server", "up|status|list|log|down|install", "manage a local llama-server", func(e *env) runner { return serverCommands.runner(e) }},
		{"model", "synth --out FILE [flags]", "write a synthetic GGUF model", func(e *env) runner { return modelCommands.runner(e) }},
		{"tts", "serve|install", "the default speech engine, espeak-ng behind /v1/audio/speech", func(e *env) runner { return ttsCommands.runner(e) }},
		{"stt", "serve|install", "the default speech-to-text engine, pocketsphinx behind /v1/audio/transcriptions and /v1/realtime", func(e *env) runner { return sttCommands.runner(e) }},
		{"voice", "serve", "a reference cascaded voice agent behind OpenAI's Realtime API (pocketsphinx, the LLM server, espeak-ng)", func(e *env) runner { return voiceCommands.runner(e) }},
		{"repl", "[flags] [-l SCRIPT]...", "interactive Lua prompt (also: ttftlab on a terminal)", newRepl},
		{"calibrate", "[flags]", "measure ttftlab's own stamp precision", newCalibrate},
		{"version", "", "print the version", newVersion},
	},
}

// Main runs one command line and returns the process's exit code.
func Main(ctx context.Context, args []string, stdio Stdio) int {
	e := newEnv(stdio)
	defer e.signals.stopWatching()
	ctx = e.signals.context(ctx)
	if len(args) == 0 && stdinIsTerminal(stdio) {
		args = []string{"repl"}
	}
	return e.exit(commands.runner(e).Run(ctx, args))
}
