package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/tts"
	"ttftlab/runtime"
)

// realtimeFlags name the Realtime server of a command's speech-to-speech
// sessions (session(), the lab's realtime step, load --realtime): its
// URL, key, headers and TLS. Only run, repl, lab and load register them
// (registerRealtime); a command that does not leaves them empty, and they
// do nothing.
type realtimeFlags struct {
	url, key, keyFile, caCert string
	insecure                  bool
	headers                   []string
}

// realtimeKeyEnv is the environment variable of the Realtime server's key.
const realtimeKeyEnv = "TTFTLAB_REALTIME_API_KEY"

// registerRealtime adds --realtime and its flags.
func (h *hostFlags) registerRealtime(f *flagSet) {
	r := &h.realtime
	f.StringVar(&r.url, "realtime", "", "the speech-to-speech server of session(), the lab's realtime step and load --realtime: the base `URL` of a server of the "+
		"Realtime WebSocket API (ws://, wss://, http:// or https://; /v1/realtime is added to a base without a path), e.g. `ttftlab voice serve`'s")
	f.StringVar(&r.key, "realtime-api-key", "", "the Realtime server's API key, sent as Authorization: Bearer `KEY` (default: $"+realtimeKeyEnv+
		", else --server's key when both are one server); never printed or written")
	f.StringVar(&r.keyFile, "realtime-api-key-file", "", "read the Realtime server's API key from `FILE` (keeps it out of the process list)")
	f.Func("realtime-header", "extra header `'Name: value'` on the Realtime server's upgrade request (repeatable); secret-looking values are shown redacted", func(v string) error {
		if _, _, err := endpoint.ParseHeader(v); err != nil {
			return err
		}
		r.headers = append(r.headers, v)
		return nil
	})
	f.StringVar(&r.caCert, "realtime-ca-cert", "", "trust the CA certificates in PEM `FILE` for the Realtime server's wss or https (default: --server's TLS settings)")
	f.BoolVar(&r.insecure, "realtime-insecure", false, "the Realtime server's wss or https without verifying its certificate (a warning says so)")
}

// check refuses flags that cannot work before anything starts.
func (r *realtimeFlags) check(f *flagSet) error {
	if r.key != "" && r.keyFile != "" {
		return f.usageErrf("--realtime-api-key and --realtime-api-key-file both set: give one")
	}
	if r.url == "" {
		var set []string
		f.Visit(func(fl *flag.Flag) {
			if strings.HasPrefix(fl.Name, "realtime-") {
				set = append(set, "--"+fl.Name)
			}
		})
		if len(set) > 0 {
			return f.usageErrf("%s: these are the Realtime server's: give --realtime URL", strings.Join(set, ", "))
		}
		return nil
	}
	if _, err := parseSTTURL(r.url); err != nil {
		var bad *endpoint.URLError
		if errors.As(err, &bad) {
			return f.usageErrf("--realtime %q: %s", bad.URL, bad.Why)
		}
		return f.usageErr(err)
	}
	return nil
}

// endpoint is --realtime's server with model ("": none), dressed as the
// other side servers are: its key, headers and TLS (else llm's, nil:
// none), where the key came from said on log, never its value.
func (r *realtimeFlags) endpoint(model string, llm *endpoint.Endpoint, log io.Writer) (*endpoint.Endpoint, error) {
	base, err := parseSTTURL(r.url)
	if err != nil {
		return nil, err
	}
	ep := &endpoint.Endpoint{Base: base, Model: model}
	if model != "" {
		ep.ModelSource = "--realtime-model"
	}
	side := sideEndpoint{flag: "realtime", keyEnv: realtimeKeyEnv, label: "realtime", server: "the Realtime server",
		key: r.key, keyFile: r.keyFile, caCert: r.caCert, insecure: r.insecure, headers: r.headers}
	if err := side.dress(ep, llm, httpBase(ep.Base), log); err != nil {
		return nil, err
	}
	return ep, nil
}

// start makes the run's Realtime server: nil without --realtime; else
// its endpoint dressed as the other side servers' are (key, headers,
// TLS, said on log, never the key), and the espeak-ng that speaks the
// caller's text turns (installed when missing; without one, only .wav
// turns can be said, and log says why). voice is --caller-voice.
func (r *realtimeFlags) start(ctx context.Context, llm *endpoint.Endpoint, voice string, log io.Writer) (*runtime.Realtime, error) {
	if r.url == "" {
		return nil, nil
	}
	ep, err := r.endpoint("", llm, log)
	if err != nil {
		return nil, err
	}
	rt := &runtime.Realtime{Endpoint: ep, Voice: voice}
	bin, err := tts.FindOrInstall(ctx, log)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		fmt.Fprintf(log, "realtime: no espeak-ng to speak the caller's text turns, so only .wav turns: %v\n", err)
	}
	rt.Espeak = bin
	return rt, nil
}
