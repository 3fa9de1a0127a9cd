package cli

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"io"
	"log"
	"math/big"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// testCA is a certificate authority made for a test.
type testCA struct {
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	file string // its certificate as PEM
}

func newTestCA(t *testing.T, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	file := filepath.Join(t.TempDir(), name+".pem")
	if err := os.WriteFile(file, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o644); err != nil {
		t.Fatal(err)
	}
	return &testCA{cert: cert, key: key, file: file}
}

// serve starts an https server whose certificate the CA signed for
// names (DNS names, or IP addresses) until notAfter.
func (ca *testCA) serve(t *testing.T, notAfter time.Time, names ...string) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "server"},
		NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter,
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, n := range names {
		if ip := net.ParseIP(n); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, n)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write([]byte(`{"status":"ok"}`)) }))
	srv.TLS = &tls.Config{Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}}}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the test
	srv.StartTLS()
	t.Cleanup(srv.Close)
	return srv.URL
}

// TestTLSHintsMatchTheCause: each certificate failure gets its own way
// out: an authority not trusted the CA (or, when --ca-cert named
// another, the one that signed it), an expired certificate a new one
// even though the right CA was given, a certificate for another name the
// name it is for. Fails before this change: every one of them was told
// "Trust the server's CA: --ca-cert".
func TestTLSHintsMatchTheCause(t *testing.T) {
	ca, other := newTestCA(t, "ca"), newTestCA(t, "other-ca")
	good := ca.serve(t, time.Now().Add(24*time.Hour), "127.0.0.1")
	expired := ca.serve(t, time.Now().Add(-24*time.Hour), "127.0.0.1")
	wrongHost := ca.serve(t, time.Now().Add(24*time.Hour), "llm.example")
	script := writeScript(t, "print('ran')\n")
	for _, tc := range []struct {
		name, server, caCert string
		want, bad            []string
	}{
		{"unknown authority", good, "", []string{"trust the server's CA: --ca-cert FILE.pem", "--insecure"}, nil},
		{"another CA given", good, other.file, []string{"the CA in --ca-cert " + other.file + " did not sign", "--insecure"}, []string{"trust the server's CA"}},
		{"expired", expired, ca.file, []string{"expired", "renew it on the server", "--insecure"}, []string{"--ca-cert FILE", "trust the server's CA"}},
		{"wrong host", wrongHost, ca.file, []string{"is for llm.example, not 127.0.0.1", "--server", "--insecure"}, []string{"--ca-cert FILE", "trust the server's CA"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := []string{"run", script, "--server", tc.server, "--out", t.TempDir()}
			if tc.caCert != "" {
				args = append(args, "--ca-cert", tc.caCert)
			}
			code, stdout, stderr := runCLI(args...)
			if code != 1 {
				t.Fatalf("exit %d, want 1:\n%s%s", code, stdout, stderr)
			}
			for _, w := range tc.want {
				if !strings.Contains(stderr, w) {
					t.Errorf("stderr lacks %q:\n%s", w, stderr)
				}
			}
			for _, b := range tc.bad {
				if strings.Contains(strings.ToLower(stderr), strings.ToLower(b)) {
					t.Errorf("stderr holds %q:\n%s", b, stderr)
				}
			}
		})
	}
	// The right CA for a good certificate: the script runs.
	if code, stdout, stderr := runCLI("run", script, "--server", good, "--ca-cert", ca.file, "--out", t.TempDir()); code != 0 || !strings.Contains(stdout, "ran") {
		t.Errorf("the right CA: exit %d:\n%s%s", code, stdout, stderr)
	}
}
