// Package engineserve is what the default engines' servers (the speech
// engine, the speech-to-text engine) share: their routes beside GET
// /health and GET /v1/models, the refusal of another path or method, an
// error answered in OpenAI's shape, the server events of a Realtime
// WebSocket session (Events), and the CPU time of the processes they run.
package engineserve

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// Route is one endpoint of an engine: Method and Path, served by Serve.
type Route struct {
	Method, Path string
	// Note follows the endpoint where the refusal of an unknown path
	// lists it (" (WebSocket)").
	Note  string
	Serve http.HandlerFunc
}

// Mux answers GET /health, GET /v1/models (listing Model) and its Routes;
// a route's path with another method is refused with 405, any other path
// with 404 naming what the server answers.
type Mux struct {
	Model  string
	Routes []Route
}

func (m *Mux) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case r.URL.Path == "/health" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"status":"ok"}`)
		return
	case r.URL.Path == "/v1/models" && r.Method == http.MethodGet:
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"object":"list","data":[{"id":%q,"object":"model","owned_by":"ttftlab"}]}`, m.Model)
		return
	}
	for _, rt := range m.Routes {
		if r.URL.Path == rt.Path && r.Method == rt.Method {
			rt.Serve(w, r)
			return
		}
	}
	for _, rt := range m.Routes {
		if r.URL.Path == rt.Path {
			Fail(w, http.StatusMethodNotAllowed, "use %s for %s", rt.Method, rt.Path)
			return
		}
	}
	var answers []string
	for _, rt := range m.Routes {
		answers = append(answers, rt.Method+" "+rt.Path+rt.Note)
	}
	Fail(w, http.StatusNotFound, "no such path %s: this server answers %s, GET /health and GET /v1/models", r.URL.Path, strings.Join(answers, ", "))
}

// Fail answers an error in OpenAI's shape: the client's
// (invalid_request_error) under 500, the server's (server_error) from it,
// as a dead engine process is.
func Fail(w http.ResponseWriter, code int, format string, args ...any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	msg, _ := json.Marshal(fmt.Sprintf(format, args...))
	typ := "invalid_request_error"
	if code >= 500 {
		typ = "server_error"
	}
	fmt.Fprintf(w, `{"error":{"message":%s,"type":%q}}`, msg, typ)
}

// FailBody refuses a request whose body could not be read as what ("a
// JSON speech request"): 413 when it was over max bytes (the limit of
// http.MaxBytesReader), else 400 saying why; hint, when not "", follows.
func FailBody(w http.ResponseWriter, err error, max int64, what, hint string) {
	if hint != "" {
		hint = "; " + hint
	}
	var big *http.MaxBytesError
	if errors.As(err, &big) {
		Fail(w, http.StatusRequestEntityTooLarge, "the body is too large: over %d bytes%s", max, hint)
		return
	}
	Fail(w, http.StatusBadRequest, "the body is not %s: %v%s", what, err, hint)
}

// CPU is the CPU time (user and system) a process that ended used, from
// its rusage; 0 for one that never ran (st nil).
func CPU(st *os.ProcessState) time.Duration {
	if st == nil {
		return 0
	}
	return st.UserTime() + st.SystemTime()
}
