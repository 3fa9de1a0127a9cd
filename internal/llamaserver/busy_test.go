package llamaserver

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"ttftlab/internal/endpoint"
)

// TestHealth503LoadingOrBusy: a 503 from /health is a model loading only
// when the body says so (or is empty); any other 503 is a busy server,
// and the lease's error says so instead of blaming the model. Fails
// before this change: every 503 was "loading model".
func TestHealth503LoadingOrBusy(t *testing.T) {
	for _, c := range []struct {
		name, body     string
		loading, busy  bool
		inError, notIn string
	}{
		{"loading", `{"error":{"message":"Loading model","type":"unavailable_error","code":503}}`, true, false, "still loading its model", "busy"},
		{"loading, old build", `{"status":"loading model"}`, true, false, "still loading its model", "busy"},
		{"busy", `{"status":"no slot available"}`, false, true, "busy/overloaded", "loading"},
	} {
		t.Run(c.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusServiceUnavailable)
				w.Write([]byte(c.body))
			}))
			defer srv.Close()
			ep, err := endpoint.Parse(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			r := CheckHealth(context.Background(), ep)
			if r.Loading != c.loading || r.Busy != c.busy || r.OK {
				t.Errorf("health %+v: want loading %v, busy %v", r, c.loading, c.busy)
			}
			_, err = Ensure(context.Background(), &Registry{dir: t.TempDir()}, Want{Endpoint: ep, Required: true, Options: Options{Model: "/m.gguf"}})
			var notLLM *NotLLMError
			if !errors.As(err, &notLLM) || !strings.Contains(err.Error(), c.inError) || strings.Contains(err.Error(), c.notIn) {
				t.Errorf("Ensure: %v; want %q and not %q", err, c.inError, c.notIn)
			}
		})
	}
}
