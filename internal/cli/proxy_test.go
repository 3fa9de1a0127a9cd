package cli

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestProxyRefusalIsNotTheServers: with HTTP_PROXY naming a proxy that
// refuses, `run` names the proxy, the variable and the fix, and does not
// say that no LLM server answers nor that the key is wanted as if the
// server alone had said so. The server's name is never resolved: only
// the proxy sees it. Fails before this change: "no LLM server answers"
// for a 407, "the server wants an API key" alone for a 403. A 407 to a
// proxy URL that holds a user and password says the proxy refused them
// (it said "put them in HTTP_PROXY" before this change), never showing
// the password.
func TestProxyRefusalIsNotTheServers(t *testing.T) {
	for _, tc := range []struct {
		status    int
		want, bad []string
		user      string
	}{
		{http.StatusProxyAuthRequired,
			[]string{"answered 407 Proxy Authentication Required", "(from HTTP_PROXY)", "NO_PROXY=ttftlab-proxy-test.invalid"},
			[]string{"no LLM server answers", "API key"}, ""},
		{http.StatusForbidden,
			[]string{"answered 403", "went through the proxy", "(from HTTP_PROXY)", "NO_PROXY=ttftlab-proxy-test.invalid", "if it was the server"},
			[]string{"; the server wants an API key"}, ""},
		{http.StatusProxyAuthRequired,
			[]string{"answered 407 Proxy Authentication Required", "refused the user and password in HTTP_PROXY", "NO_PROXY=ttftlab-proxy-test.invalid"},
			[]string{"no LLM server answers", "API key", "put them in", "pw-s3cret"}, "bob:pw-s3cret@"},
	} {
		proxy := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(tc.status) }))
		script := writeScript(t, "print('ran')\n")
		cmd := childCommand(t.TempDir(), "run", script, "--server", "http://ttftlab-proxy-test.invalid:8080", "--out", t.TempDir())
		cmd.Env = append(cmd.Env, "HTTP_PROXY="+strings.Replace(proxy.URL, "//", "//"+tc.user, 1), "http_proxy=", "NO_PROXY=", "no_proxy=", "REQUEST_METHOD=")
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		cmd.Run()
		proxy.Close()
		if cmd.ProcessState.ExitCode() != 1 {
			t.Errorf("%d: exit %d, want 1:\n%s%s", tc.status, cmd.ProcessState.ExitCode(), stdout.String(), stderr.String())
		}
		for _, w := range tc.want {
			if !strings.Contains(stderr.String(), w) {
				t.Errorf("%d: stderr lacks %q:\n%s", tc.status, w, stderr.String())
			}
		}
		for _, b := range tc.bad {
			if strings.Contains(stderr.String(), b) {
				t.Errorf("%d: stderr holds %q:\n%s", tc.status, b, stderr.String())
			}
		}
	}
}

// TestStallingProxyIsNamed: a proxy from HTTP_PROXY that takes the
// request and never answers is named, with its variable and the bypass,
// not taken for a program at the server's URL.
// Fails before this change: "something accepts connections at
// http://ttftlab-proxy-test.invalid:8080 but never answered GET /health".
func TestStallingProxyIsNamed(t *testing.T) {
	_, proxy := startStallFake(t, neverAnswers)
	script := writeScript(t, "print('ran')\n")
	cmd := childCommand(t.TempDir(), "run", script, "--server", "http://ttftlab-proxy-test.invalid:8080", "--out", t.TempDir())
	cmd.Env = append(cmd.Env, "HTTP_PROXY="+proxy, "http_proxy=", "NO_PROXY=", "no_proxy=", "REQUEST_METHOD=")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	t.Logf("run:\n%s%s", stdout.String(), stderr.String())
	if cmd.ProcessState.ExitCode() != 1 {
		t.Errorf("exit %d, want 1", cmd.ProcessState.ExitCode())
	}
	for _, w := range []string{"the proxy " + strings.TrimPrefix(proxy, "http://") + " (from HTTP_PROXY)", "NO_PROXY=ttftlab-proxy-test.invalid"} {
		if !strings.Contains(stderr.String(), w) {
			t.Errorf("stderr lacks %q", w)
		}
	}
	if strings.Contains(stderr.String(), "something accepts connections at http://ttftlab-proxy-test.invalid") {
		t.Errorf("stderr blames the server for the proxy's silence")
	}
}
