package runtime

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"ttftlab/runtime/luatest"

	"ttftlab/internal/endpoint"
)

// keyServer streams one chunk and records, for every request, the path,
// the Authorization header and the body's model.
func keyServer(t *testing.T) (*httptest.Server, func() []string) {
	var mu sync.Mutex
	var seen []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var b struct {
			Model string `json:"model"`
		}
		json.Unmarshal(body, &b)
		mu.Lock()
		seen = append(seen, fmt.Sprintf("%s auth=%q model=%q", r.URL.Path, r.Header.Get("Authorization"), b.Model))
		mu.Unlock()
		if r.URL.Path != "/v1/chat/completions" {
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{"status":"ok"}`))
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"Hi.\"}}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv, func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), seen...)
	}
}

// TestEndpointInLua: stream(), get() and server_info() use the command's
// endpoint (key, model, a /v1 base); server_info().endpoint never holds
// the key; opts.server takes an endpoint table, and a URL on another
// origin gets no key.
// Fails before this change: Config had no endpoint and opts.server took
// only a string.
func TestEndpointInLua(t *testing.T) {
	mine, seenMine := keyServer(t)
	other, seenOther := keyServer(t)
	ep := &endpoint.Endpoint{Base: mine.URL + "/v1", Key: "sk-lua-1", KeySource: "TTFTLAB_API_KEY",
		Model: "m1", ModelSource: "--model-name", Header: map[string]string{"X-Api-Token": "tok"}}
	vm, out := testVM(t, Config{Endpoint: ep})
	err := vm.RunString(`
stream("hello")
get("/health")
local e = server_info().endpoint
print(e.url == SERVER, e.api_key, e.model, e.headers.Authorization, e.headers["X-Api-Token"])
stream("hello", {server = {url = "`+other.URL+`", api_key = "sk-table-2", model = "m2"}})
stream("hello", {server = "`+other.URL+`", body = {model = "own"}})
`, "endpoint.lua")
	if err != nil {
		t.Fatal(err)
	}
	luatest.MustContain(t, out.String(), "true\tset from TTFTLAB_API_KEY\tm1\t[redacted]\t[redacted]")
	luatest.MustNotContain(t, out.String(), "sk-lua-1")
	want := []string{`/v1/chat/completions auth="Bearer sk-lua-1" model="m1"`, `/health auth="Bearer sk-lua-1" model=""`}
	if got := seenMine(); strings.Join(got, "|") != strings.Join(append(want, got[2:]...), "|") || len(got) < 2 {
		t.Errorf("SERVER saw %q, want first %q", got, want)
	}
	for _, s := range seenMine() {
		if !strings.Contains(s, "sk-lua-1") {
			t.Errorf("a request to SERVER without the key: %s", s)
		}
	}
	wantOther := `/v1/chat/completions auth="Bearer sk-table-2" model="m2"|/v1/chat/completions auth="" model="own"`
	if got := strings.Join(seenOther(), "|"); got != wantOther {
		t.Errorf("the other server saw %q, want %q", got, wantOther)
	}
}
