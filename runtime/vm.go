package runtime

import (
	"context"
	"io"
	"strings"
	"time"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
	"ttftlab/runtime/luaerror"
	"ttftlab/runtime/luajson"
	"ttftlab/runtime/request"
	"ttftlab/runtime/session"
	"ttftlab/runtime/speak"
)

// Config is what a script run needs from the command line.
type Config struct {
	// Server is the base URL of the LLM server, e.g. http://127.0.0.1:8080.
	// With Endpoint set it is Endpoint.Base.
	Server string
	// Endpoint is the server and how to reach it (API key, headers, TLS,
	// model name); nil: Server with none of them.
	Endpoint *endpoint.Endpoint
	// Out is the folder results are written to; the file bindings create
	// it at their first write, so a run that writes nothing leaves none.
	Out string
	// KBDir is the knowledge-base folder; "" means the bundled one.
	KBDir string
	// ServerLog is the llama-server log file; "" means none.
	ServerLog string
	// Args become the script's global `arg` (arg[1], arg[2], ...).
	Args []string
	// StopOnFailure sets KEEP_GOING to false (the lab then stops at its
	// first failed step).
	StopOnFailure bool
	// Preflight sets PREFLIGHT: the script only checks its inputs, and
	// may return what its run will need of the command (VM.Needs).
	Preflight bool
	// Repeat sets REPEAT: how many times the lab's steps repeat their
	// measurement (lab's --repeat); 0 leaves REPEAT nil (the steps' own
	// default).
	Repeat int
	// Turn, when set, is take_turn(step): it returns when this run may
	// measure the step's next repetition (ttftlab ab runs two set-ups
	// A B B A, one at a time); nil: take_turn returns at once.
	Turn func(step string) error
	// Command is TTFTLAB, how the user runs ttftlab ("ttftlab" when empty).
	Command string
	// Sources say where the user set a value, for the hints in errors:
	// e.g. Sources["SERVER"] = "--server". A value not listed is named by
	// its global.
	Sources map[string]string
	// Wire and NoKernelStamps choose how stream() reads answers (see
	// stream.Request); the zero values take the most exact way there is.
	// They are for measuring the ways against each other (ttftlab
	// calibrate), not for scripts.
	Wire           stream.Wire
	NoKernelStamps bool
	// RequestTimeout bounds the whole of every stream() and stream_many()
	// request whose opts do not set timeout_ms, comment frames and all
	// (error kind "timeout"); 0: no bound. The command line sets it from
	// --request-timeout.
	RequestTimeout time.Duration
	// API is the streaming API of every stream() and stream_many()
	// request whose opts do not set api (the command's --api); the zero
	// value is chat.
	API stream.API
	// Kind is the kind of server at Server ("llama.cpp", "vllm", "sglang",
	// "ollama", "openai-compatible") as the command line detected it, with
	// its evidence and version; a zero Kind.Kind leaves it to be detected
	// when a script asks (server_caps()) and request bodies as the script
	// built them.
	Kind servers.Detection
	// NotLLM is what the command found at Server when something answered
	// there, but not as an LLM server (llamaserver's NotLLMError); nil
	// otherwise. A request to Server that gets an answer then says so
	// instead of showing the other program's page.
	NotLLM error
	// TTS is the speech server of speak(); nil: none (speak() says how to
	// name one).
	TTS *TTS
	// STT is the caller's side of listen() and stream()'s opts.stt: the
	// speech-to-text server and the caller's audio; nil: none (they say
	// how to name one).
	STT *request.Caller
	// Realtime is the Realtime server of session() (--realtime) and the
	// espeak-ng its text turns are spoken with; nil: none (session() says
	// how to name one).
	Realtime *Realtime
	// Stdout receives print, io.write and io.stdout:write; Stderr
	// receives eprint and io.stderr:write.
	// nil means os.Stdout / os.Stderr.
	Stdout, Stderr io.Writer
}

// Needs is what a script run with PREFLIGHT says its real run will need
// of the command, read from the table the script returns: {tts = true}
// asks for a speech server (the lab's speech steps), which the command
// then starts (--tts default) unless --tts names one; {stt = true} for a
// speech-to-text server and the caller's audio (the call step), started
// likewise (--stt default) unless --stt names one.
type Needs struct {
	TTS, STT bool
}

// VM is one Lua state with the lab's bindings. It is not safe for
// concurrent use: every call must come from one goroutine.
type VM struct {
	L   *lua.LState
	cfg Config
	// ctx is the caller's context; runCtx is derived per run so os.exit can
	// stop the script without cancelling the caller.
	ctx       context.Context
	cancelRun context.CancelFunc
	// exit is set by os.exit; the run then ends with an *ExitError.
	exit *ExitError
	// hostErr is the message of the last failure a binding raised that is
	// not the Lua code's (hostError, writeError): it ends the run without
	// a traceback.
	hostErr string
	// writeErr is the failed write that raised hostErr (writeError), nil
	// when another host failure did.
	writeErr *WriteError
	// needs is what the script, run with PREFLIGHT, returned.
	needs Needs
	// src is where relative dofile/loadfile names are looked up: the
	// folder of the file currently running, on disk or inside an fs.FS.
	src source
	// root is the source of the script given to Run*: its own modules
	// are looked up there.
	root source
	// defaultPath is package.path before a script's folder is prepended.
	defaultPath string
	// json is the state's Lua <-> JSON conversion, with the marks
	// (json_array, json_object, json_null) that steer it.
	json *luajson.Codec
	// req is the bindings that send requests to the server (stream(),
	// get, post, ...), with what they remember between calls.
	req *request.Binder
	// speak is the bindings of the speech server (speak(), speak_start(),
	// tts_info(), the tts option of stream() and stream_many()).
	speak *speak.Binder
	// session is the binding of speech-to-speech sessions (session(),
	// realtime_info()).
	session *session.Binder
	// logStart is where the server log stood when the VM was made: what
	// log_contains searches by default.
	logStart logMark
	// runBegan is when the current run (a script, a REPL line) began:
	// stream_many's run_ms count from it, one time axis across its calls.
	runBegan time.Time
}

// State gives direct access to the Lua state, e.g. for an interactive
// prompt. Use it from the goroutine that runs the VM only.
func (vm *VM) State() *lua.LState { return vm.L }

// Close releases the Lua state.
func (vm *VM) Close() {
	if vm.cancelRun != nil {
		vm.cancelRun()
	}
	vm.L.Close()
}

// source names where the user set the value of a global, for hints:
// "--server" from the command line, else the global itself.
func (vm *VM) source(global string) string {
	if s := vm.cfg.Sources[global]; s != "" {
		return s
	}
	return global
}

// setFunc installs a guarded binding as a global, or in a library table
// when name is "lib.name" (os.exit).
func (vm *VM) setFunc(name string, f lua.LGFunction) {
	fn := vm.L.NewFunction(luaerror.Guard(name, f))
	lib, field, ok := strings.Cut(name, ".")
	if !ok {
		vm.L.SetGlobal(name, fn)
		return
	}
	if tbl, ok := vm.L.GetGlobal(lib).(*lua.LTable); ok {
		vm.L.SetField(tbl, field, fn)
	}
}

// endpoint is the server every request goes to unless opts.server says
// otherwise: Config.Endpoint, else one made of Config.Server.
func (vm *VM) endpoint() *endpoint.Endpoint { return vm.cfg.Endpoint }

// callCtx is the context a blocking binding must honour.
func (vm *VM) callCtx(L *lua.LState) context.Context {
	if ctx := L.Context(); ctx != nil {
		return ctx
	}
	return vm.ctx
}

// InterruptedStream is what a stream() call had received when a cancelled
// context (Ctrl-C) stopped it and with it the whole run.
type InterruptedStream = request.InterruptedStream

// Interrupted returns the stream() call that a cancelled context stopped
// during the last run, or nil. A host that cancels runs on Ctrl-C uses it
// to show what had arrived.
func (vm *VM) Interrupted() *InterruptedStream { return vm.req.Interrupted() }

// StreamOptionNames are the names stream()'s opts may hold.
func StreamOptionNames() []string { return request.StreamOptionNames() }

// TTS is the speech server of speak(): where it is and how to ask it.
type TTS = speak.TTS

// Realtime is the Realtime server of session(): where it is, how to
// reach it, and the espeak-ng that speaks the caller's text turns.
type Realtime = session.Server
