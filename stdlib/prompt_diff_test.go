package stdlib_test

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	lua "github.com/yuin/gopher-lua"

	"ttftlab/runtime"
)

// newServerVM is newVM with SERVER set.
func newServerVM(t *testing.T, server string) *lua.LState {
	t.Helper()
	vm, err := runtime.New(context.Background(), runtime.Config{Server: server, Stdout: io.Discard, Stderr: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(vm.Close)
	return vm.State()
}

// byteServer is a fake llama-server whose template writes each message as
// "role\ncontent\n" and whose tokenizer makes one token per byte (the
// byte's value + 10), after a BOS token 1 when add_special is set.
func byteServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Messages   []struct{ Role, Content string }
			Content    string
			AddSpecial bool `json:"add_special"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.Method != http.MethodPost {
			http.Error(w, `{"error":{"message":"bad request"}}`, http.StatusBadRequest)
			return
		}
		switch r.URL.Path {
		case "/apply-template":
			var b strings.Builder
			for _, m := range req.Messages {
				b.WriteString(m.Role + "\n" + m.Content + "\n")
			}
			json.NewEncoder(w).Encode(map[string]string{"prompt": b.String()})
		case "/tokenize":
			tokens := []int{}
			if req.AddSpecial {
				tokens = append(tokens, 1)
			}
			for _, c := range []byte(req.Content) {
				tokens = append(tokens, int(c)+10)
			}
			json.NewEncoder(w).Encode(map[string]any{"tokens": tokens})
		default:
			http.Error(w, `{"error":{"code":404,"message":"File Not Found"}}`, http.StatusNotFound)
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPromptFirstDifference(t *testing.T) {
	srv := byteServer(t)
	L := newServerVM(t, srv.URL)
	cases := []struct {
		a, b string // Lua expressions
		want string // tokens a_tokens b_tokens same at_char at_byte
	}{
		// "system\nYou are " is 15 bytes: 16 tokens with BOS.
		{`{{role="system", content="You are kind."}, {role="user", content="Hi"}}`,
			`{{role="system", content="You are calm."}, {role="user", content="Hi"}}`, "16 30 30 false 15 15"},
		{`{{role="user", content="Hi"}}`, `{{role="user", content="Hi"}}`, "9 9 9 true 8 8"},
		// b continues a: every token of a is shared.
		{`{{role="user", content="Hi"}}`, `{{role="user", content="Hi"}, {role="assistant", content="Hello"}}`, "9 9 25 false 8 8"},
		// Characters, not bytes: 请带上 is 3 characters and 9 bytes.
		{`{{role="user", content="请带上身份证"}}`, `{{role="user", content="请带上保险卡"}}`, "15 25 25 false 8 14"},
		// 请 and 诶 share two of their three bytes: the tokens share them,
		// the text does not.
		{`{{role="user", content="请"}}`, `{{role="user", content="诶"}}`, "8 10 10 false 5 5"},
		// Strings are prompts already.
		{`"abc"`, `"abd"`, "3 4 4 false 2 2"},
		{`""`, `"x"`, "1 1 2 false 0 0"},
	}
	for _, c := range cases {
		out := mustEval(t, L, `local r = require("prompt").first_difference(`+c.a+`, `+c.b+`)
			return string.format("%d %d %d %s %d %d", r.tokens, r.a_tokens, r.b_tokens, tostring(r.same), r.at_char, r.at_byte),
				r.a_prompt:sub(1, r.at_byte) == r.b_prompt:sub(1, r.at_byte)`)
		if out[0].String() != c.want || out[1] != lua.LTrue {
			t.Errorf("first_difference(%s, %s) = %s (common text equal: %v), want %s", c.a, c.b, out[0], out[1], c.want)
		}
	}
	// opts.server overrides SERVER.
	L2 := newServerVM(t, "http://127.0.0.1:1")
	out := mustEval(t, L2, `return require("prompt").first_difference("ab", "ac", {server = "`+srv.URL+`/"}).tokens`)
	if num(t, out[0]) != 2 {
		t.Errorf("with opts.server: tokens %v, want 2", out[0])
	}
}

func TestPromptFirstDifferenceErrors(t *testing.T) {
	srv := byteServer(t)
	L := newServerVM(t, srv.URL)
	none := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(none.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := "http://" + ln.Addr().String()
	ln.Close()
	cases := []struct {
		code string
		want []string
	}{
		{`require("prompt").first_difference(5, "x")`, []string{"prompt.first_difference", "a must be an array of messages or a prompt string", "number"}},
		{`require("prompt").first_difference("x", {{content="hi"}})`, []string{"b[1] must be a message"}},
		{`require("prompt").first_difference("x", "y", 3)`, []string{"opts must be a table"}},
		{`require("prompt").first_difference({}, "y", {server = "` + none.URL + `"})`,
			[]string{"POST " + none.URL + "/apply-template answered 404", "needs llama-server's /apply-template"}},
		{`require("prompt").first_difference("x", "y", {server = "` + closed + `"})`,
			[]string{"prompt.first_difference: post: POST " + closed + "/tokenize", "nothing is listening"}},
	}
	for _, c := range cases {
		assertErr(t, L, c.code, c.want...)
	}
	assertErr(t, newVM(t), `require("prompt").first_difference("x", "y")`, "opts.server (or SERVER) must be the server's URL")
}
