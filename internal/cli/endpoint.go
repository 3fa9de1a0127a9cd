package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"ttftlab/internal/endpoint"
	"ttftlab/internal/llamaserver"
	"ttftlab/internal/servers"
	"ttftlab/internal/stream"
)

// ErrSeveralModels says GET /v1/models listed more than one model and
// --model-name chose none.
var ErrSeveralModels = errors.New("the server lists several models")

// settle finishes the endpoint once a server answers: it refuses a key
// the server does not accept, at once and with the server's own words,
// and picks the model name (--model-name, else the one id GET /v1/models
// lists).
func (e *env) settle(ctx context.Context, l *llamaserver.Lease) error {
	ep := l.Endpoint
	// One short round of probes, said when it waits: a server that takes
	// these requests and never answers holds the command that long.
	ctx, cancel := servers.Round(e.waiting(ctx, l.URL))
	defer cancel()
	// The health probe may have asked /v1/models already (a server
	// without llama.cpp's /health): its answer is the list, or the key
	// refused; the lease's getter gives it again rather than ask.
	models, err := e.listModels(ctx, l)
	if err != nil {
		return err
	}
	if err := refusedKey(ctx, l, "/props"); err != nil {
		return err
	}
	if ep.Model != "" {
		return nil
	}
	switch len(models) {
	case 0:
		return nil
	case 1:
		ep.Model, ep.ModelSource = models[0], "GET /v1/models"
		return nil
	}
	return fmt.Errorf("%w at %s: %s; choose one with --model-name NAME", ErrSeveralModels,
		ep.URL("/v1/models"), strings.Join(models, ", "))
}

// listModels reads the ids of GET /v1/models (through the lease's
// getter, which has the probe's answer when it asked); none when the
// server has no such list. A 401 or 403 is the key refused: an error.
func (e *env) listModels(ctx context.Context, l *llamaserver.Lease) ([]string, error) {
	ep := l.Endpoint
	url := ep.URL("/v1/models")
	status, body, err := servers.Ask(ctx, l.Getter(), "/v1/models")
	if err != nil {
		return nil, nil
	}
	if err := authError(url, status, body, ep, l.Route); err != nil {
		return nil, err
	}
	if status != http.StatusOK {
		return nil, nil
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if json.Unmarshal(body, &list) != nil {
		return nil, nil
	}
	var ids []string
	for _, m := range list.Data {
		if m.ID != "" {
			ids = append(ids, m.ID)
		}
	}
	return ids, nil
}

// refusedKey asks path once: llama-server with --api-key answers 401 on
// everything but /health and /v1/models, so a wrong key shows here before
// any measurement. Other answers say nothing about the key.
func refusedKey(ctx context.Context, l *llamaserver.Lease, path string) error {
	status, body, err := servers.Ask(ctx, l.Getter(), path)
	if err != nil {
		return nil
	}
	return authError(l.Endpoint.URL(path), status, body, l.Endpoint, l.Route)
}

// authError is a 401 or 403 as the user reads it: the server's own
// message and the flag that fixes it; rt is the proxy the request went
// through (Lease.Route), which may be what refused it.
func authError(url string, status int, body []byte, ep *endpoint.Endpoint, rt stream.Route) error {
	if status != http.StatusUnauthorized && status != http.StatusForbidden {
		return nil
	}
	msg := serverMessage(body)
	// Through a proxy, the refusal may be the proxy's own.
	who := "the server"
	note := rt.Note(url, status)
	if note != "" {
		note, who = "; "+note, "if it was the server, it"
	}
	if ep.Key == "" {
		return fmt.Errorf("GET %s answered %d: %s%s; %s wants an API key: pass it with --api-key KEY "+
			"(or --api-key-file FILE, TTFTLAB_API_KEY, OPENAI_API_KEY)", url, status, msg, note, who)
	}
	return fmt.Errorf("GET %s answered %d: %s%s; %s refused the API key from %s: check --api-key", url, status, msg, note, who, ep.KeySource)
}

// serverMessage is error.message of an OpenAI-style error body, else the
// start of the body.
func serverMessage(body []byte) string {
	var e struct {
		Error struct {
			Message string `json:"message"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &e) == nil && e.Error.Message != "" {
		return fmt.Sprintf("%q", e.Error.Message)
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 200 {
		s = s[:200] + "..."
	}
	return fmt.Sprintf("%q", s)
}
