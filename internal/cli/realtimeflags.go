package cli

import (
	"errors"
	"flag"
	"io"
	"strings"
	"time"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/realtime"
)

// realtimeFlags name a speech-to-speech server of the Realtime WebSocket
// API (--realtime URL) and how a session is held with it: its key, extra
// headers and TLS (a sideEndpoint's, dressed alike), its model, the
// session's voice and instructions, a turn's time limit.
type realtimeFlags struct {
	url, key, keyFile, model    string
	voice, instructions, caCert string
	headers                     []string
	insecure                    bool
	turnTimeout                 time.Duration
}

// realtimeKeyEnv is the environment variable of the Realtime server's key.
const realtimeKeyEnv = "TTFTLAB_REALTIME_API_KEY"

// on says whether a Realtime server was given.
func (r *realtimeFlags) on() bool { return r.url != "" }

func (r *realtimeFlags) register(f *flagSet) {
	f.StringVar(&r.url, "realtime", "", "a speech-to-speech server of the Realtime WebSocket API: `URL` ws(s):// or http(s):// "+
		"(a base without a path of its own gets /v1/realtime), e.g. ws://127.0.0.1:8765 (ttftlab voice serve)")
	f.StringVar(&r.key, "realtime-api-key", "", "the Realtime server's API key, sent as Authorization: Bearer `KEY` (default: $"+realtimeKeyEnv+"); never printed or written")
	f.StringVar(&r.keyFile, "realtime-api-key-file", "", "read the Realtime server's API key from `FILE` (keeps it out of the process list)")
	f.Func("realtime-header", "extra header `'Name: value'` on the Realtime server's upgrade (repeatable); secret-looking values are shown redacted", func(v string) error {
		if _, _, err := endpoint.ParseHeader(v); err != nil {
			return err
		}
		r.headers = append(r.headers, v)
		return nil
	})
	f.StringVar(&r.caCert, "realtime-ca-cert", "", "trust the CA certificates in PEM `FILE` for the Realtime server's wss or https")
	f.BoolVar(&r.insecure, "realtime-insecure", false, "the Realtime server's wss or https without verifying its certificate (a warning says so)")
	f.StringVar(&r.model, "realtime-model", "", "the session's `MODEL` (?model= on the upgrade; default: none, the server's own)")
	f.StringVar(&r.voice, "realtime-voice", "", "the answer's `VOICE` in session.update (default: the server's)")
	f.StringVar(&r.instructions, "realtime-instructions", "", "the session's `INSTRUCTIONS` in session.update (default: the server's)")
	f.durationVar(&r.turnTimeout, "realtime-turn-timeout", realtime.DefaultTurnTimeout, "fail a turn whose answer has not ended this long after the caller's speech end")
}

// check refuses --realtime-* flags without --realtime, both keys at
// once, and a URL that cannot be a server's.
func (r *realtimeFlags) check(f *flagSet) error {
	if !r.on() {
		var set []string
		f.Visit(func(fl *flag.Flag) {
			if strings.HasPrefix(fl.Name, "realtime-") {
				set = append(set, "--"+fl.Name)
			}
		})
		if len(set) > 0 {
			return f.usageErrf("%s: a speech-to-speech session needs its server: give --realtime URL", strings.Join(set, ", "))
		}
		return nil
	}
	if r.key != "" && r.keyFile != "" {
		return f.usageErrf("--realtime-api-key and --realtime-api-key-file both set: give one")
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

// config is the session's configuration: the server dressed with its
// key, headers and TLS (where the key came from said on log, never its
// value), model, voice, instructions, turn timeout.
func (r *realtimeFlags) config(log io.Writer) (realtime.Config, error) {
	base, err := parseSTTURL(r.url)
	if err != nil {
		return realtime.Config{}, err
	}
	ep := &endpoint.Endpoint{Base: base, Model: r.model}
	if ep.Model != "" {
		ep.ModelSource = "--realtime-model"
	}
	side := sideEndpoint{flag: "realtime", keyEnv: realtimeKeyEnv, label: "realtime", server: "the Realtime server",
		key: r.key, keyFile: r.keyFile, caCert: r.caCert, insecure: r.insecure, headers: r.headers}
	if err := side.dress(ep, nil, httpBase(ep.Base), log); err != nil {
		return realtime.Config{}, err
	}
	return realtime.Config{Endpoint: ep, Voice: r.voice, Instructions: r.instructions, TurnTimeout: r.turnTimeout}, nil
}

// shown is --realtime as it may be written: without a password.
func (r *realtimeFlags) shown() string { return endpoint.ShownURL(strings.TrimSpace(r.url)) }
