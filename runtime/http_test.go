package runtime

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"ttftlab/runtime/luatest"
)

func fakeEndpoints(t *testing.T, routes map[string]struct {
	status int
	body   string
}) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rt, ok := routes[r.URL.Path]
		if !ok {
			rt.status, rt.body = 404, `{"error":{"code":404,"message":"File Not Found","type":"not_found_error"}}`
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(rt.status)
		fmt.Fprint(w, rt.body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

type route = struct {
	status int
	body   string
}

func TestHTTPBindings(t *testing.T) {
	srv := fakeEndpoints(t, map[string]route{
		"/health": {503, `{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}`},
		"/props":  {200, `{"default_generation_settings":{"n_ctx":4096},"total_slots":1,"model_alias":null}`},
		"/slots":  {200, `[{"id":0,"n_ctx":4096,"is_processing":false}]`},
	})
	vm, out := testVM(t, Config{Server: srv.URL + "/"})
	err := vm.RunString(`
		local h, hbody, hstatus = health()
		print(hstatus, h.error.message, #hbody > 0)
		local p, _, pstatus = props()
		print(pstatus, p.default_generation_settings.n_ctx, p.model_alias == json_null)
		local s = slots()
		print(#s, s[1].n_ctx, s[1].is_processing)
		print(get("/nothing"))
		print((get("`+srv.URL+`/props")))`, "h.lua")
	if err != nil {
		t.Fatal(err)
	}
	want := "503\tLoading model\ttrue\n200\t4096\ttrue\n1\t4096\tfalse\n404\t{\"error\":{\"code\":404,\"message\":\"File Not Found\",\"type\":\"not_found_error\"}}\n200\n"
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
}

func TestHTTPBindingErrors(t *testing.T) {
	srv := fakeEndpoints(t, map[string]route{
		"/slots":  {501, `{"error":{"code":501,"message":"This server does not support slots endpoint.","type":"not_supported_error"}}`},
		"/health": {500, `oops`},
		"/props":  {200, `<html>`},
	})
	vm, _ := testVM(t, Config{Server: srv.URL})
	cases := map[string][]string{
		`slots()`:  {"h.lua:1: slots: GET " + srv.URL + "/slots answered 501", "without --no-slots"},
		`health()`: {"health: GET " + srv.URL + "/health answered 500: oops"},
		`props()`:  {"props: GET " + srv.URL + "/props answered 200 with a body that is not JSON", "<html>"},
	}
	for code, wants := range cases {
		err := vm.RunString(code, "h.lua")
		if err == nil {
			t.Errorf("%s: expected an error", code)
			continue
		}
		luatest.MustContain(t, err.Error(), wants...)
	}
	srv.Close()
	err := vm.RunString(`get("/health")`, "h.lua")
	if err == nil || !strings.Contains(err.Error(), srv.URL+"/health") {
		t.Fatalf("a network error must name the URL: %v", err)
	}
}
