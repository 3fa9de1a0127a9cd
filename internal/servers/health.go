package servers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
)

// HealthReport is what a health probe found (llamaserver's CheckHealth):
// /health read by this package's rules (HealthyBody, LoadingBody), and
// when it did not say ready, the other kinds' answers (Others).
type HealthReport struct {
	// OK is a ready server.
	OK bool
	// Answered is true when any HTTP answer came, OK or not (a TLS
	// handshake refused counts: a server is there).
	Answered bool
	// Stalled is a server that took the probe's request but gave no
	// whole answer within ProbeTimeout (Summary says which): it holds
	// every request, so it counts as answering, never as a ready server.
	Stalled bool
	// Loading is a 503 from /health: a server still loading its model.
	Loading bool
	// Busy is any other 503 from /health: a server (or a proxy in front
	// of it) with no room for the request. Set by llamaserver's probe.
	Busy bool
	// Path is the endpoint whose answer decided: /health, /api/version or
	// /v1/models.
	Path   string
	Status int
	// ContentType is the Content-Type of /health's answer, when the probe
	// kept it (llamaserver's does).
	ContentType string
	// Summary is "ok", "loading model", "not answering" or what the last
	// endpoint answered ("HTTP 401: ...").
	Summary string
	// TLS is the handshake's failure when a TLS server answered but was
	// not trusted (its certificate, or plain HTTP at an https URL): a
	// server is there, so none may be started on its port.
	TLS error
	// Proxy is the failure of the proxy the probe went through (it
	// could not be reached, refused, or its URL in the environment does
	// not parse): nothing is known of the server behind it.
	Proxy error
	// Asked holds every answer the probe read past /health (GET
	// /api/version, /v1/models), by path, for Remembering. A caller that
	// wants the model list, or to know whether its key is refused, reads
	// /v1/models's here (AnswerOf) rather than ask again.
	Asked map[string]Answer
}

// AnswerOf is what the probe read at path, nil when it did not ask it or
// no answer came.
func (r HealthReport) AnswerOf(path string) *Answer {
	if a, ok := r.Asked[path]; ok {
		return &a
	}
	return nil
}

// Answer is one HTTP answer a probe read: its status and body.
type Answer struct {
	Status int
	Body   []byte
}

// Others goes on where /health did not say ready (r is what it said): asks
// as the kinds without llama.cpp's /health answer, GET /api/version
// (Ollama), else GET /v1/models (hosted APIs, a keyed llama-server). Both
// are asked at once, in one Round of their own: a server that answered
// /health slowly still gets its time for them.
func Others(ctx context.Context, g Getter, r HealthReport) HealthReport {
	ctx, cancel := Round(ctx)
	defer cancel()
	var v struct {
		Version string `json:"version"`
	}
	asked := map[string]Answer{}
	got := askAll(ctx, g, "/api/version", "/v1/models")
	for p, a := range got {
		if a.err == nil {
			asked[p] = Answer{Status: a.status, Body: a.body}
		}
	}
	a := got["/api/version"]
	if c, b := a.status, a.body; a.err == nil && c == http.StatusOK && json.Unmarshal(b, &v) == nil && v.Version != "" {
		return HealthReport{OK: true, Answered: true, Path: "/api/version", Status: c, Summary: "ok", Asked: asked}
	}
	var models struct {
		Data []json.RawMessage `json:"data"`
	}
	a = got["/v1/models"]
	c, b, err := a.status, a.body, a.err
	if err != nil {
		r.Asked = asked
		return r
	}
	asked["/v1/models"] = Answer{Status: c, Body: b}
	if c == http.StatusOK && json.Unmarshal(b, &models) == nil && models.Data != nil {
		return HealthReport{OK: true, Answered: true, Path: "/v1/models", Status: c, Summary: "ok", Asked: asked}
	}
	if c == http.StatusUnauthorized || c == http.StatusForbidden {
		return HealthReport{Answered: true, Path: "/v1/models", Status: c, Summary: r.Summary + "; " + summary("/v1/models", c, b), Asked: asked}
	}
	r.Asked = asked
	return r
}

// HealthyBody is an empty body (vLLM), or JSON whose status, when it has
// one, is "ok" (llama.cpp, SGLang); an HTML page is some other program.
func HealthyBody(b []byte) bool {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return true
	}
	var h map[string]any
	if json.Unmarshal(b, &h) != nil {
		return false
	}
	s, has := h["status"]
	return !has || s == "ok"
}

func summary(path string, code int, body []byte) string {
	b := bytes.TrimSpace(body)
	if len(b) > 120 {
		b = b[:120]
	}
	return fmt.Sprintf("GET %s: HTTP %d %q", path, code, b)
}

// LoadingBody is a 503 body that says the model is loading (llama-server's
// "Loading model"), or an empty one (older builds); any other 503 is a
// busy or overloaded server, not one still starting.
func LoadingBody(body []byte) bool {
	b := bytes.ToLower(bytes.TrimSpace(body))
	return len(b) == 0 || bytes.Contains(b, []byte("loading"))
}
