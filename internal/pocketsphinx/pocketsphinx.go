// Package pocketsphinx is the default speech-to-text engine: Debian's
// pocketsphinx 5 with its en-us model, installed on first use into a
// private folder, and served behind OpenAI's transcription endpoint and a
// Realtime transcription WebSocket.
package pocketsphinx

import (
	"context"
	"errors"
	"io"
	"net/http"
	"sync/atomic"
)

// Find returns the installed engine's path, or an error saying why there
// is none.
func Find() (string, error) { return "", errors.New("pocketsphinx: not installed") }

// Install installs the engine (again with force), its progress on log.
func Install(ctx context.Context, force bool, log io.Writer) (string, error) {
	return "", errors.New("pocketsphinx: the installer is not written yet")
}

// FindOrInstall finds the engine, installing it when missing.
func FindOrInstall(ctx context.Context, log io.Writer) (string, error) {
	if p, err := Find(); err == nil {
		return p, nil
	}
	return Install(ctx, false, log)
}

// Version names the engine at bin ("pocketsphinx 5.1.1").
func Version(bin string) string { return "pocketsphinx" }

// Server serves the engine at Bin over HTTP.
type Server struct {
	Bin string
	// CPU is the CPU time (ns) its decoder processes used so far.
	CPU atomic.Int64
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "pocketsphinx: not served yet", http.StatusNotImplemented)
}
