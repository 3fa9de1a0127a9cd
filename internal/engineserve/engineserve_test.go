package engineserve

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"strings"
	"testing"
)

func get(t *testing.T, h http.Handler, method, path string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(method, path, nil))
	b, _ := io.ReadAll(rec.Body)
	return rec.Code, string(b)
}

// TestMux: the routes are served, /health and /v1/models answer, a
// route's path with another method is a 405 naming the method, and
// another path a 404 listing what the server answers; every error is
// OpenAI's JSON.
func TestMux(t *testing.T) {
	m := &Mux{Model: "engine-x", Routes: []Route{
		{Method: http.MethodPost, Path: "/v1/audio/x", Serve: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "x served") }},
		{Method: http.MethodGet, Path: "/v1/live", Note: " (WebSocket)", Serve: func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "live served") }},
	}}
	for _, c := range []struct {
		method, path string
		code         int
		want         string
	}{
		{"POST", "/v1/audio/x", 200, "x served"},
		{"GET", "/v1/live", 200, "live served"},
		{"GET", "/health", 200, `{"status":"ok"}`},
		{"GET", "/v1/models", 200, `"data":[{"id":"engine-x","object":"model"`},
		{"GET", "/v1/audio/x", 405, "use POST for /v1/audio/x"},
		{"POST", "/v1/live", 405, "use GET for /v1/live"},
		{"GET", "/nope", 404, "no such path /nope: this server answers POST /v1/audio/x, GET /v1/live (WebSocket), GET /health and GET /v1/models"},
	} {
		code, body := get(t, m, c.method, c.path)
		if code != c.code || !strings.Contains(body, c.want) || (code != 200 && !json.Valid([]byte(body))) {
			t.Errorf("%s %s: %d %s, want %d with %q", c.method, c.path, code, body, c.code, c.want)
		}
	}
}

// TestFail: the message is a JSON string whatever it holds; a status
// under 500 is the client's error, from 500 on the server's.
func TestFail(t *testing.T) {
	for code, typ := range map[int]string{400: "invalid_request_error", 499: "invalid_request_error", 500: "server_error", 503: "server_error"} {
		rec := httptest.NewRecorder()
		Fail(rec, code, "a %q and a\nnewline", "quote")
		var v struct {
			Error struct{ Message, Type string }
		}
		if err := json.Unmarshal(rec.Body.Bytes(), &v); err != nil || rec.Code != code || v.Error.Message != "a \"quote\" and a\nnewline" ||
			v.Error.Type != typ || rec.Header().Get("Content-Type") != "application/json" {
			t.Errorf("%d: %d %s (%v), want type %s", code, rec.Code, rec.Body, err, typ)
		}
	}
}

// TestFailBody: a body over the reader's limit is a 413, another that
// cannot be read a 400 saying why; the hint follows both.
func TestFailBody(t *testing.T) {
	for _, c := range []struct {
		body string
		code int
		want string
	}{
		{`"` + strings.Repeat("x", 100), 413, "the body is too large: over 10 bytes; send less"},
		{"x", 400, "the body is not a JSON request: invalid character 'x' looking for beginning of value; send less"},
	} {
		rec := httptest.NewRecorder()
		var v any
		err := json.NewDecoder(http.MaxBytesReader(rec, io.NopCloser(strings.NewReader(c.body)), 10)).Decode(&v)
		FailBody(rec, err, 10, "a JSON request", "send less")
		if rec.Code != c.code || !strings.Contains(rec.Body.String(), c.want) {
			t.Errorf("%d bytes: %d %s, want %d with %q", len(c.body), rec.Code, rec.Body, c.code, c.want)
		}
	}
}

// TestCPU: a process that ended counts its user and system time; one
// that never ran counts none.
func TestCPU(t *testing.T) {
	cmd := exec.Command("sh", "-c", "i=0; while [ $i -lt 20000 ]; do i=$((i+1)); done")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	st := cmd.ProcessState
	if CPU(st) != st.UserTime()+st.SystemTime() || CPU(nil) != 0 {
		t.Errorf("CPU %v after a busy loop, %v for none", CPU(st), CPU(nil))
	}
}
