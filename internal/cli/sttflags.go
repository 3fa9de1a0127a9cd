package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
	"time"

	"ttftlab/internal/callaudio"
	"ttftlab/internal/endpoint"
	"ttftlab/internal/espeak"
	"ttftlab/internal/pocketsphinx"
	"ttftlab/internal/stt"
	"ttftlab/internal/tts"
	"ttftlab/runtime/request"
	"ttftlab/runtime/suggest"
)

// sttFlags name the caller's side of a command's voice turns: the
// speech-to-text server (listen(), stream{stt}, the call step, load
// --stt) and the caller's audio.
type sttFlags struct {
	url, key, keyFile, model, language string
	api                                stt.API
	// headers, caCert and insecure are the speech-to-text server's own
	// (TLS defaults to --server's when neither is given).
	headers  []string
	caCert   string
	insecure bool
	// audioDir is --caller-audio, voice --caller-voice, frameMs
	// --stt-frame-ms.
	audioDir, voice string
	frameMs         int
	// implied is set when the command chose --stt default itself (the
	// lab's call step): then an engine that cannot be had leaves the run
	// without speech-to-text, the step skipped with why, instead of
	// stopping it.
	implied bool
	// fs is the command's flags, set by check: start refuses an unknown
	// --caller-voice as a usage error of the command.
	fs *flagSet
}

// sttDefault is --stt's value that starts the default engine.
const sttDefault = "default"

// sttNone is --stt's value that runs without speech-to-text: a step that
// listens to a caller (the lab's call step) is skipped with why, and no
// engine is started for it.
const sttNone = "none"

// on says whether the run has a speech-to-text server (--stt URL or
// default; not none).
func (s *sttFlags) on() bool { return s.url != "" && s.url != sttNone }

// sttKeyEnv is the environment variable of the speech-to-text server's key.
const sttKeyEnv = "TTFTLAB_STT_API_KEY"

func (s *sttFlags) register(f *flagSet) {
	f.StringVar(&s.url, "stt", os.Getenv("TTFTLAB_STT"), "the speech-to-text server: the base `URL` of a server of POST /v1/audio/transcriptions "+
		"(a path ending in /inference: whisper-server's; ws:// or wss://, or a path ending in /realtime: a Realtime transcription WebSocket), or "+
		"default: pocketsphinx, installed on first use and started for the run, or none: no speech-to-text, a step that listens skipped "+
		"(the lab's call step, which otherwise starts the default; env TTFTLAB_STT)")
	f.StringVar(&s.key, "stt-api-key", "", "the speech-to-text server's API key, sent as Authorization: Bearer `KEY` (default: $"+sttKeyEnv+
		", else --server's key when both are one server); never printed or written")
	f.StringVar(&s.keyFile, "stt-api-key-file", "", "read the speech-to-text server's API key from `FILE` (keeps it out of the process list)")
	f.Func("stt-header", "extra header `'Name: value'` on every speech-to-text request (repeatable); secret-looking values are shown redacted", func(v string) error {
		if _, _, err := endpoint.ParseHeader(v); err != nil {
			return err
		}
		s.headers = append(s.headers, v)
		return nil
	})
	f.StringVar(&s.caCert, "stt-ca-cert", "", "trust the CA certificates in PEM `FILE` for the speech-to-text server's https or wss (default: --server's TLS settings)")
	f.BoolVar(&s.insecure, "stt-insecure", false, "the speech-to-text server's https or wss without verifying its certificate (a warning says so)")
	f.StringVar(&s.model, "stt-model", "", "the transcription request's `MODEL` (default: whisper-1 for an OpenAI upload, gpt-4o-transcribe for a Realtime session, none for whisper-server, the server's own for vLLM)")
	f.StringVar(&s.language, "stt-language", "", "the caller's `LANGUAGE` (ISO-639-1, e.g. en), sent where the protocol takes one (default: none; the default engine is English only)")
	apis := make([]string, len(stt.APIs))
	for i, a := range stt.APIs {
		apis[i] = string(a)
	}
	f.Func("stt-api", "the speech-to-text `PROTOCOL` where --stt's URL does not say: "+strings.Join(apis, ", ")+
		" (default: from the URL; realtime for --stt default)", func(v string) error {
		a, err := stt.ParseAPI(v)
		s.api = a
		return err
	})
	f.StringVar(&s.audioDir, "caller-audio", "", "the caller's audio: a `DIR` of WAV files (any rate), one per turn in name order, "+
		"each with its text in a .txt beside it for the word error rate (default: each turn's text spoken by espeak-ng)")
	f.StringVar(&s.voice, "caller-voice", "", "the espeak-ng `VOICE` the caller speaks with (default: from each text's script: en, cmn, ko, ja)")
	f.intVar(&s.frameMs, "stt-frame-ms", callaudio.DefaultFrameMs, 5, 1000, "the length of one frame of the caller's audio as a streaming connection sends it, in ms")
}

// check refuses flags that cannot work before anything starts.
func (s *sttFlags) check(f *flagSet) error {
	s.fs = f
	if s.key != "" && s.keyFile != "" {
		return f.usageErrf("--stt-api-key and --stt-api-key-file both set: give one")
	}
	if !s.on() {
		var set []string
		f.Visit(func(fl *flag.Flag) {
			if strings.HasPrefix(fl.Name, "stt-") || strings.HasPrefix(fl.Name, "caller-") {
				set = append(set, "--"+fl.Name)
			}
		})
		if len(set) > 0 {
			return f.usageErrf("%s: the caller's side needs a speech-to-text server: give --stt URL (or --stt default)", strings.Join(set, ", "))
		}
		return nil
	}
	if s.url != sttDefault {
		u, err := parseSTTURL(s.url)
		if err != nil {
			var bad *endpoint.URLError
			if errors.As(err, &bad) {
				return f.usageErrf("--stt %q: %s (or --stt default for pocketsphinx)", bad.URL, bad.Why)
			}
			return f.usageErr(err)
		}
		ws := strings.HasPrefix(u, "ws://") || strings.HasPrefix(u, "wss://")
		if ws && s.api != "" && !s.api.Streaming() {
			return f.usageErrf("--stt-api %s uploads over HTTP, but --stt %s is a WebSocket: give an http(s) URL, or --stt-api realtime or vllm-realtime", s.api, endpoint.ShownURL(s.url))
		}
	}
	if s.audioDir != "" {
		if s.voice != "" {
			return f.usageErrf("--caller-voice and --caller-audio both set: the caller's audio is the folder's, give one")
		}
		if _, err := request.CallerWAVs(s.audioDir); err != nil {
			return f.usageErrf("--caller-audio: %v", err)
		}
	}
	return nil
}

// parseSTTURL checks --stt's URL as a base URL: http, https, ws or wss.
func parseSTTURL(raw string) (string, error) {
	raw = strings.TrimSpace(raw)
	scheme, rest, _ := strings.Cut(raw, "://")
	ws := strings.EqualFold(scheme, "ws") || strings.EqualFold(scheme, "wss")
	check := raw
	if ws {
		check = "http" + strings.ToLower(scheme)[2:] + "://" + rest
	}
	base, err := endpoint.ParseBase(check)
	var bad *endpoint.URLError
	if errors.As(err, &bad) {
		why := bad.Why
		if strings.HasPrefix(why, "want http://HOST:PORT,") {
			why = "want http://HOST:PORT or ws://HOST:PORT/PATH"
		}
		return "", &endpoint.URLError{URL: endpoint.ShownURL(raw), Why: why}
	}
	if err != nil || !ws {
		return base, err
	}
	_, rest, _ = strings.Cut(base, "://")
	return strings.ToLower(scheme) + "://" + rest, nil
}

// start makes the caller's side of the run: nil without --stt; with --stt
// default pocketsphinx (installed when missing, its progress on log)
// served on a free loopback port until stop, said on out. The caller's
// audio is the --caller-audio folder's, else espeak-ng's (installed when
// missing). llm is the LLM's endpoint, whose TLS settings the
// speech-to-text server shares, and whose key it shares when both are
// one server.
func (s *sttFlags) start(ctx context.Context, llm *endpoint.Endpoint, out, log io.Writer) (caller *request.Caller, stop func(), err error) {
	stop = func() {}
	if !s.on() {
		return nil, stop, nil
	}
	caller = &request.Caller{Voice: s.voice, AudioDir: s.audioDir,
		STT: stt.Config{API: s.api, Language: s.language, FrameMs: s.frameMs}}
	if s.audioDir == "" {
		bin, err := tts.FindOrInstall(ctx, log)
		if err != nil && s.implied && ctx.Err() == nil {
			fmt.Fprintf(log, "speech-to-text: no espeak-ng to speak the caller's questions, so no call step: %v\n", err)
			return nil, stop, nil
		}
		if err != nil {
			return nil, stop, fmt.Errorf("the caller's audio: %w (or give --caller-audio DIR)", err)
		}
		caller.Espeak = bin
		if err := s.checkVoice(bin); err != nil {
			return nil, stop, err
		}
	}
	if s.url == sttDefault {
		return s.startDefault(ctx, caller, out, log)
	}
	base, _ := parseSTTURL(s.url)
	ep := &endpoint.Endpoint{Base: base, Model: s.model}
	if ep.Model != "" {
		ep.ModelSource = "--stt-model"
	}
	side := sideEndpoint{flag: "stt", keyEnv: sttKeyEnv, label: "speech-to-text", server: "the speech-to-text server",
		key: s.key, keyFile: s.keyFile, caCert: s.caCert, insecure: s.insecure, headers: s.headers}
	if err := side.dress(ep, llm, httpBase(ep.Base), log); err != nil {
		return nil, stop, err
	}
	caller.STT.Endpoint = ep
	return caller, stop, nil
}

// checkVoice refuses a --caller-voice the espeak-ng at bin does not have,
// before any request: espeak-ng itself would speak English instead,
// silently, and the run would measure another voice than the one asked
// (or fail only at the first turn).
func (s *sttFlags) checkVoice(bin string) error {
	if s.voice == "" {
		return nil
	}
	voices, err := espeak.ListVoices(bin)
	if err != nil {
		return fmt.Errorf("--caller-voice %s: %w", s.voice, err)
	}
	if voices.Has(s.voice) {
		return nil
	}
	names := make([]string, 0, len(voices))
	for v := range voices {
		names = append(names, v)
	}
	// Sorted, so that of names as near the same one is suggested each time.
	sort.Strings(names)
	base, variant, hasVariant := strings.Cut(s.voice, "+")
	hint := ""
	if near := suggest.Nearest(strings.ToLower(base), names); near != "" {
		if hasVariant {
			near += "+" + variant
		}
		hint = fmt.Sprintf("; did you mean %q?", near)
	}
	err = fmt.Errorf("--caller-voice %q: espeak-ng has no voice %q (see `%s --voices`)%s", s.voice, base, bin, hint)
	if s.fs == nil {
		return err
	}
	return s.fs.usageErr(err)
}

// startDefault serves pocketsphinx on a free loopback port for the run.
func (s *sttFlags) startDefault(ctx context.Context, caller *request.Caller, out, log io.Writer) (*request.Caller, func(), error) {
	stop := func() {}
	bin, err := pocketsphinx.FindOrInstall(ctx, log)
	if err != nil && s.implied && ctx.Err() == nil {
		fmt.Fprintf(log, "speech-to-text: no default engine, so no call step: %v\n", err)
		return nil, stop, nil
	}
	if err != nil {
		return nil, stop, err
	}
	engine := &pocketsphinx.Server{Bin: bin}
	base, stop, err := serveForRun(engine, engine.Close, "speech-to-text engine")
	if err != nil {
		return nil, stop, err
	}
	caller.STT.Endpoint = &endpoint.Endpoint{Base: base, Model: s.model}
	if caller.STT.API == "" {
		// Its Realtime session reports when the caller stopped: endpointing
		// is measured, not only the transcript.
		caller.STT.API = stt.APIRealtime
	}
	caller.Engine = pocketsphinx.Version(bin)
	caller.CPU = func() time.Duration { return time.Duration(engine.CPU.Load()) }
	fmt.Fprintf(out, "speech-to-text: %s (%s) at %s (%s) for this run; its accuracy and timing are a 2010s recognizer's, not a modern model's\n",
		caller.Engine, bin, caller.STT.Endpoint.Base, caller.STT.API)
	return caller, stop, nil
}

// httpBase is a ws(s) base URL as the http(s) one of the same origin.
func httpBase(base string) string {
	if rest, ok := strings.CutPrefix(base, "ws"); ok {
		return "http" + rest
	}
	return base
}
