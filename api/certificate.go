package api

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"regexp"
	"sync"
)

// CertificateHint is the fix for a TLS certificate the system does not
// trust, most often a corporate proxy that intercepts TLS.
const CertificateHint = "set SSL_CERT_FILE to your organisation's CA bundle (a proxy on this network may intercept TLS)"

// CertificateProblem returns a one-line message when err is (or wraps, or,
// for libraries that flatten errors into text, mentions) a TLS
// certificate verification failure: "certificate not trusted (x509:
// certificate signed by unknown authority); set SSL_CERT_FILE to your
// organisation's CA bundle …". It returns "" for any other error. Such a
// failure is not a network outage: retrying cannot help until the trust
// store changes.
func CertificateProblem(err error) string {
	if err == nil {
		return ""
	}
	var (
		cve *tls.CertificateVerificationError
		ua  x509.UnknownAuthorityError
		he  x509.HostnameError
		ci  x509.CertificateInvalidError
		sr  x509.SystemRootsError
	)
	detail := ""
	switch {
	case errors.As(err, &ua):
		detail = ua.Error()
	case errors.As(err, &he):
		detail = he.Error()
	case errors.As(err, &ci):
		detail = ci.Error()
	case errors.As(err, &sr):
		detail = sr.Error()
	case errors.As(err, &cve):
		detail = cve.Err.Error()
	default:
		m := certText().FindString(err.Error())
		if m == "" {
			return ""
		}
		detail = m
	}
	return "certificate not trusted (" + OneLine(detail, 160) + "); " + CertificateHint
}

// certText finds a certificate failure in flattened error text.
var certText = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`x509: [^;:\n]*(?:certificate|authority)[^;\n]*|tls: failed to verify certificate[^;\n]*`)
})
