package endpoint

import (
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
)

// TLSHint is what to try after the server's certificate was not
// accepted (err), by its cause, for an endpoint made with --ca-cert and
// --insecure: a certificate signed by an authority not trusted wants its
// CA (or, when --ca-cert named one, the CA that did sign it); an expired
// one a new certificate or a right clock; one for other names a URL with
// one of its names. --insecure skips verification in each case. "" when
// err is no certificate failure, or verification is already off.
func (e *Endpoint) TLSHint(err error) string {
	const insecure = "or skip verification (unsafe): --insecure"
	var unknown x509.UnknownAuthorityError
	var invalid x509.CertificateInvalidError
	var host x509.HostnameError
	switch {
	case e.Insecure:
		return ""
	case errors.As(err, &invalid) && invalid.Reason == x509.Expired:
		return "the server's certificate has expired or is not valid yet: renew it on the server " +
			"(or set this machine's clock right; another CA would not help); " + insecure
	case errors.As(err, &host):
		return fmt.Sprintf("the server's certificate is for %s, not %s: name the server by one of those in --server "+
			"(an /etc/hosts line can map the name to its address), or give it a certificate for %s; %s",
			certNames(host.Certificate), host.Host, host.Host, insecure)
	case errors.As(err, &unknown) && e.CACert != "":
		return "the CA in --ca-cert " + e.CACert + " did not sign the server's certificate: give the CA that did " +
			"(--ca-cert FILE.pem, or SSL_CERT_FILE=FILE.pem); " + insecure
	case errors.As(err, &unknown):
		return "trust the server's CA: --ca-cert FILE.pem (or SSL_CERT_FILE=FILE.pem); " + insecure
	case errors.As(err, &invalid):
		return "the server's certificate is not valid (" + invalid.Error() + "): fix it on the server; " + insecure
	}
	return ""
}

// certNames lists the names and addresses a certificate is for.
func certNames(c *x509.Certificate) string {
	if c == nil {
		return "other names"
	}
	names := append([]string{}, c.DNSNames...)
	for _, ip := range c.IPAddresses {
		names = append(names, ip.String())
	}
	if len(names) == 0 && c.Subject.CommonName != "" {
		names = append(names, c.Subject.CommonName)
	}
	if len(names) == 0 {
		return "no name at all"
	}
	return strings.Join(names, ", ")
}
