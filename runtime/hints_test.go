package runtime

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"ttftlab/runtime/luatest"
)

// TestHintsNameWhatTheUserSet: the packages below report in their own
// terms; the host adds the flag, global or option the user set.
func TestHintsNameWhatTheUserSet(t *testing.T) {
	closed := luatest.ClosedURL(t)
	plainSrv := httptest.NewServer(http.NotFoundHandler())
	t.Cleanup(plainSrv.Close)
	plain := plainSrv.URL
	flags := map[string]string{"SERVER": "--server", "KB_DIR": "--kb", "SERVER_LOG": "--server-log"}
	missing := filepath.Join(t.TempDir(), "nope")
	cases := []struct {
		name    string
		cfg     Config
		code    string
		want    []string
		without string
	}{
		{"stream to a closed port, from the command line", Config{Server: closed, Sources: flags},
			`stream("hi")`, []string{"connection refused", "check --server, or start llama-server there"}, "opts.server"},
		{"stream to a closed port, from opts.server", Config{Server: "http://127.0.0.1:9", Sources: flags},
			`stream("hi", {server = "` + closed + `"})`, []string{"connection refused", "check opts.server"}, "--server"},
		{"https to a plain server", Config{Server: strings.Replace(plain, "http://", "https://", 1), Sources: flags},
			`stream("hi")`, []string{"answered plain HTTP; use http://; check --server"}, "start llama-server"},
		{"stream without a flag", Config{Server: closed},
			`stream("hi")`, []string{"check SERVER"}, "--server"},
		{"health to a closed port", Config{Server: closed, Sources: flags},
			`health()`, []string{"nothing is listening", "check --server"}, ""},
		{"a missing KB folder", Config{KBDir: missing, Sources: flags},
			`kb_docs()`, []string{missing, "does not exist", "--kb names a folder"}, ""},
		{"a missing KB folder given to kb_docs", Config{Sources: flags},
			`kb_docs("` + missing + `")`, []string{"does not exist", "kb_docs's dir"}, "--kb"},
		{"no server log", Config{}, `log_contains("x")`, []string{"set SERVER_LOG"}, "--server-log"},
		{"a bad opts.server", Config{Sources: flags},
			`stream("hi", {server = "127.0.0.1:1"})`, []string{"stream: bad server URL", "want http://HOST:PORT", "check opts.server"}, "stream: stream:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			vm, _ := testVM(t, c.cfg)
			err := vm.RunString(c.code, "h.lua")
			if err == nil {
				t.Fatal("expected an error")
			}
			luatest.MustContain(t, err.Error(), c.want...)
			if c.without != "" {
				luatest.MustNotContain(t, err.Error(), c.without)
			}
		})
	}
}
