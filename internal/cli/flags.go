package cli

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/synth"
)

// flagSet is a command's flags and usage text.
type flagSet struct {
	*flag.FlagSet
	env *env
	// synopsis is the usage's first line, e.g. "ttftlab run SCRIPT [flags]";
	// about is text under it.
	synopsis, about string
}

// flags starts a command's flag set; synopsis follows "ttftlab CMD".
func (e *env) flags(synopsis, about string) *flagSet {
	fs := flag.NewFlagSet(label(e.cmd), flag.ContinueOnError)
	fs.SetOutput(nopWriter{}) // parse errors are returned and printed once
	return &flagSet{FlagSet: fs, env: e, synopsis: strings.TrimSpace(label(e.cmd) + " " + synopsis), about: about}
}

type nopWriter struct{}

func (nopWriter) Write(p []byte) (int, error) { return len(p), nil }

// usage is the synopsis, the text under it and the flags.
func (f *flagSet) usage() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Usage: %s\n", f.synopsis)
	if f.about != "" {
		fmt.Fprintf(&b, "\n%s\n", strings.TrimSpace(f.about))
	}
	has := false
	f.VisitAll(func(*flag.Flag) { has = true })
	if has {
		b.WriteString("\nFlags:\n")
		f.SetOutput(&b)
		f.PrintDefaults()
		f.SetOutput(nopWriter{})
	}
	return b.String()
}

// errHelp is returned for -h once the usage is printed: exit 0.
var errHelp = errors.New("help shown")

// parse parses args; -h prints the usage on standard output.
func (f *flagSet) parse(args []string) error {
	err := f.Parse(args)
	switch {
	case errors.Is(err, flag.ErrHelp):
		fmt.Fprint(f.env.Out, f.usage())
		return errHelp
	case err != nil:
		return f.usageErr(err)
	}
	return nil
}

// usageErr is a usage error of this command.
func (f *flagSet) usageErr(err error) error {
	return &usageError{cmd: f.env.cmd, usage: f.usage(), err: err}
}

// usageErrf is usageErr with a message.
func (f *flagSet) usageErrf(format string, args ...any) error {
	return f.usageErr(fmt.Errorf(format, args...))
}

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// targetFlags say where a script's server, output and inputs are.
type targetFlags struct {
	server, out, kb, serverLog string
}

func (t *targetFlags) register(f *flagSet) {
	f.StringVar(&t.server, "server", envOr("TTFTLAB_SERVER", "http://127.0.0.1:8080"), "base URL of the LLM server (env TTFTLAB_SERVER)")
	f.StringVar(&t.out, "out", envOr("TTFTLAB_OUT", "./out"), "folder for artifacts, created if missing (env TTFTLAB_OUT)")
	f.StringVar(&t.kb, "kb", "", "folder of *.md knowledge-base documents (default: the bundled KB)")
	f.StringVar(&t.serverLog, "server-log", "", "llama-server's log `file`, searched for cancellation evidence")
}

// sources tell the Lua host which flag set which value, for its hints.
func (t *targetFlags) sources() map[string]string {
	return map[string]string{"SERVER": "--server", "OUT": "--out", "KB_DIR": "--kb", "SERVER_LOG": "--server-log"}
}

// startFlags say how ttftlab starts llama-server.
type startFlags struct {
	model, llamaServer            string
	ctx, slots, cacheRAM, threads int
	timeout                       time.Duration
}

func (s *startFlags) register(f *flagSet) {
	f.StringVar(&s.model, "model", "", "GGUF model `file` to serve")
	f.IntVar(&s.ctx, "ctx", 4096, "context size (-c)")
	f.IntVar(&s.slots, "slots", 1, "parallel slots (-np)")
	f.IntVar(&s.cacheRAM, "cache-ram", 0, "host-memory prompt cache in MiB (--cache-ram; 0 keeps cache experiments clean)")
	f.IntVar(&s.threads, "threads", 0, "llama-server threads (-t); 0: every core but one, which stays free for ttftlab's reads")
	f.DurationVar(&s.timeout, "timeout", 120*time.Second, "how long to wait for the model to load")
	f.StringVar(&s.llamaServer, "llama-server", "", "llama-server binary (default: $LLAMA_SERVER, PATH, then the installed copy)")
}

// options turn the flags into llamaserver options (host and port are the
// caller's).
func (s *startFlags) options() llamaserver.Options {
	return llamaserver.Options{Binary: s.llamaServer, Model: s.model, Ctx: s.ctx, Slots: s.slots, CacheRAM: s.cacheRAM,
		Threads: s.threads, Timeout: s.timeout}
}

// hostFlags are the flags of the commands that run Lua (run, lab, repl):
// where things are, and how to start a server when none answers.
type hostFlags struct {
	targetFlags
	start startFlags
	keep  bool
	// synthPreset is lab's --synth-preset: the synthetic model to serve
	// when there is neither a server nor --model.
	synthPreset string
}

func (h *hostFlags) register(f *flagSet) {
	h.targetFlags.register(f)
	h.start.register(f)
	f.BoolVar(&h.keep, "keep-server", false, "with --model: leave the started llama-server running afterwards")
}

// registerSynth adds lab's --synth-preset.
func (h *hostFlags) registerSynth(f *flagSet) {
	f.StringVar(&h.synthPreset, "synth-preset", synth.DefaultPreset,
		"with no server at --server and no --model: the synthetic model to build and serve ("+strings.Join(synth.PresetNames(), ", ")+")")
}
