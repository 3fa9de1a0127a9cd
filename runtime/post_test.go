package runtime

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"ttftlab/runtime/luatest"
)

// echoServer answers a POST with {"method":, "type":, "body": <what came>},
// a JSON error for /bad and plain text for /text.
func echoServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got, _ := io.ReadAll(r.Body)
		switch r.URL.Path {
		case "/bad":
			w.WriteHeader(http.StatusBadRequest)
			w.Write([]byte(`{"error":{"code":400,"message":"\"content\" must be provided"}}`))
			return
		case "/text":
			w.Write([]byte("plain words"))
			return
		}
		out, _ := json.Marshal(map[string]any{"method": r.Method, "type": r.Header.Get("Content-Type"), "body": string(got)})
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPostBinding(t *testing.T) {
	srv := echoServer(t)
	vm, out := testVM(t, Config{Server: srv.URL})
	err := vm.RunString(`
		local r, text, status = post("/tokenize", {content = "Hi", add_special = true})
		print(status, r.method, r.type, r.body, #text > 0)
		r = post("`+srv.URL+`/apply-template", '{"messages":[]}')
		print(r.body)
		print(post("echo", json_object()).body)
		local bad, _, bstatus = post("/bad", {})
		print(bstatus, bad.error.message)
		print(post("/text", "x"))`, "p.lua")
	if err != nil {
		t.Fatal(err)
	}
	want := strings.Join([]string{
		`200	POST	application/json	{"add_special":true,"content":"Hi"}	true`,
		`{"messages":[]}`,
		`{}`,
		`400	"content" must be provided`,
		"nil\tplain words\t200", ""}, "\n")
	if out.String() != want {
		t.Fatalf("got  %q\nwant %q", out.String(), want)
	}
}

func TestPostBindingErrors(t *testing.T) {
	srv := echoServer(t)
	vm, _ := testVM(t, Config{Server: srv.URL})
	closed := luatest.ClosedURL(t)
	cases := map[string][]string{
		`post("/tokenize")`:                   {"p.lua:1:", "bad argument #2", "a table (sent as JSON) or a string expected, got nil"},
		`post("/tokenize", {content = 0/0})`:  {"p.lua:1:", "post: the body cannot be sent as JSON", "content", "NaN"},
		`post("` + closed + `/tokenize", {})`: {"p.lua:1:", "post: POST " + closed + "/tokenize", "nothing is listening"},
	}
	for code, wants := range cases {
		err := vm.RunString(code, "p.lua")
		if err == nil {
			t.Errorf("%s: expected an error", code)
			continue
		}
		luatest.MustContain(t, err.Error(), wants...)
	}
}
