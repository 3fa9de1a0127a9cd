package runtime

import (
	"context"
	"os"
	"strings"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/voice"
	"ttftlab/runtime/luaerror"
	"ttftlab/runtime/luajson"
	"ttftlab/runtime/request"
	"ttftlab/runtime/runs"
	"ttftlab/runtime/session"
	"ttftlab/runtime/speak"
	"ttftlab/stdlib"
)

// EntryKind says what an Entry of the host API is.
type EntryKind string

// Kinds of entries.
const (
	// Function is a global function the host adds (stream, write_json, ...).
	Function EntryKind = "function"
	// Standard is a function of Lua's own library that the host replaces
	// (print, error, os.exit, ...).
	Standard EntryKind = "standard"
	// Global is a global value (SERVER, OUT, ...).
	Global EntryKind = "global"
)

// Entry documents one name of the Lua host API. The registry below is the
// one list of them: it installs every name in a new VM, it feeds the REPL's
// :help and completion, and a test holds docs/lua-api.md to it.
type Entry struct {
	// Name is the global's name, or "lib.name" (os.exit).
	Name string
	Kind EntryKind
	// Signature is how a call reads, e.g.
	// "stream(messages, opts) -> chunks, total_ms, timings, info"; for a
	// global it is the name.
	Signature string
	// Summary is one line.
	Summary string
	// Help is what :help NAME shows beyond the summary ("" for nothing
	// more); docs/lua-api.md has the full reference.
	Help string

	// fn is a function entry's Go function.
	fn func(vm *VM, L *lua.LState) int
	// value is a global entry's value.
	value func(vm *VM) lua.LValue
	// install sets up an entry that is more than one function or value.
	install func(vm *VM)
}

// API returns the host API, in the order :help lists it.
func API() []Entry {
	return append([]Entry(nil), registry...)
}

// installAPI installs every entry of the registry.
func (vm *VM) installAPI() {
	for _, e := range registry {
		switch {
		case e.install != nil:
			e.install(vm)
		case e.fn != nil:
			fn := e.fn
			vm.setFunc(e.Name, func(L *lua.LState) int { return fn(vm, L) })
		case e.value != nil:
			vm.L.SetGlobal(e.Name, e.value(vm))
		}
	}
}

// luaOptions raise gopher-lua's defaults: 256 call frames and a fixed
// 5120-slot registry break on deep recursion and on unpack/table.concat of
// large tables.
var luaOptions = lua.Options{
	CallStackSize:    1024,
	RegistrySize:     20480,
	RegistryMaxSize:  1 << 20,
	RegistryGrowStep: 1024,
}

// New creates the output folder and a Lua state with the host API (see
// API) installed. Cancelling ctx stops a running script, also a busy loop.
func New(ctx context.Context, cfg Config) (*VM, error) {
	if ctx == nil {
		ctx = context.Background()
	}
	if cfg.Stdout == nil {
		cfg.Stdout = os.Stdout
	}
	if cfg.Stderr == nil {
		cfg.Stderr = os.Stderr
	}
	if cfg.Endpoint == nil {
		base := strings.TrimRight(cfg.Server, "/")
		if clean, err := endpoint.ParseBase(cfg.Server); err == nil {
			base = clean
		}
		cfg.Endpoint = &endpoint.Endpoint{Base: base}
	}
	cfg.Server = cfg.Endpoint.Base
	if cfg.Command == "" {
		cfg.Command = "ttftlab"
	}
	vm := &VM{L: lua.NewState(luaOptions), cfg: cfg, ctx: ctx}
	vm.L.SetContext(ctx)
	vm.json = luajson.New(vm.L)
	if cfg.ServerLog != "" {
		vm.logStart, _ = markLog(cfg.ServerLog) // an unreadable log fails at its first use
	}
	vm.req = request.New(request.Host{Server: cfg.Server, Endpoint: cfg.Endpoint, ServerFrom: vm.source("SERVER"),
		RequestTimeout: cfg.RequestTimeout, Wire: cfg.Wire, NoKernelStamps: cfg.NoKernelStamps, API: cfg.API,
		Kind: cfg.Kind, NotLLM: cfg.NotLLM, JSON: vm.json, Ctx: vm.callCtx, Fail: vm.hostError, OutPath: vm.outPath,
		Speech: func(L *lua.LState) *voice.Speech { return vm.speak.StreamSpeech(L) }, SinceStart: msSinceStart, STT: cfg.STT})
	vm.speak = speak.New(speak.Host{TTS: cfg.TTS, RequestTimeout: cfg.RequestTimeout, Wire: cfg.Wire, NoKernelStamps: cfg.NoKernelStamps,
		Ctx: vm.callCtx, Fail: vm.hostError, Requests: vm.req, SinceStart: msSinceStart})
	vm.session = session.New(session.Host{Server: cfg.Realtime, Ctx: vm.callCtx, Fail: vm.hostError, SinceStart: msSinceStart})
	vm.installAPI()
	return vm, nil
}

// runsHost is what the runs and ab bindings take from the host.
func (vm *VM) runsHost() runs.Host {
	return runs.Host{Stderr: vm.cfg.Stderr, Null: vm.json.Null(), CallModule: callModule}
}

var registry = []Entry{
	{Name: "stream", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.Stream(L) },
		Signature: "stream(messages, opts) -> chunks, total_ms, timings, info",
		Summary:   "One streamed chat completion on a fresh connection, every content chunk timed.",
		Help:      streamHelp},
	{Name: "stream_many", Kind: Function, fn: (*VM).streamMany,
		Signature: "stream_many(requests, opts) -> results, summary",
		Summary:   "Many streamed requests at once (opts.concurrency or opts.rate), as calls of opts.turns turns, each timed as stream() times it; a failure is a result.",
		Help: `requests: an array of {messages, opts} pairs, or a function
(i, call, turn, previous, draw) -> messages, opts, called when the turn is
due (previous: the call's last result; draw: the call's seeded number in
[0, 1); nil ends the list, false waits until a running request ends). A request's opts take every stream() option, plus tags.
opts: concurrency (calls at once), rate (calls per second), arrival
("constant" or "poisson"), seed, calls, turns, think_ms (ms, {min, max} or
function(call, turn) -> ms), duration_ms, warmup, warmup_ms, on_result(result) (false
stops new starts), progress, record = {jsonl =, csv =, tags =, columns =},
watch = {file =, every_ms =, tags =}.
results[i]: index, start_ms, run_ms, scheduled_ms, queue_ms, chunks, total_ms,
timings, info, first_sentence_ms, stall_ms, error, error_kind, warmup, tags.
summary: requests, ok, errors, cut, warmup, duration_ms, requests_per_s,
tokens_per_s, and {n, p50, p90, p95, p99, mean, max} of ttft_ms,
first_sentence_ms, total_ms, gap_ms, queue_ms, stall_ms.`},
	{Name: "get", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.Get(L) },
		Signature: "get(path) -> status, body_text",
		Summary:   "GET a server path (or a full URL); any status is returned, not raised.",
		Help:      `  local status, body = get("/metrics")`},
	{Name: "post", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.Post(L) },
		Signature: "post(path, body) -> decoded, body_text, status",
		Summary:   "POST a table (as JSON) or a string to a server path; any status is returned, not raised.",
		Help: "decoded is nil when the answer is not JSON.\n" +
			`  local r = post("/tokenize", {content = "Hello"})` + "\n  print(#r.tokens)"},
	{Name: "health", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.Health(L) },
		Signature: "health() -> decoded, body_text, status",
		Summary:   "GET /health, decoded; a 503 (model loading) is returned, not raised."},
	{Name: "props", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.Props(L) },
		Signature: "props() -> decoded, body_text, status",
		Summary:   "GET /props, decoded: default_generation_settings.n_ctx, total_slots, ..."},
	{Name: "slots", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.Slots(L) },
		Signature: "slots() -> decoded, body_text, status",
		Summary:   "GET /slots, decoded: one entry per slot with id, is_processing, ..."},
	{Name: "server_info", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.ServerInfo(L) },
		Signature: "server_info() -> info",
		Summary:   "What ttftlab knows about SERVER: url, endpoint (key shown only as its source), healthy, model, n_ctx, slots, processing, tracked, pid, log_path."},
	{Name: "server_caps", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.ServerCaps(L) },
		Signature: "server_caps() -> caps",
		Summary:   "The kind of server at SERVER (llama.cpp, vllm, sglang, ollama, openai-compatible) and what it offers: health, flush, timings, cached_tokens, slots, running_metric, ..."},
	{Name: "running_requests", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.RunningRequests(L) },
		Signature: "running_requests() -> n | nil, why",
		Summary:   "The requests SERVER is processing now, from its /metrics gauge under the kind's name; nil and why when it serves none."},
	{Name: "speak", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.speak.Speak(L) },
		Signature: "speak(text, opts) -> info",
		Summary:   "Text to the speech server (POST /v1/audio/speech), its audio read as it arrives: first_audio_ms, first_voiced_ms, audio_ms.",
		Help: `The speech server is --tts (a URL, or default: espeak-ng started for the
run) or opts.server. opts: voice (default: from the text's script: en, cmn,
ko, ja), format ("pcm", 24 kHz 16-bit mono as OpenAI defines it, or "wav"),
sample_rate (pcm's, when the server's differs), speed, model (default
tts-1), headers, timeout_ms, on_audio(t_ms, so) (false hangs up), errors
("return" puts a failure in info.error instead of raising).
info: first_audio_ms (the first sample after any header), first_voiced_ms
(the first sample above 1 % of full scale), voice_starts_ms (the leading
silence), audio_ms (the length received), total_ms, headers_ms, rtf (time
from first to last sample over audio_ms), audio_bytes, header_bytes,
sample_rate, channels, voice, done, cut, status, stamp_source. Times count
from t0, the request's first byte written, as stream()'s do.`},
	{Name: "tts_info", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.speak.TTSInfo(L) },
		Signature: "tts_info() -> info | nil, why",
		Summary:   "The speech server of speak() (--tts): url, source, model, format, voice, engine (the default engine's name), api_key (only how it was set); nil and why without one."},
	{Name: "stt_info", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.STTInfo(L) },
		Signature: "stt_info() -> info | nil, why",
		Summary:   "The caller's speech-to-text side (--stt): url, api, engine (the default engine's name), model, language, caller_audio, api_key (only how it was set), cpu_ms; nil and why without one."},
	{Name: "speak_start", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.speak.SpeakStart(L) },
		Signature: "speak_start(text, opts) -> handle",
		Summary:   "speak(text, opts) started in the background: handle:wait() -> info, handle:cancel(), handle:done().",
		Help: `The request runs on a goroutine of its own, so a script can send each
sentence to the speech server while the answer still streams (require
"voice" does). opts are speak()'s but on_audio and errors; handle:wait()
returns speak()'s info, a failure in info.error (never raised);
handle:cancel() hangs up (info.cut); handle:done() says whether it ended.
info.t0_ms places the request on now_ms()'s clock.`},
	{Name: "listen", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.req.Listen(L) },
		Signature: "listen(text_or_wav, opts) -> info",
		Summary:   "The caller speaks: text spoken by espeak-ng (or the turn's --caller-audio file), or a .wav file, sent to the speech-to-text server (--stt) as a phone line sends it; the transcript and its stamps.",
		Help: `opts: voice (espeak-ng's, for text), text (what a .wav says, for wer),
api (openai, openai-stream, whisper, realtime, vllm-realtime), language,
frame_ms, silence_ms, timeout_ms, errors ("return" puts a failure in
info.error and info.error_kind instead of raising).
info: text (the transcript), said, wer, api, dialect, source, engine, rate, audio_ms,
speech_end_ms, sent_ms, speech_started_ms, speech_stopped_ms,
first_partial_ms, final_ms, queue_ms, silence_frames, endpointing_ms,
stt_final_ms, stt_first_partial_ms, transcription_ms, t0_ms. Times are ms
on the turn clock: 0 is when the caller began to speak.
  local h = listen("What time do you open on Saturday?")
  print(h.text, h.wer, h.stt_final_ms)`},
	{Name: "session", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.session.Session(L) },
		Signature: "session(url, opts) -> result",
		Summary:   "A speech-to-speech session with a Realtime server (url, or --realtime when nil): the caller's turns spoken as a phone line sends them, every turn's stamps and figures (mouth_to_ear_ms, the server's VAD, barge-in).",
		Help: `opts: turns = {{say = TEXT_OR_WAV, barge_after_ms = N}, ...} (text spoken by
espeak-ng, or a .wav file; barge_after_ms: the next turn starts this long
after this turn's first audio delta, over the answer), voice, instructions,
model, frame_ms, timeout_ms (a turn's, from its speech end), cancel_after_ms,
events (true: each turn's events with their stamps), errors ("return": a
failure is result.error and result.error_kind, result.turns the turns
measured, the failed one last).
result: server, dialect ("openai-ga" or "beta"), rate, turns: each turn's
fields as realtime.json has them (turn, said, audio_ms, speech_end_ms,
speech_stopped_ms, first_audio_ms, mouth_to_ear_ms, audio_after_cancel_ms,
...; nil when the turn never reached it) and t0_ms. Times are ms on the
turn's clock: 0 is when its first speech frame left.
  local r = session(nil, {turns = {{say = "When do you open?", barge_after_ms = 300}, {say = "Stop. Saturday?"}}})
  print(r.turns[1].mouth_to_ear_ms, r.turns[1].audio_after_cancel_ms)`},
	{Name: "realtime_info", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.session.Info(L) },
		Signature: "realtime_info() -> info | nil, why",
		Summary:   "The Realtime server of session() (--realtime): url, model, api_key (only how it was set); nil and why without one."},
	{Name: "voice_play", Kind: Function, fn: func(_ *VM, L *lua.LState) int { return voicePlay(L) },
		Signature: "voice_play(sentences) -> result",
		Summary:   "The playback arithmetic of require(\"voice\").play: the sentences played in order as a speaker plays them as their audio comes.",
		Help: "sentences: {first_audio_ms =, audio_done_ms =, audio_ms =} each (one time axis); one without first_audio_ms is skipped.\n" +
			"Each gains start_ms and end_ms; result: start_ms, end_ms, underrun_ms, underruns, sentences."},
	{Name: "speech_pacing", Kind: Function, fn: func(_ *VM, L *lua.LState) int { return speechPacing(L) },
		Signature: "speech_pacing(chunks, opts) -> result",
		Summary:   "require(\"speech\").pacing: a streamed answer read aloud at a speaker's pace, each sentence spoken once it is ready and the one before has been spoken.",
		Help: "chunks: stream()'s chunks ({t_ms =, text =} in arrival order). opts: chars_per_s (15), tts_ms (0), min_clause_chars (20).\n" +
			"result: start_ms, end_ms, stall_ms, stalls, speak_ms, first_sentence_ms, first_clause_ms,\n" +
			"sentences = {{text =, chars =, ready_ms =, start_ms =, end_ms =}, ...}."},
	{Name: "speech_first_clause_ms", Kind: Function, fn: func(_ *VM, L *lua.LState) int { return speechFirstClauseMs(L) },
		Signature: "speech_first_clause_ms(chunks, opts) -> t_ms, clause | nil",
		Summary:   "require(\"speech\").first_clause_ms: the chunk after which the answer's first clause is decided, and that clause.",
		Help:      "opts: min_clause_chars (20; min_chars is its older name). nil for no chunks or no text."},
	{Name: "kb_docs", Kind: Function, fn: (*VM).kbDocs,
		Signature: "kb_docs([dir]) -> docs",
		Summary:   "The knowledge-base documents as {name=, text=}, sorted by file name.",
		Help:      `dir defaults to KB_DIR; nil (or "") means the KB built into ttftlab.`},
	{Name: "write_json", Kind: Function, fn: (*VM).writeJSON,
		Signature: "write_json(path, value) -> full_path",
		Summary:   "Write value as indented JSON with sorted keys, atomically.",
		Help: "path is relative to OUT unless absolute. Use json_array()/json_object()\n" +
			"where an empty table must be [] or {}, json_null for null."},
	{Name: "append_jsonl", Kind: Function, fn: (*VM).appendJSONL,
		Signature: "append_jsonl(path, value) -> full_path",
		Summary:   "Append value as one compact JSON line (flushed to disk)."},
	{Name: "read_json", Kind: Function, fn: (*VM).readJSON,
		Signature: "read_json(path) -> value",
		Summary:   "Parse a JSON file; arrays and objects come back marked, null as json_null."},
	{Name: "write_text", Kind: Function, fn: (*VM).writeText,
		Signature: "write_text(path, text) -> full_path",
		Summary:   "Write a string to a file, atomically (relative to OUT unless absolute)."},
	{Name: "read_text", Kind: Function, fn: (*VM).readText,
		Signature: "read_text(path) -> text",
		Summary:   "Read a whole file (relative to OUT unless absolute)."},
	{Name: "json_array", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.json.MarkArray(L) },
		Signature: "json_array([t]) -> t",
		Summary:   "Mark a table (a new one without t) so write_json writes a JSON array."},
	{Name: "json_object", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.json.MarkObject(L) },
		Signature: "json_object([t]) -> t",
		Summary:   "Mark a table (a new one without t) so write_json writes a JSON object."},
	{Name: "now_ms", Kind: Function, fn: func(_ *VM, L *lua.LState) int { return nowMs(L) },
		Signature: "now_ms() -> ms",
		Summary:   "Monotonic milliseconds since ttftlab started; only differences mean something."},
	{Name: "sleep_ms", Kind: Function, fn: func(_ *VM, L *lua.LState) int { return sleepMs(L) },
		Signature: "sleep_ms(ms)",
		Summary:   "Pause; Ctrl-C ends the pause."},
	{Name: "search_next", Kind: Function, fn: func(_ *VM, L *lua.LState) int { return searchNext(L) },
		Signature: "search_next(path, most, [opts]) -> next | nil, capacity, info",
		Summary:   "A capacity search's next level (doubling, then bisection, then rounds that confirm the boundary), or nil and the capacity.",
		Help: "path: the rounds run so far, {{level = n, met = bool}, ...}; most: the largest level to try.\n" +
			"opts (confirmation by intervals, rates): {slo = {{percentile =, limit_ms =}, ...}, calls =, budget =, rate =, start =};\n" +
			"each round then also has calls =, failed =, over_saturated =, slo = {{values = {...}, late = n}, ...}.\n" +
			"info: calls (of the next round), levels (each level's pooled verdict), and when done decided and between."},
	{Name: "trend", Kind: Function, fn: func(_ *VM, L *lua.LState) int { return trend(L) },
		Signature: "trend(xs, [min_rise]) -> info",
		Summary:   "How a figure moved over a level's requests (in start order): the medians of its thirds with their 95 % intervals, rising and steady.",
		Help: "xs: one figure per request in the order they started, math.huge for a late one; min_rise: the rise of the\n" +
			"median from the first third to the last that counts as growth. info: rising (each third's median interval\n" +
			"wholly above the one before, and risen by min_rise), steady (the first and last thirds' intervals overlap, or medians within 10 % or min_rise),\n" +
			"known (each third has 6 requests or more), thirds = {{from, n, p50, lo, hi}, ...}."},
	{Name: "run_info", Kind: Function, fn: (*VM).runInfo,
		Signature: "run_info([props]) -> {model =, server =}",
		Summary:   "What a run measured: the model the numbers belong to and the server's settings, as load.json and report.json record them.",
		Help: "props: the server's /props as read before (nil or {} for a server without it). model: name, path, synthetic;\n" +
			"server: n_ctx, slots, threads, cache_ram, args (those three for a server ttftlab started), build, endpoint, kind."},
	{Name: "sentence_end", Kind: Function, fn: func(_ *VM, L *lua.LState) int { return sentenceEnd(L) },
		Signature: "sentence_end(text, final) -> end_index | nil",
		Summary:   "Where text's first sentence ends (its last byte's index), nil while more text could change it; final: no more will come.",
		Help: "The rules of require(\"sentence\") (stdlib/README.md), which binds it: sentence.first(text, final)\n" +
			"is text:sub(1, end_index), end_index.\n" +
			`  print(sentence_end("We open at 8 a.m. Please call.", false))   -- 17`},
	{Name: "clause_end", Kind: Function, fn: func(_ *VM, L *lua.LState) int { return clauseEnd(L) },
		Signature: "clause_end(text, final, [min_chars]) -> end_index | nil",
		Summary:   "sentence_end, or earlier the end of the first clause mark (, ; : – — or a spaced -) after min_chars characters (default 20).",
		Help:      "sentence.first_clause binds it."},
	{Name: "char_count", Kind: Function, fn: func(_ *VM, L *lua.LState) int { return charCount(L) },
		Signature: "char_count(text) -> n",
		Summary:   "The UTF-8 characters of text: every byte that does not continue one (a broken byte counts as one).",
		Help:      "sentence.chars binds it."},
	{Name: "runs", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.runsHost().Runs(L) },
		Signature: "runs(n, fn) -> figures",
		Summary:   "Call fn(i) for i = 1..n and pool what each returns into figures with 95 % intervals, as --runs does; print() shows them.",
		Help: `fn returns a number (figure "value"), an array of numbers, a table of
figure name -> number or array, or stream()'s (or ask's) results (ttft_ms,
first_sentence_ms, total_ms; a failed stream counts as a failure).
figures[name]: n, runs, failed, p50, p50_ci = {lo, hi} (absent: too few
samples), p95, p95_ci, p99, p99_ci, mean, mean_ci, mean_over, run_means.
  print(runs(5, function() return ask(q, {quiet = true}) end))`},
	{Name: "ab", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return vm.runsHost().AB(L) },
		Signature: "ab(fa, fb, opts) -> result",
		Summary:   "Run two variants interleaved (A B B A ...), then B/A of each figure's median with its bootstrap interval and a verdict: faster, slower, no difference detected, too few samples.",
		Help: `fa and fb return what runs()' fn returns; each is called with its own
run number. opts: runs (of each, default 6), seed (of the bootstrap,
default 21), reps (default 1000), flush (true: ask.flush() before every
run; or a function), on_run(i, variant), quiet.
result: order, seed, reps, runs, drift_covered, warning, names, summary,
figures[name] = {a, b, ratio, ratio_ci, level, p, verdict, runs_for_5pct, only_in}
(ratio_ci at level, that of the verdict's Holm step).
  ab(function() return ask(q, {docs = 0, quiet = true}) end,
     function() return ask(q, {docs = 4, quiet = true}) end, {runs = 5, flush = true})`},
	{Name: "log_contains", Kind: Function, fn: (*VM).logContains,
		Signature: "log_contains(text, [since]) -> found",
		Summary:   "Whether the llama-server log (SERVER_LOG) got text after since (a log_mark()), or after the script started.",
		Help: "  local mark = log_mark()\n" +
			"  stream(\"Tell me a long story.\", {max_tokens = 512, cut_after_ms = 200})\n" +
			"  sleep_ms(1500)\n  print(log_contains(\"cancel task\", mark))"},
	{Name: "log_mark", Kind: Function, fn: (*VM).logMarkBinding,
		Signature: "log_mark() -> mark",
		Summary:   "Where the llama-server log stands now ({path=, offset=, inode=}), for log_contains."},
	{Name: "check_artifacts", Kind: Function, fn: (*VM).checkArtifacts,
		Signature: "check_artifacts([files]) -> outcomes",
		Summary:   "ttftlab check's rules on OUT (with SERVER_LOG): every outcome, or those that concern the named files; each {status, name, detail, line}.",
		Help: "status is PASS, FAIL or SKIP; line is the outcome as `ttftlab check OUT` prints it. The lab runs it after each step on the\n" +
			"step's files: a step passes only when none of them fails.\n" +
			"  for _, o in ipairs(check_artifacts({\"prefill.json\"})) do print(o.status, o.name, o.detail) end"},
	{Name: "check_not_measured", Kind: Function, fn: (*VM).checkNotMeasured,
		Signature: "check_not_measured() -> steps",
		Summary:   "The steps whose numbers the lab's report copies that did not measure in OUT, each {step, why}, by ttftlab check's rule.",
		Help: "A step did not measure when steps.json says it failed or was skipped (why: \"skipped: reason\"), or when its file is not\n" +
			"in OUT. The lab's report step leaves their numbers null and names them in not_measured.\n" +
			"  for _, m in ipairs(check_not_measured()) do print(m.step, m.why) end"},
	{Name: "take_turn", Kind: Function, fn: (*VM).takeTurn,
		Signature: "take_turn(step)",
		Summary:   "Wait until this run may measure the step's next repetition: in ttftlab ab the two set-ups take turns A B B A; elsewhere it returns at once.",
		Help: "The lab's steps call it before each repetition (labconf.repeated). Everything a run does between two calls\n" +
			"happens on its turn, so A and B never measure at once.\n" +
			"  for k = 1, REPEAT or 6 do take_turn(\"cache\"); measure() end"},
	{Name: "eprint", Kind: Function, fn: func(vm *VM, L *lua.LState) int { return printTo(L, vm.cfg.Stderr) },
		Signature: "eprint(...)",
		Summary:   "Like print, to standard error."},

	{Name: "print", Kind: Standard, fn: func(vm *VM, L *lua.LState) int { return printTo(L, vm.cfg.Stdout) },
		Signature: "print(...)",
		Summary:   "Write the values, tab-separated, to ttftlab's standard output."},
	{Name: "io.write", Kind: Standard, install: (*VM).installStdio,
		Signature: "io.write(...)",
		Summary:   "Write strings and numbers to standard output; io.stdout:write and io.stderr:write as well."},
	{Name: "error", Kind: Standard, fn: func(_ *VM, L *lua.LState) int { return luaerror.Error(L) },
		Signature: "error(message, [level])",
		Summary:   "Raise an error; level counts as in Lua 5.1 (1: this line, 2: the caller's)."},
	{Name: "os.exit", Kind: Standard, fn: (*VM).osExit,
		Signature: "os.exit([code])",
		Summary:   "End the script (at the prompt: the session) with code; nothing after it runs, even inside pcall."},
	{Name: "dofile", Kind: Standard, fn: (*VM).dofile,
		Signature: "dofile(name) -> ...",
		Summary:   "Run a Lua file (relative to the running file's folder) and return its values."},
	{Name: "loadfile", Kind: Standard, fn: (*VM).loadfile,
		Signature: "loadfile(name) -> function | nil, message",
		Summary:   "Compile a Lua file without running it."},
	{Name: "require", Kind: Standard, install: (*VM).installModules,
		Signature: "require(name) -> module",
		Summary:   "Load a module: the built-in ones (" + strings.Join(stdlib.Names(), ", ") + "), json, then package.path."},

	{Name: "SERVER", Kind: Global, value: func(vm *VM) lua.LValue { return lua.LString(vm.cfg.Server) },
		Signature: "SERVER",
		Summary:   "Base URL of the LLM server, without a trailing slash."},
	{Name: "OUT", Kind: Global, value: func(vm *VM) lua.LValue { return lua.LString(vm.cfg.Out) },
		Signature: "OUT",
		Summary:   "The output folder; relative file names of the file bindings land here."},
	{Name: "KB_DIR", Kind: Global, value: func(vm *VM) lua.LValue { return optString(vm.cfg.KBDir) },
		Signature: "KB_DIR",
		Summary:   "The knowledge-base folder, or nil for the knowledge base built into ttftlab."},
	{Name: "API", Kind: Global, value: func(vm *VM) lua.LValue { return lua.LString(vm.cfg.API.String()) },
		Signature: "API",
		Summary:   "The streaming API of requests that set no opts.api: chat, completions or responses (--api)."},
	{Name: "SERVER_LOG", Kind: Global, value: func(vm *VM) lua.LValue { return optString(vm.cfg.ServerLog) },
		Signature: "SERVER_LOG",
		Summary:   "The llama-server log file, or nil."},
	{Name: "SCRIPT_DIR", Kind: Global, value: func(*VM) lua.LValue { return lua.LNil },
		Signature: "SCRIPT_DIR",
		Summary:   "Folder of the file being run; (embedded) for the built-in scripts, \".\" at the prompt."},
	{Name: "arg", Kind: Global, value: scriptArgs,
		Signature: "arg",
		Summary:   "Script arguments: arg[1], ...; arg[0] is the file being run."},
	{Name: "KEEP_GOING", Kind: Global, value: func(vm *VM) lua.LValue { return lua.LBool(!vm.cfg.StopOnFailure) },
		Signature: "KEEP_GOING",
		Summary:   "false when the lab should stop at its first failed step, else true."},
	{Name: "PREFLIGHT", Kind: Global, value: func(vm *VM) lua.LValue { return lua.LBool(vm.cfg.Preflight) },
		Signature: "PREFLIGHT",
		Summary:   "true when the script should only check its inputs and stop (the lab, before a server starts); it may return {tts = true}: its run needs a speech server; {stt = true}: a speech-to-text server."},
	{Name: "REPEAT", Kind: Global, value: func(vm *VM) lua.LValue {
		if vm.cfg.Repeat <= 0 {
			return lua.LNil
		}
		return lua.LNumber(vm.cfg.Repeat)
	},
		Signature: "REPEAT",
		Summary:   "How many times the lab's steps repeat their measurement (--repeat), or nil: each step's default (6)."},
	{Name: "TTFTLAB", Kind: Global, value: func(vm *VM) lua.LValue { return lua.LString(vm.cfg.Command) },
		Signature: "TTFTLAB",
		Summary:   "How to run ttftlab from here, for messages: ./ttftlab, ttftlab or go run ."},
	{Name: "json_null", Kind: Global, value: func(vm *VM) lua.LValue { return vm.json.Null() },
		Signature: "json_null",
		Summary:   "The JSON null value: json_null in read_json results, for missing items in write_json."},
}

const streamHelp = `messages: a string (one user message) or an array of {role=, content=}.
The request body starts as {"messages": ..., "stream": true,
"max_tokens": 64, "temperature": 0, "seed": 7, "cache_prompt": true}.

opts (all optional):
  max_tokens, temperature, seed, cache_prompt   request fields
  body            table of other request fields, merged last
                  (e.g. {ignore_eos = true})
  raw_out         file that receives every byte of the response
  on_chunk        function({t_ms=, text=, index=}) per content chunk;
                  returning false closes the connection
  cut_after_ms    close the connection this long after t0
  idle_timeout_ms fail when nothing arrives for this long (default 30 s)
  timeout_ms      fail when the whole request takes longer (default: the
                  command's --request-timeout; 0: no limit)
  keep_chunks     false: leave chunks empty (on_chunk still sees them)
  keep_reads      true: info.read_stamps lists every read's stamps
  errors          "raise" (default) or "return": failures set info.error
  api             "chat" (default: API), "completions" or "responses"
  path, server, headers   where and how to send it
  tts             true or speak() options: each sentence spoken as it completes
  stt             true or {audio =, text =, voice =, ...}: the caller speaks
                  the last user message first (listen()); the LLM is asked
                  the transcript, and info.turn has the turn: transcript,
                  said, wer, stamps, parts (mouth_to_ear_ms and its parts)
Also stream(messages, max_tokens, cache_prompt, raw_out).

Returns chunks ({t_ms=, text=} per content chunk), total_ms, timings (the
server's: prompt_n, cache_n, prompt_ms, predicted_n, ...; nil if none) and
info (ttft_ms, t0_ms, headers_ms, done, cut, closed_at_ms, finish_reason,
status, lines, ignored_events, usage, stamp_source, reads, kernel_stamps, read_pauses,
error). Times count from t0, when the request's first byte was written;
stamp_source says how arrival times were taken ("kernel": the kernel's
receive time; "epoll-thread", "go-netpoll": when the read returned).

At the prompt, a statement whose values are exactly these four prints as a
summary (answer, first sentence, ttft, total, tokens, prompt_n, cache_n).
Ctrl-C cuts a running stream like cut_after_ms and shows what had arrived.`

// scriptArgs is the global arg: arg[1], arg[2], ... (arg[0] is set when a
// script starts).
func scriptArgs(vm *VM) lua.LValue {
	args := vm.L.CreateTable(len(vm.cfg.Args), 1)
	for _, a := range vm.cfg.Args {
		args.Append(lua.LString(a))
	}
	return args
}

// optString maps "" to nil so scripts can write `if SERVER_LOG then`.
func optString(s string) lua.LValue {
	if s == "" {
		return lua.LNil
	}
	return lua.LString(s)
}
