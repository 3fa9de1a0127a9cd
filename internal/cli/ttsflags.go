package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/tts"
	"ttftlab/runtime"
)

// ttsFlags name the speech server of a command (speak(), the audio step,
// load --tts).
type ttsFlags struct {
	url, key, keyFile, voice, format, model string
	rate                                    int
	// headers, caCert and insecure are the speech server's own (TLS
	// defaults to --server's when neither is given).
	headers  []string
	caCert   string
	insecure bool
	// implied is set when the command chose --tts default itself (the
	// lab's audio step): then an engine that cannot be had leaves the run
	// without speech, the step skipped with why, instead of stopping it.
	implied bool
}

// ttsDefault is --tts's value that starts the default engine.
const ttsDefault = "default"

// ttsKeyEnv is the environment variable of the speech server's key.
const ttsKeyEnv = "TTFTLAB_TTS_API_KEY"

func (t *ttsFlags) register(f *flagSet) {
	f.StringVar(&t.url, "tts", os.Getenv("TTFTLAB_TTS"), "the speech server: the base `URL` of a server of POST /v1/audio/speech, or "+
		"default: espeak-ng, installed on first use and started for the run (env TTFTLAB_TTS)")
	f.StringVar(&t.key, "tts-api-key", "", "the speech server's API key, sent as Authorization: Bearer `KEY` (default: $"+ttsKeyEnv+
		", else --server's key when both are one server); never printed or written")
	f.StringVar(&t.keyFile, "tts-api-key-file", "", "read the speech server's API key from `FILE` (keeps it out of the process list)")
	f.Func("tts-header", "extra header `'Name: value'` on every speech request (repeatable); secret-looking values are shown redacted", func(v string) error {
		if _, _, err := endpoint.ParseHeader(v); err != nil {
			return err
		}
		t.headers = append(t.headers, v)
		return nil
	})
	f.StringVar(&t.caCert, "tts-ca-cert", "", "trust the CA certificates in PEM `FILE` for the speech server's https (default: --server's TLS settings)")
	f.BoolVar(&t.insecure, "tts-insecure", false, "the speech server's https without verifying its certificate (a warning says so)")
	f.StringVar(&t.voice, "tts-voice", "", "the speech `VOICE` of every request (default: from each text's script: en, cmn, ko, ja)")
	f.StringVar(&t.format, "tts-format", "pcm", "the speech answer's format: pcm (24 kHz 16-bit mono, no header) or wav")
	f.intVar(&t.rate, "tts-sample-rate", 24000, 1000, 384000, "the sample rate of a pcm answer, for a server whose rate is not OpenAI's 24 kHz")
	f.StringVar(&t.model, "tts-model", "", "the speech request's `MODEL` (default tts-1; espeak-ng for --tts default)")
}

// check refuses flags that cannot work before anything starts.
func (t *ttsFlags) check(f *flagSet) error {
	if t.format != "pcm" && t.format != "wav" {
		return f.usageErrf("--tts-format %q: want pcm or wav", t.format)
	}
	if t.key != "" && t.keyFile != "" {
		return f.usageErrf("--tts-api-key and --tts-api-key-file both set: give one")
	}
	if t.url == "" && (t.key != "" || t.keyFile != "" || len(t.headers) > 0 || t.caCert != "" || t.insecure) {
		return f.usageErrf("the --tts-* settings of a speech server need --tts URL")
	}
	if t.url != "" && t.url != ttsDefault {
		if _, err := endpoint.Parse(t.url); err != nil {
			var bad *endpoint.URLError
			if errors.As(err, &bad) {
				return f.usageErrf("--tts %q: %s (or --tts default for espeak-ng)", bad.URL, bad.Why)
			}
			return f.usageErr(err)
		}
	}
	return nil
}

// start makes the speech server of the run: nil without --tts; with
// --tts default espeak-ng (installed when missing, its progress on log)
// served on a free loopback port until stop, said on out. llm is the
// LLM's endpoint, whose TLS settings the speech server shares, and whose
// key it shares when both are one server.
func (t *ttsFlags) start(ctx context.Context, llm *endpoint.Endpoint, out, log io.Writer) (cfg *runtime.TTS, stop func(), err error) {
	stop = func() {}
	if t.url == "" {
		return nil, stop, nil
	}
	cfg = &runtime.TTS{Voice: t.voice, Format: t.format, SampleRate: t.rate, Model: t.model, Source: "--tts " + t.url}
	if t.url == ttsDefault {
		bin, err := tts.FindOrInstall(ctx, log)
		if err != nil && t.implied && ctx.Err() == nil {
			fmt.Fprintf(log, "speech: no default engine, so no audio step: %v\n", err)
			return nil, stop, nil
		}
		if err != nil {
			return nil, stop, err
		}
		engine := &tts.Server{Bin: bin}
		base, stopEngine, err := serveForRun(engine, nil, "speech engine")
		if err != nil {
			return nil, stop, err
		}
		stop = stopEngine
		cfg.Endpoint = &endpoint.Endpoint{Base: base}
		cfg.Engine = tts.Version(bin)
		cfg.CPU = func() time.Duration { return time.Duration(engine.CPU.Load()) }
		if cfg.Model == "" {
			cfg.Model = tts.Model
		}
		fmt.Fprintf(out, "speech: %s (%s) at %s for this run; its timings are a formant synthesizer's, not a neural voice's\n", cfg.Engine, bin, cfg.Endpoint.Base)
		return cfg, stop, nil
	}
	ep, _ := endpoint.Parse(t.url)
	side := sideEndpoint{flag: "tts", keyEnv: ttsKeyEnv, label: "speech", server: "the speech server",
		key: t.key, keyFile: t.keyFile, caCert: t.caCert, insecure: t.insecure, headers: t.headers}
	if err := side.dress(ep, llm, ep.Base, log); err != nil {
		return nil, stop, err
	}
	cfg.Endpoint = ep
	return cfg, stop, nil
}
