package wire

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"time"
)

// SelfSigned is a certificate made on the spot for a loopback server that
// ttftlab runs itself (calibrate --tls, tests): valid for 127.0.0.1, ::1
// and localhost for a day, its own authority.
type SelfSigned struct {
	Cert tls.Certificate
	// Pool holds the certificate, for a client that trusts it.
	Pool *x509.CertPool
	// CertPEM and KeyPEM are the certificate and its key as PEM, for a
	// server that reads files (llama-server's --ssl-cert-file,
	// --ssl-key-file).
	CertPEM, KeyPEM []byte
}

// NewSelfSigned makes a SelfSigned certificate.
func NewSelfSigned() (*SelfSigned, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(now.UnixNano()),
		Subject:               pkix.Name{CommonName: "ttftlab loopback"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		DNSNames:              []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, err
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return &SelfSigned{
		Cert:    tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf},
		Pool:    pool,
		CertPEM: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		KeyPEM:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// ServerConfig is a server's TLS configuration with the certificate.
func (s *SelfSigned) ServerConfig() *tls.Config {
	return &tls.Config{Certificates: []tls.Certificate{s.Cert}}
}

// ClientConfig is a client's TLS configuration that trusts it.
func (s *SelfSigned) ClientConfig() *tls.Config {
	return &tls.Config{RootCAs: s.Pool}
}
