package stream_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"ttftlab/internal/llamaserver"
	"ttftlab/internal/llamaserver/llamatest"
	"ttftlab/internal/stream"
	"ttftlab/internal/wire"
)

// startLlamaTLS serves the test model with the real llama-server over
// https (--ssl-key-file/--ssl-cert-file with a certificate made here) and
// returns its base URL and a client configuration that trusts it.
func startLlamaTLS(t *testing.T) (string, *wire.SelfSigned) {
	t.Helper()
	bin, model := llamatest.Need(t)
	cert, err := wire.NewSelfSigned()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, cert.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, cert.KeyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	port, err := llamaserver.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	args := append(llamaserver.Options{Model: model, Host: "127.0.0.1", Port: port}.Args(), "--ssl-key-file", keyFile, "--ssl-cert-file", certFile)
	logPath := filepath.Join(dir, "llama-server.log")
	logf, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	defer logf.Close()
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		if t.Failed() {
			t.Logf("llama-server log tail:\n%s", llamaserver.TailFile(logPath, 30))
		}
	})
	base := "https://127.0.0.1:" + strconv.Itoa(port)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: cert.ClientConfig()}, Timeout: 2 * time.Second}
	for deadline := time.Now().Add(2 * time.Minute); ; time.Sleep(100 * time.Millisecond) {
		resp, err := client.Get(base + "/health")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return base, cert
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("llama-server over https not healthy after 2 minutes: %v", err)
		}
	}
}

// The real llama-server over https is read through the poller with
// kernel stamps, as over http.
func TestDoRealLlamaServerHTTPS(t *testing.T) {
	base, cert := startLlamaTLS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := stream.Do(ctx, stream.Request{URL: base, Body: storyBody(24), TLS: cert.ClientConfig(), KeepReads: true})
	if err != nil {
		t.Fatal(err)
	}
	info := res.Info
	t.Logf("https: headers %.3f ms, ttft %.3f ms, total %.3f ms, %d chunks, %d reads (%d kernel-stamped), source %s",
		info.HeadersMs, info.TTFTMs, res.TotalMs, len(res.Chunks), info.Reads, info.KernelStamps, info.StampSource)
	if !info.Done || len(res.Chunks) == 0 || !info.HasTTFT {
		t.Fatalf("info %+v with %d chunks: want a complete stream with content", info, len(res.Chunks))
	}
	if info.StampSource != stream.SourceKernel || info.KernelStamps != info.Reads {
		t.Errorf("source %s, %d of %d reads kernel-stamped: want kernel stamps on https as on http", info.StampSource, info.KernelStamps, info.Reads)
	}
	for i, rd := range res.Reads {
		if rd.TMs > rd.ReadMs || (i > 0 && rd.TMs < res.Reads[i-1].TMs) {
			t.Fatalf("read %d at %.6f ms (returned %.6f): out of order", i, rd.TMs, rd.ReadMs)
		}
	}
	if promptMs, ok := res.Timings["prompt_ms"].(float64); ok && info.TTFTMs < promptMs {
		t.Errorf("client TTFT %.3f ms is below the server's prompt_ms %.3f", info.TTFTMs, promptMs)
	}
	if !(info.HeadersMs <= info.TTFTMs && info.TTFTMs <= res.TotalMs) {
		t.Errorf("want headers %.3f <= ttft %.3f <= total %.3f", info.HeadersMs, info.TTFTMs, res.TotalMs)
	}
}
