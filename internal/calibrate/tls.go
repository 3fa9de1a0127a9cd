package calibrate

import (
	"context"
	"crypto/tls"
	"fmt"
	"os"
	"path/filepath"

	"ttftlab/internal/wire"
)

// TLS is what an https calibration run needs: the certificate its server
// presents (made for the run, for 127.0.0.1) and the files a server in a
// process of its own reads it from.
type TLS struct {
	Cert              *wire.SelfSigned
	CertFile, KeyFile string
}

// NewTLS makes a certificate for a run and writes it to dir.
func NewTLS(dir string) (*TLS, error) {
	cert, err := wire.NewSelfSigned()
	if err != nil {
		return nil, fmt.Errorf("cannot make a certificate for the https server: %w", err)
	}
	t := &TLS{Cert: cert, CertFile: filepath.Join(dir, "cert.pem"), KeyFile: filepath.Join(dir, "key.pem")}
	if err := os.WriteFile(t.CertFile, cert.CertPEM, 0o600); err != nil {
		return nil, err
	}
	if err := os.WriteFile(t.KeyFile, cert.KeyPEM, 0o600); err != nil {
		return nil, err
	}
	return t, nil
}

// ServerTLS reads a server's certificate and key from PEM files.
func ServerTLS(certFile, keyFile string) (*tls.Config, error) {
	cert, err := tls.LoadX509KeyPair(certFile, keyFile)
	if err != nil {
		return nil, fmt.Errorf("cannot read the server's certificate: %w", err)
	}
	return &tls.Config{Certificates: []tls.Certificate{cert}}, nil
}

// InProcessTLS is InProcess serving https with t's certificate.
func InProcessTLS(t *TLS) Launcher {
	return func(ctx context.Context, s Schedule, stampsPath string, firstRequest int) (string, func() error, error) {
		return inProcess(ctx, s, stampsPath, firstRequest, t.Cert.ServerConfig())
	}
}

// ChildArgs are the arguments that make a --serve child serve https with
// t's certificate.
func (t *TLS) ChildArgs() []string {
	return []string{"--tls-cert", t.CertFile, "--tls-key", t.KeyFile}
}
