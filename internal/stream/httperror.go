package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"

	"ttftlab/internal/endpoint"
)

// serverError is llama-server's error object: {"error":{"code","message",
// "type",...}}. Other OpenAI-compatible servers send the same shape or a
// bare string.
type serverError struct {
	Code          any    `json:"code"`
	Message       string `json:"message"`
	Type          string `json:"type"`
	NPromptTokens *int   `json:"n_prompt_tokens"`
	NCtx          *int   `json:"n_ctx"`
}

// parseServerError reads the value of an "error" member: an object or a
// string. ok is false when it is neither.
func parseServerError(raw json.RawMessage) (serverError, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return serverError{}, false // the usual case: no error member
	}
	var se serverError
	if raw[0] == '"' {
		return se, json.Unmarshal(raw, &se.Message) == nil
	}
	if json.Unmarshal(raw, &se) != nil {
		return se, false
	}
	return se, true
}

// parseErrorBody reads a whole error response body.
func parseErrorBody(body []byte) (serverError, bool) {
	var wrapper struct {
		Error json.RawMessage `json:"error"`
	}
	if json.Unmarshal(body, &wrapper) != nil {
		return serverError{}, false
	}
	return parseServerError(wrapper.Error)
}

// httpError explains a non-2xx answer, with the server's own message when
// the body carries one and what to try for the usual causes; a body
// quoted is redacted of scrub's secrets before it is shortened.
func httpError(method, url string, resp *http.Response, body []byte, scrub *endpoint.Scrubber) *Error {
	status := fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	se, ok := parseErrorBody(body)
	var e *Error
	switch {
	case ok && se.Type != "":
		e = newError(KindHTTP, method, url, nil, "%s (%s): %s%s", status, se.Type, se.Message, httpHint(resp, se, body))
	case ok:
		e = newError(KindHTTP, method, url, nil, "%s: %s%s", status, se.Message, httpHint(resp, se, body))
	case len(body) == 0:
		e = newError(KindHTTP, method, url, nil, "%s with an empty body%s", status, httpHint(resp, se, body))
	default:
		e = newError(KindHTTP, method, url, nil, "%s; the body starts %s%s", status, quote(scrub, body, 200), httpHint(resp, se, body))
	}
	e.Status, e.Type, e.Message = resp.StatusCode, se.Type, se.Message
	if resp.StatusCode == http.StatusTooManyRequests {
		e.Kind = KindRateLimited
	}
	return e
}

// httpHint suggests a next step for an error status, "" when there is none
// better than the server's message.
func httpHint(resp *http.Response, se serverError, body []byte) string {
	switch {
	case se.Type == "exceed_context_size_error":
		return contextHint(se)
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return fmt.Sprintf("; the server redirects to %q", resp.Header.Get("Location"))
	case resp.StatusCode == http.StatusUnauthorized:
		return "; the server wants an API key, or refused the one sent: pass it with --api-key KEY " +
			"(or --api-key-file FILE, TTFTLAB_API_KEY, OPENAI_API_KEY)"
	case resp.StatusCode == http.StatusServiceUnavailable && loadingModel(se, body):
		return "; the server is still loading its model: wait until GET /health answers 200"
	case resp.StatusCode == http.StatusServiceUnavailable:
		return "; the server is busy/overloaded (503): lower the load or add capacity, then try again; ttftlab does not retry"
	case resp.StatusCode >= 500:
		return "; the server's log says why"
	}
	return ""
}

// contextHint turns llama-server's context overflow into advice.
func contextHint(se serverError) string {
	const try = "send fewer documents or a shorter prompt, or restart llama-server with a bigger -c (the context is split between -np slots)"
	if se.NPromptTokens != nil && se.NCtx != nil {
		return fmt.Sprintf("; the prompt (%d tokens) exceeds the context (%d tokens): %s", *se.NPromptTokens, *se.NCtx, try)
	}
	return "; the prompt exceeds the server's context: " + try
}

// loadingModel tells llama-server's 503 while it loads its model
// ({"error":{"message":"Loading model",...}}, in older builds
// {"status":"loading model"}) from any other 503: a server or a proxy in
// front of it refusing work it has no room for.
func loadingModel(se serverError, body []byte) bool {
	if bytes.Contains(bytes.ToLower([]byte(se.Message)), []byte("loading model")) {
		return true
	}
	var old struct {
		Status string `json:"status"`
	}
	return json.Unmarshal(body, &old) == nil && bytes.Contains(bytes.ToLower([]byte(old.Status)), []byte("loading"))
}
