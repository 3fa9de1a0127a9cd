package cli

import (
	"errors"
	"flag"
	"strings"

	"ttftlab/internal/endpoint"
)

// realtimeFlags name the Realtime server of a command's speech-to-speech
// sessions (session(), the lab's realtime step): its URL, key, headers
// and TLS. Only run, repl and lab register them (registerRealtime); a
// command that does not leaves them empty, and they do nothing.
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
	f.StringVar(&r.url, "realtime", "", "the speech-to-speech server of session() and the lab's realtime step: the base `URL` of a server of the "+
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
