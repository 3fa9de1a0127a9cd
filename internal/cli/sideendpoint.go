package cli

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"

	"ttftlab/internal/endpoint"
)

// sideEndpoint is how a server beside the LLM's (the speech server, the
// speech-to-text server) is reached: its key, extra headers and TLS, as
// its --tts-* or --stt-* flags give them.
type sideEndpoint struct {
	// flag is the flags' prefix ("tts", "stt"); keyEnv the variable of its
	// key; label the log lines' prefix ("speech", "speech-to-text"); server
	// what it is called in a warning ("the speech server").
	flag, keyEnv, label, server string
	key, keyFile, caCert        string
	insecure                    bool
	headers                     []string
}

// dress completes ep with the side server's TLS (else llm's), headers and
// key (else llm's when origin is the LLM server's own), and says on log
// where the key came from, never its value.
func (s sideEndpoint) dress(ep, llm *endpoint.Endpoint, origin string, log io.Writer) error {
	switch {
	case s.caCert != "" || s.insecure:
		tlsCfg, err := endpoint.TLSConfig(s.caCert, s.insecure)
		if err != nil {
			return fmt.Errorf("--%s-ca-cert: %w", s.flag, err)
		}
		ep.TLS, ep.CACert, ep.Insecure = tlsCfg, s.caCert, s.insecure
		if s.insecure {
			fmt.Fprintf(log, "%s: warning: --%s-insecure: %s's TLS certificate is not verified\n", s.label, s.flag, s.server)
		}
	case llm != nil:
		ep.TLS, ep.CACert, ep.Insecure = llm.TLS, llm.CACert, llm.Insecure
	}
	for _, h := range s.headers {
		name, value, _ := endpoint.ParseHeader(h)
		if ep.Header == nil {
			ep.Header = map[string]string{}
		}
		ep.Header[http.CanonicalHeaderKey(name)] = value
	}
	switch {
	case s.key != "":
		ep.Key, ep.KeySource = strings.TrimSpace(s.key), "--"+s.flag+"-api-key"
	case s.keyFile != "":
		b, err := os.ReadFile(s.keyFile)
		if err != nil {
			return fmt.Errorf("--%s-api-key-file: %w", s.flag, err)
		}
		if ep.Key = strings.TrimSpace(string(b)); ep.Key == "" {
			return fmt.Errorf("--%s-api-key-file %s is empty", s.flag, s.keyFile)
		}
		ep.KeySource = "--" + s.flag + "-api-key-file " + s.keyFile
	case os.Getenv(s.keyEnv) != "":
		ep.Key, ep.KeySource = strings.TrimSpace(os.Getenv(s.keyEnv)), s.keyEnv
	case llm != nil && llm.Key != "" && endpoint.SameOrigin(llm.Base, origin):
		ep.Key, ep.KeySource = llm.Key, llm.KeySource+" (--server's, the same server)"
	}
	if ep.Key != "" {
		fmt.Fprintf(log, "%s: API key from %s\n", s.label, ep.KeySource)
	}
	return nil
}
