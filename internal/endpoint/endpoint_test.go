package endpoint

import (
	"strings"
	"testing"
)

func TestJoinOnce(t *testing.T) {
	cases := []struct{ base, path, want string }{
		{"http://127.0.0.1:8080", "/v1/chat/completions", "http://127.0.0.1:8080/v1/chat/completions"},
		{"http://127.0.0.1:8080/", "health", "http://127.0.0.1:8080/health"},
		{"https://api.example.com/v1", "/v1/chat/completions", "https://api.example.com/v1/chat/completions"},
		{"https://api.example.com/v1/", "/v1/models", "https://api.example.com/v1/models"},
		{"https://api.example.com/v1", "/health", "https://api.example.com/health"},
		{"http://h:1/proxy", "/v1/models", "http://h:1/proxy/v1/models"},
		{"http://h:1", "http://other:2/x", "http://other:2/x"},
	}
	for _, c := range cases {
		if got := Join(c.base, c.path); got != c.want {
			t.Errorf("Join(%q, %q) = %q, want %q", c.base, c.path, got, c.want)
		}
	}
}

func TestParse(t *testing.T) {
	for _, bad := range []string{"", "127.0.0.1:8080", "ftp://h", "http://h?x=1", "http://u:p@h"} {
		if _, err := Parse(bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
	e, err := Parse("https://api.example.com/v1/")
	if err != nil || e.Base != "https://api.example.com/v1" {
		t.Fatalf("Parse = %+v, %v", e, err)
	}
}

// TestShownURL: a password in a URL is shown as xxxxx, also in a URL
// that does not parse and in the error of ParseBase; other URLs are
// shown as given. Fails before this change: the error quoted the URL.
func TestShownURL(t *testing.T) {
	for raw, want := range map[string]string{
		"http://user:pw-7a@127.0.0.1:8080":     "http://user:xxxxx@127.0.0.1:8080",
		"http://user:pw-7a@127.0.0.1:bad/v1?x": "http://user:xxxxx@127.0.0.1:bad/v1?x",
		"https://u:p:w@h@host/v1":              "https://u:xxxxx@host/v1",
		"http://user@host":                     "http://user@host",
		"http://h:1/a@b:c":                     "http://h:1/a@b:c",
		"user:pw-7a@host":                      "user:xxxxx@host",
	} {
		if got := ShownURL(raw); got != want {
			t.Errorf("ShownURL(%q) = %q, want %q", raw, got, want)
		}
		if _, err := ParseBase(raw); strings.Contains(raw, "pw-7a") && (err == nil || strings.Contains(err.Error(), "pw-7a")) {
			t.Errorf("ParseBase(%q): %v", raw, err)
		}
	}
}

func TestKeyOrderAndRedaction(t *testing.T) {
	env := map[string]string{"OPENAI_API_KEY": "sk-open", "TTFTLAB_API_KEY": ""}
	get := func(k string) string { return env[k] }
	key, src, err := ResolveKey(KeyFlags{Getenv: get})
	if err != nil || key != "sk-open" || src != "OPENAI_API_KEY" {
		t.Fatalf("env: %q %q %v", key, src, err)
	}
	env["TTFTLAB_API_KEY"] = "sk-lab"
	if key, src, _ = ResolveKey(KeyFlags{Getenv: get}); key != "sk-lab" || src != "TTFTLAB_API_KEY" {
		t.Fatalf("TTFTLAB_API_KEY first: %q %q", key, src)
	}
	if key, src, _ = ResolveKey(KeyFlags{Flag: "sk-flag", Getenv: get}); key != "sk-flag" || src != "--api-key" {
		t.Fatalf("flag first: %q %q", key, src)
	}
	e := &Endpoint{Base: "http://h:1", Key: "sk-secret-1", KeySource: "--api-key",
		Header: map[string]string{"X-Api-Key": "sk-secret-2", "X-Trace": "abc", "Authorization": "Basic sk-secret-3"}}
	all := e.String() + " " + strings.Join(values(e.Shown()), " ") + " " + describe(e)
	if strings.Contains(all, "sk-secret") {
		t.Fatalf("a secret is shown: %s", all)
	}
	if e.Shown()["X-Trace"] != "abc" || e.Headers()["Authorization"] != "Basic sk-secret-3" {
		t.Fatalf("headers: %v", e.Headers())
	}
	if e.Describe()["api_key"] != "set from --api-key" {
		t.Fatalf("describe: %v", e.Describe())
	}
	if _, _, err := ParseHeader("X-Token sk-secret-4"); err == nil || strings.Contains(err.Error(), "sk-secret") {
		t.Fatalf("bad header error: %v", err)
	}
}

func values(m map[string]string) []string {
	var out []string
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	return out
}

func describe(e *Endpoint) string {
	var b strings.Builder
	for k, v := range e.Describe() {
		b.WriteString(k)
		b.WriteString("=")
		if m, ok := v.(map[string]any); ok {
			for hk, hv := range m {
				b.WriteString(hk + ":" + hv.(string) + ",")
			}
			continue
		}
		if s, ok := v.(string); ok {
			b.WriteString(s)
		}
	}
	return b.String()
}

func TestOriginAndHostPort(t *testing.T) {
	if !SameOrigin("https://h/v1", "https://H:443/v1/models") || SameOrigin("http://h:1", "http://h:2/x") || SameOrigin("http://h", "https://h") {
		t.Error("SameOrigin")
	}
	for _, c := range []struct {
		base string
		host string
		port int
	}{{"http://127.0.0.1:8080", "127.0.0.1", 8080}, {"https://h/v1", "h", 443}, {"http://[::1]:9", "::1", 9}, {"http://[::1]", "::1", 80}} {
		h, p, err := HostPort(c.base)
		if err != nil || h != c.host || p != c.port {
			t.Errorf("HostPort(%q) = %q %d %v", c.base, h, p, err)
		}
	}
}

// TestScrubber: the key and a secret header's value are replaced in
// text, also when a writer gets a secret split across two writes (at
// every split point); the Bearer form of a short key too; other headers
// and text are left alone.
func TestScrubber(t *testing.T) {
	e := &Endpoint{Key: "sk-echo-7d21", Header: map[string]string{"X-Api-Key": "hk-9f3e0a", "X-Trace": "trace-1"}}
	s := e.Scrubber()
	got := s.String("bad header Authorization: Bearer sk-echo-7d21, X-Api-Key: hk-9f3e0a, X-Trace: trace-1")
	if want := "bad header Authorization: Bearer [redacted], X-Api-Key: [redacted], X-Trace: trace-1"; got != want {
		t.Errorf("String = %q, want %q", got, want)
	}
	if b := []byte("nothing secret"); &s.Bytes(b)[0] != &b[0] {
		t.Error("Bytes copied a text that holds no secret")
	}
	text := "data: x\n\n: echo Bearer sk-echo-7d21 and hk-9f3e0a\n\nsk-echo-7d2"
	want := "data: x\n\n: echo Bearer [redacted] and [redacted]\n\nsk-echo-7d2"
	for cut := 0; cut <= len(text); cut++ {
		var out strings.Builder
		w := s.Writer(&out)
		w.Write([]byte(text[:cut]))
		w.Write([]byte(text[cut:]))
		if err := w.(*ScrubWriter).Flush(); err != nil {
			t.Fatal(err)
		}
		if out.String() != want {
			t.Fatalf("split at %d: wrote %q, want %q", cut, out.String(), want)
		}
	}
	// An excerpt shortened in the middle of a secret: its start is
	// redacted; a start shorter than minSecret, or without the cut mark,
	// is ordinary text.
	for in, want := range map[string]string{
		`the body starts "<p>Bearer sk-echo-7"... (900 bytes)`:    `the body starts "<p>Bearer [redacted]"... (900 bytes)`,
		`"a hk-9f3"... and "b sk-echo-7d21 sk-echo"... (9 bytes)`: `"a [redacted]"... and "b [redacted] [redacted]"... (9 bytes)`,
		`"ends in sk-"... (80 bytes), "sk-echo-7" and sk-echo-7"`: `"ends in sk-"... (80 bytes), "sk-echo-7" and sk-echo-7"`,
		`no excerpt here, sk-echo`:                                `no excerpt here, sk-echo`,
	} {
		if got := s.String(in); got != want {
			t.Errorf("String(%q) = %q, want %q", in, got, want)
		}
	}
	short := (&Endpoint{Key: "k1"}).Scrubber()
	if got := short.String("Authorization: Bearer k1; k1 is short"); got != "Authorization: [redacted]; k1 is short" {
		t.Errorf("short key: %q", got)
	}
	if (&Endpoint{Header: map[string]string{"X-Trace": "abc"}}).Scrubber() != nil {
		t.Error("a scrubber without secrets")
	}
}

// TestScrubPieces: a secret cut over several pieces becomes [redacted]
// in the piece where it starts and nothing in the others; pieces without
// a spanning secret come back as they were, and a secret inside one
// piece is left to String.
func TestScrubPieces(t *testing.T) {
	s := ScrubberFor(map[string]string{"Authorization": "Bearer sk-abcdefgh"})
	for _, c := range []struct{ in, want []string }{
		{[]string{"a sk-ab", "cdefgh b"}, []string{"a [redacted]", " b"}},
		{[]string{"x sk-", "abc", "def", "gh y", "z"}, []string{"x [redacted]", "", "", " y", "z"}},
		{[]string{"sk-abcd", "efgh sk-a", "bcdefgh"}, []string{"[redacted]", " [redacted]", ""}},
		{[]string{"no secret", " here"}, []string{"no secret", " here"}},
		{[]string{"sk-abcdefg", "x"}, []string{"sk-abcdefg", "x"}},
	} {
		got := s.Pieces(c.in)
		if strings.Join(got, "|") != strings.Join(c.want, "|") {
			t.Errorf("Pieces(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	in := []string{"a", "b"}
	if got := s.Pieces(in); &got[0] != &in[0] {
		t.Errorf("pieces without a spanning secret were copied")
	}
	var none *Scrubber
	if got := none.Pieces([]string{"sk-ab", "cdefgh"}); got[0] != "sk-ab" {
		t.Errorf("a nil scrubber changed the pieces: %q", got)
	}
}
