package cli

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/wire"
)

// countingProxy forwards to target and counts the requests it saw.
func countingProxy(t *testing.T, target string) (string, *atomic.Int64) {
	t.Helper()
	u, err := url.Parse(target)
	if err != nil {
		t.Fatal(err)
	}
	var n atomic.Int64
	rp := httputil.NewSingleHostReverseProxy(u)
	rp.FlushInterval = -1
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		rp.ServeHTTP(w, r)
	}))
	t.Cleanup(srv.Close)
	return srv.URL, &n
}

// TestKeyedLlamaServer runs the lab and load against the real llama-server
// started with --api-key: with the key both pass (every probe, /props,
// /slots and /tokenize included, which llama-server refuses without it);
// a wrong key or none stops at once with the server's own message, and
// the key is in no artifact, output or log.
// Fails before this change: lab had no --api-key and its probes sent no
// header, so step 1's GET /props answered 401.
func TestKeyedLlamaServer(t *testing.T) {
	const key = "sk-llama-5e0b2d9a61"
	srv := startLlama(t, "--api-key", key, "--metrics")
	t.Setenv("TTFTLAB_API_KEY", "")
	t.Setenv("OPENAI_API_KEY", "")

	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", srv.URL, "--api-key", key, "--out", out, "--server-log", srv.LogPath)
	t.Logf("lab:\n%s%s", stdout, stderr)
	if code != 0 {
		t.Fatalf("lab --api-key exited %d", code)
	}
	requireCheckPasses(t, out, srv.LogPath)
	var report struct {
		Server struct {
			Endpoint map[string]any `json:"endpoint"`
		} `json:"server"`
	}
	readJSON(t, filepath.Join(out, "report.json"), &report)
	if report.Server.Endpoint["api_key"] != "set from --api-key" {
		t.Errorf("report.json server.endpoint = %v, want api_key \"set from --api-key\"", report.Server.Endpoint)
	}
	log, _ := os.ReadFile(srv.LogPath)
	requireNoKey(t, key, out, stdout, stderr, string(log))

	// load, the key from OPENAI_API_KEY.
	t.Setenv("OPENAI_API_KEY", key)
	loadOut := t.TempDir()
	code, stdout, stderr = runCLI("load", "--server", srv.URL, "--concurrency", "1", "--requests", "3", "--docs", "0",
		"--out", loadOut)
	t.Logf("load:\n%s%s", stdout, stderr)
	if code != 0 || !strings.Contains(stderr, "API key from OPENAI_API_KEY") {
		t.Fatalf("load with OPENAI_API_KEY exited %d", code)
	}
	var load struct {
		Server struct {
			Endpoint map[string]any `json:"endpoint"`
		} `json:"server"`
	}
	readJSON(t, filepath.Join(loadOut, "load.json"), &load)
	if load.Server.Endpoint["api_key"] != "set from OPENAI_API_KEY" {
		t.Errorf("load.json server.endpoint = %v", load.Server.Endpoint)
	}
	// The watcher's /slots and /metrics need the key too.
	samples, _ := os.ReadFile(filepath.Join(loadOut, "server.jsonl"))
	if !strings.Contains(string(samples), `"slots_total":1`) || !strings.Contains(string(samples), `"requests_processing":`) ||
		strings.Contains(string(samples), `"requests_processing":null`) {
		t.Errorf("server.jsonl lacks /slots or /metrics readings (the watcher sent no key?):\n%s", samples)
	}
	log, _ = os.ReadFile(srv.LogPath)
	requireNoKey(t, key, loadOut, stdout, stderr, string(log))
	t.Setenv("OPENAI_API_KEY", "")

	// A wrong key, and none: exit 1 at once with llama-server's message,
	// counted through a proxy.
	proxy, seen := countingProxy(t, srv.URL)
	for _, c := range []struct {
		cmd  string
		args []string
		want string
	}{
		{"lab", []string{"--api-key", "sk-wrong-31"}, "refused the API key from --api-key"},
		{"load", []string{"--api-key", "sk-wrong-31", "--concurrency", "1", "--requests", "3", "--docs", "0"}, "refused the API key"},
		{"lab", nil, "pass it with --api-key KEY"},
	} {
		seen.Store(0)
		args := append([]string{c.cmd, "--server", proxy, "--out", t.TempDir()}, c.args...)
		code, stdout, stderr := runCLI(args...)
		if code != 1 || !strings.Contains(stderr, "Invalid API Key") || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, want 1 with llama-server's \"Invalid API Key\" and %q:\n%s%s", args, code, c.want, stdout, stderr)
		}
		if n := seen.Load(); n > 3 {
			t.Errorf("%v: llama-server saw %d requests, want at most 3 (health, models, props)", args, n)
		}
		if strings.Contains(stdout+stderr, "sk-wrong-31") {
			t.Errorf("%v: the wrong key was printed", args)
		}
	}
}

// testCert makes a self-signed certificate for 127.0.0.1 and writes it
// and its key as PEM files.
func testCert(t *testing.T) (certFile, keyFile string) {
	t.Helper()
	cert, err := wire.NewSelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, cert.CertPEM, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, cert.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// startTLSLlama starts the real llama-server serving https with the
// test's certificate (and more arguments), waits until GET /health
// answers over TLS, and stops it when the test ends.
func startTLSLlama(t *testing.T, certFile, keyFile string, extra ...string) (url, logPath string) {
	t.Helper()
	bin, model := needLlama(t)
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	logPath = filepath.Join(t.TempDir(), "llama-server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	args := append([]string{"-m", model, "--host", "127.0.0.1", "--port", strconv.Itoa(port), "-c", "4096", "-np", "1",
		"--cache-ram", "0", "--ssl-cert-file", certFile, "--ssl-key-file", keyFile}, extra...)
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(10 * time.Second):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-exited
		}
		if t.Failed() {
			t.Logf("llama-server log tail:\n%s", llamaserver.TailFile(logPath, 30))
		}
	})
	pem, _ := os.ReadFile(certFile)
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	client := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
	url = "https://127.0.0.1:" + strconv.Itoa(port)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for {
		if resp, err := client.Get(url + "/health"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return url, logPath
			}
		}
		select {
		case <-exited:
			t.Fatalf("llama-server with --ssl-cert-file exited during start-up:\n%s", llamaserver.TailFile(logPath, 20))
		case <-ctx.Done():
			t.Fatalf("llama-server did not serve https at %s:\n%s", url, llamaserver.TailFile(logPath, 20))
		case <-time.After(100 * time.Millisecond):
		}
	}
}

// TestHTTPSLlamaServer: the real llama-server over https with a
// certificate the test made, and a key. --ca-cert works (also with a base
// ending in /v1); without it the lab stops with a certificate error and
// starts no server; --insecure works and warns.
// Fails before this change: no --ca-cert or --insecure, and the lab said
// "no server answers" and tried to start llama-server on the https port.
func TestHTTPSLlamaServer(t *testing.T) {
	const key = "sk-tls-c0ffee1234"
	certFile, keyFile := testCert(t)
	url, logPath := startTLSLlama(t, certFile, keyFile, "--api-key", key)
	t.Setenv("TTFTLAB_API_KEY", key)
	t.Setenv("OPENAI_API_KEY", "")

	out := t.TempDir()
	code, stdout, stderr := runCLI("lab", "--server", url+"/v1", "--ca-cert", certFile, "--out", out, "--server-log", logPath, "--", "ttft")
	t.Logf("lab --ca-cert:\n%s%s", stdout, stderr)
	if code != 0 || !strings.Contains(stdout, "1 passed, 0 failed") && !strings.Contains(stdout, "1 passed, 12 not run") {
		t.Fatalf("lab over https with --ca-cert exited %d", code)
	}
	log, _ := os.ReadFile(logPath)
	requireNoKey(t, key, out, stdout, stderr, string(log))

	code, stdout, stderr = runCLI("lab", "--server", url, "--out", t.TempDir(), "--", "ttft")
	if code != 1 || !strings.Contains(stderr, "certificate") || !strings.Contains(stderr, "--ca-cert") {
		t.Errorf("lab over https without --ca-cert: exit %d, want 1 with a certificate error naming --ca-cert:\n%s%s", code, stdout, stderr)
	}
	if strings.Contains(stdout, "SYNTHETIC") || strings.Contains(stdout, "llama-server is up") {
		t.Errorf("lab started a server although one answers TLS at %s:\n%s", url, stdout)
	}

	code, stdout, stderr = runCLI("lab", "--server", url, "--insecure", "--out", t.TempDir(), "--", "ttft")
	if code != 0 || !strings.Contains(stderr, "warning: --insecure") {
		t.Errorf("lab --insecure: exit %d, want 0 with a warning:\n%s%s", code, stdout, stderr)
	}
}
