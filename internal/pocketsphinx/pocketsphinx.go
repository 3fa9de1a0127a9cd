// Package pocketsphinx is the default speech-to-text engine: Debian's
// pocketsphinx 5 with its en-us model, installed on first use into a
// private folder, and served behind OpenAI's transcription endpoint and a
// Realtime transcription WebSocket.
package pocketsphinx

import (
	"net/http"
	"sync/atomic"
)

// Server serves the engine at Bin over HTTP.
type Server struct {
	Bin string
	// CPU is the CPU time (ns) its decoder processes used so far.
	CPU atomic.Int64
}

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "pocketsphinx: not served yet", http.StatusNotImplemented)
}
