package cli

import (
	"errors"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver"
	"ttftlab/internal/stream"
	"ttftlab/internal/synth"
	"ttftlab/runtime/suggest"
)

// flagSet is a command's flags and usage text.
type flagSet struct {
	*flag.FlagSet
	env *env
	// synopsis is the usage's first line, e.g. "ttftlab run SCRIPT [flags]";
	// about is text under it.
	synopsis, about string
	// args are the arguments that are not flags, in order.
	args []string
	// elsewhere says, for a flag this command lacks but another has, where
	// it belongs and why (lab's --until-decided is ab's).
	elsewhere map[string]string
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

// given are the flags set on the command line, by name.
func (f *flagSet) given() map[string]bool {
	set := map[string]bool{}
	f.Visit(func(fl *flag.Flag) { set[fl.Name] = true })
	return set
}

// errHelp is returned for -h once the usage is printed: exit 0.
var errHelp = errors.New("help shown")

// parse parses args. ttftlab's flags may stand anywhere before "--",
// which ends them: the arguments that are not flags, and everything after
// "--", are Args. -h prints the usage on standard output.
func (f *flagSet) parse(args []string) error {
	f.args = nil
	for {
		err := f.Parse(args)
		switch {
		case errors.Is(err, flag.ErrHelp):
			fmt.Fprint(f.env.Out, f.usage())
			return errHelp
		case err != nil:
			return f.usageErr(f.suggest(err))
		}
		rest := f.FlagSet.Args()
		if ended := len(args) - len(rest); ended > 0 && args[ended-1] == "--" {
			f.args = append(f.args, rest...)
			return nil
		}
		if len(rest) == 0 {
			return nil
		}
		f.args = append(f.args, rest[0])
		args = rest[1:]
	}
}

// suggest adds the nearest flag to the flag package's error for an
// undefined one: "flag provided but not defined: -concurency; did you
// mean --concurrency?".
func (f *flagSet) suggest(err error) error {
	name, ok := strings.CutPrefix(err.Error(), "flag provided but not defined: -")
	if !ok {
		return err
	}
	if where, ok := f.elsewhere[name]; ok {
		return fmt.Errorf("%w: %s", err, where)
	}
	var names []string
	f.VisitAll(func(fl *flag.Flag) { names = append(names, fl.Name) })
	if near := suggest.Nearest(name, names); near != "" {
		return fmt.Errorf("%w; did you mean --%s?", err, near)
	}
	return err
}

// Args are the arguments that are not flags.
func (f *flagSet) Args() []string { return f.args }

// NArg is len(Args()).
func (f *flagSet) NArg() int { return len(f.args) }

// Arg is Args()[i], or "" past the end.
func (f *flagSet) Arg(i int) string {
	if i < len(f.args) {
		return f.args[i]
	}
	return ""
}

// usageErr is a usage error of this command: the message, the synopsis
// and where the flags are listed.
func (f *flagSet) usageErr(err error) error {
	usage := fmt.Sprintf("Usage: %s\nRun '%s -h' for the flags.\n", f.synopsis, label(f.env.cmd))
	return &usageError{cmd: f.env.cmd, usage: usage, err: err}
}

// usageErrf is usageErr with a message.
func (f *flagSet) usageErrf(format string, args ...any) error {
	return f.usageErr(fmt.Errorf(format, args...))
}

// defaultServer is --server's default address, the one where the lab
// serves its synthetic model when nothing answers.
const defaultServer = "http://127.0.0.1:8080"

func envOr(key, def string) string {
	if v := os.Getenv(key); v != "" {
		return v
	}
	return def
}

// targetFlags say where a script's server, output and inputs are.
type targetFlags struct {
	server, out, kb, serverLog string
	// The endpoint's flags: the key, extra headers, TLS, the model name.
	apiKey, apiKeyFile, caCert, modelName string
	headers                               []string
	insecure                              bool
	// ep is the endpoint made of them by check.
	ep *endpoint.Endpoint
	// serverFrom is where the user named the server: "--server",
	// "TTFTLAB_SERVER", or "" for the default address. Set by check.
	serverFrom string
}

func (t *targetFlags) register(f *flagSet) {
	t.registerEndpoint(f)
	f.StringVar(&t.out, "out", envOr("TTFTLAB_OUT", "./out"), "folder for artifacts, created if missing (env TTFTLAB_OUT)")
	f.StringVar(&t.kb, "kb", "", "folder of *.md knowledge-base documents (default: the bundled KB)")
	f.StringVar(&t.serverLog, "server-log", "", "llama-server's log `file`, searched for cancellation evidence")
}

// registerEndpoint adds the flags of the LLM server's endpoint: its URL,
// key, headers, TLS and model name (`voice serve` takes these alone).
func (t *targetFlags) registerEndpoint(f *flagSet) {
	f.StringVar(&t.server, "server", envOr("TTFTLAB_SERVER", defaultServer),
		"base URL of the LLM server, e.g. http://127.0.0.1:8080 or https://api.example.com/v1 (env TTFTLAB_SERVER)")
	f.StringVar(&t.apiKey, "api-key", "", "API key sent as Authorization: Bearer `KEY` (default: $TTFTLAB_API_KEY, else $OPENAI_API_KEY); never printed or written")
	f.StringVar(&t.apiKeyFile, "api-key-file", "", "read the API key from `FILE` (keeps it out of the process list)")
	f.Func("header", "extra request header `'Name: value'` on every request (repeatable); secret-looking values are shown redacted", func(v string) error {
		if _, _, err := endpoint.ParseHeader(v); err != nil {
			return err
		}
		t.headers = append(t.headers, v)
		return nil
	})
	f.StringVar(&t.caCert, "ca-cert", "", "trust the CA certificates in PEM `FILE` for https, besides the system's (SSL_CERT_FILE replaces the system's)")
	f.BoolVar(&t.insecure, "insecure", false, "https without verifying the server's certificate (a warning says so)")
	f.StringVar(&t.modelName, "model-name", "", "model `NAME` sent as \"model\" in every request body (default: the one id GET /v1/models lists)")
}

// check refuses a --server that cannot be a server's base URL before
// anything starts, instead of at the first request.
func (t *targetFlags) check(f *flagSet) error {
	ep, err := endpoint.Parse(t.server)
	var bad *endpoint.URLError
	if errors.As(err, &bad) {
		return f.usageErrf("--server %q: %s", bad.URL, bad.Why)
	}
	t.server = ep.Base
	if ep.Key, ep.KeySource, err = endpoint.ResolveKey(endpoint.KeyFlags{File: t.apiKeyFile, Flag: t.apiKey}); err != nil {
		return f.usageErr(err)
	}
	for _, h := range t.headers {
		name, value, _ := endpoint.ParseHeader(h)
		if ep.Header == nil {
			ep.Header = map[string]string{}
		}
		ep.Header[http.CanonicalHeaderKey(name)] = value
	}
	if ep.TLS, err = endpoint.TLSConfig(t.caCert, t.insecure); err != nil {
		return f.usageErr(err)
	}
	ep.CACert, ep.Insecure = t.caCert, t.insecure
	if t.modelName != "" {
		ep.Model, ep.ModelSource = t.modelName, "--model-name"
	}
	f.Visit(func(fl *flag.Flag) {
		if fl.Name == "server" {
			t.serverFrom = "--server"
		}
	})
	if t.serverFrom == "" && os.Getenv("TTFTLAB_SERVER") != "" {
		t.serverFrom = "TTFTLAB_SERVER"
	}
	name := label(f.env.cmd)
	if ep.Key != "" {
		fmt.Fprintf(f.env.Err, "%s: API key from %s\n", name, ep.KeySource)
	}
	if t.insecure {
		fmt.Fprintf(f.env.Err, "%s: warning: --insecure: the server's TLS certificate is not verified; anyone on the path can read and change the traffic, the API key included\n", name)
	}
	t.ep = ep
	return nil
}

// sources tell the Lua host which flag set which value, for its hints.
func (t *targetFlags) sources() map[string]string {
	server := t.serverFrom
	if server == "" {
		server = "--server"
	}
	return map[string]string{"SERVER": server, "OUT": "--out", "KB_DIR": "--kb", "SERVER_LOG": "--server-log"}
}

// startFlags say how ttftlab starts llama-server.
type startFlags struct {
	model, llamaServer            string
	ctx, slots, cacheRAM, threads int
	timeout                       time.Duration
	// extra are more llama-server arguments a command needs (load asks
	// for --metrics).
	extra []string
}

func (s *startFlags) register(f *flagSet) {
	f.StringVar(&s.model, "model", "", "GGUF model `file` to serve")
	f.intVar(&s.ctx, "ctx", 4096, 1, noLimit, "total context size in tokens (-c), split between the slots")
	f.intVar(&s.slots, "slots", 1, 1, 1024, "parallel slots (-np)")
	f.intVar(&s.cacheRAM, "cache-ram", 0, -1, noLimit, "host-memory prompt cache in MiB (--cache-ram; 0 keeps cache experiments clean, -1 no limit)")
	f.intVar(&s.threads, "threads", 0, 0, 4096, "llama-server threads (-t); 0: every core but one, which stays free for ttftlab's reads")
	f.durationVar(&s.timeout, "timeout", 120*time.Second, "how long to wait for the model to load, e.g. 90s or 5m")
	f.StringVar(&s.llamaServer, "llama-server", "", "llama-server binary (default: $LLAMA_SERVER, PATH, then the installed copy)")
}

// options turn the flags into llamaserver options (host and port are the
// caller's).
func (s *startFlags) options() llamaserver.Options {
	return llamaserver.Options{Binary: s.llamaServer, Model: s.model, Ctx: s.ctx, Slots: s.slots, CacheRAM: s.cacheRAM,
		Threads: s.threads, Timeout: s.timeout, Extra: s.extra}
}

// hostFlags are the flags of the commands that run Lua (run, lab, load,
// repl): where things are, how to start a server when none answers, and
// how long a request may take.
type hostFlags struct {
	targetFlags
	start startFlags
	keep  bool
	// requestTimeout is --request-timeout: the whole-request bound of every
	// stream() and stream_many() request whose opts set no timeout_ms. A
	// command that wants another default than defaultRequestTimeout sets it
	// before register.
	requestTimeout time.Duration
	// synthPreset is lab's --synth-preset: the synthetic model to serve
	// when there is neither a server nor --model; synthAsked is true when
	// the flag was given, which asks for it at a server the user named.
	synthPreset string
	synthAsked  bool
	// api is --api: the streaming API of every request whose opts set
	// none (the Lua global API).
	api stream.API
	// tts is the speech server (--tts and its flags).
	tts ttsFlags
	// stt is the caller's side: the speech-to-text server (--stt and its
	// flags) and the caller's audio.
	stt sttFlags
	// realtime is the Realtime server of session() (--realtime and its
	// flags), registered by run, repl and lab only.
	realtime realtimeFlags
}

// check refuses the target's, the speech server's and the speech-to-text
// server's flags that cannot work, before anything starts.
func (h *hostFlags) check(f *flagSet) error {
	if err := h.targetFlags.check(f); err != nil {
		return err
	}
	f.Visit(func(fl *flag.Flag) { h.synthAsked = h.synthAsked || fl.Name == "synth-preset" })
	if err := h.tts.check(f); err != nil {
		return err
	}
	if err := h.realtime.check(f); err != nil {
		return err
	}
	return h.stt.check(f)
}

func (h *hostFlags) register(f *flagSet) {
	h.targetFlags.register(f)
	h.start.register(f)
	f.BoolVar(&h.keep, "keep-server", false, "with --model: leave the started llama-server running afterwards")
	def := h.requestTimeout
	if def == 0 {
		def = defaultRequestTimeout
	}
	f.durationVar(&h.requestTimeout, "request-timeout", def,
		"fail a streamed request that takes longer than `DURATION` in all, keep-alive comments included "+
			"(error kind timeout; a script's opts.timeout_ms overrides it); --timeout bounds the model load")
	f.Var((*apiFlag)(&h.api), "api", "streaming `API` of every request: chat (/v1/chat/completions), completions (/v1/completions) "+
		"or responses (/v1/responses); a script's opts.api overrides it")
	h.tts.register(f)
	h.stt.register(f)
}

// apiFlag is --api's value.
type apiFlag stream.API

func (a *apiFlag) String() string { return stream.API(*a).String() }

func (a *apiFlag) Set(s string) error {
	api, err := stream.ParseAPI(s)
	*a = apiFlag(api)
	return err
}

// defaultRequestTimeout is --request-timeout of run, lab and repl: above
// the lab's longest request (a long answer or a full-context prefill of a
// big model on a CPU) with room to spare, yet an end for a server that
// sends keep-alive comments and never a token.
const defaultRequestTimeout = 10 * time.Minute

// registerSynth adds lab's --synth-preset.
func (h *hostFlags) registerSynth(f *flagSet) {
	f.StringVar(&h.synthPreset, "synth-preset", synth.DefaultPreset,
		"with no server answering and no --model: the synthetic model to build and serve ("+strings.Join(synth.PresetNames(), ", ")+
			"); unasked, only at the default --server, given, also at a --server you name")
}
