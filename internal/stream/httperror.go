package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
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
// the body carries one and what to try for the usual causes.
func httpError(method, url string, resp *http.Response, body []byte) *Error {
	status := fmt.Sprintf("HTTP %d %s", resp.StatusCode, http.StatusText(resp.StatusCode))
	se, ok := parseErrorBody(body)
	var e *Error
	switch {
	case ok && se.Type != "":
		e = newError(KindHTTP, method, url, nil, "%s (%s): %s%s", status, se.Type, se.Message, httpHint(resp, se))
	case ok:
		e = newError(KindHTTP, method, url, nil, "%s: %s%s", status, se.Message, httpHint(resp, se))
	case len(body) == 0:
		e = newError(KindHTTP, method, url, nil, "%s with an empty body%s", status, httpHint(resp, se))
	default:
		e = newError(KindHTTP, method, url, nil, "%s; the body starts %s%s", status, quote(body, 200), httpHint(resp, se))
	}
	e.Status, e.Type, e.Message = resp.StatusCode, se.Type, se.Message
	if resp.StatusCode == http.StatusTooManyRequests {
		e.Kind = KindRateLimited
	}
	return e
}

// httpHint suggests a next step for an error status, "" when there is none
// better than the server's message.
func httpHint(resp *http.Response, se serverError) string {
	switch {
	case se.Type == "exceed_context_size_error":
		return contextHint(se)
	case resp.StatusCode >= 300 && resp.StatusCode < 400:
		return fmt.Sprintf("; the server redirects to %q", resp.Header.Get("Location"))
	case resp.StatusCode == http.StatusUnauthorized:
		return "; the server wants an API key, or refused the one sent: pass it with --api-key KEY " +
			"(or --api-key-file FILE, TTFTLAB_API_KEY, OPENAI_API_KEY)"
	case resp.StatusCode == http.StatusServiceUnavailable:
		return "; the server is not ready (still loading the model?): wait until GET /health answers 200"
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
