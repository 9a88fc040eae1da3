package api

import (
	"errors"
	"fmt"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// "Retry-After: 100000" made the dashboard wait a day. The
// delay is capped at MaxRetryDelay, whatever form it came in.
func TestRetryDelayIsCapped(t *testing.T) {
	for name, e := range map[string]*Error{
		"Retry-After seconds": ParseHTTPError(429, "100000", nil),
		"Retry-After huge":    ParseHTTPError(429, "99999999999999999", nil),
		"Retry-After date":    ParseHTTPError(503, time.Now().Add(30*time.Hour).UTC().Format(http.TimeFormat), nil),
		"RetryInfo": ParseHTTPError(429, "", []byte(`{"error":{"code":429,"status":"RESOURCE_EXHAUSTED","message":"slow down",
			"details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"86400s"}]}}`)),
		"RetryInfo in text": ErrorFromText(`{"error":{"code":8,"status":"RESOURCE_EXHAUSTED","details":[{"@type":"type.googleapis.com/google.rpc.RetryInfo","retryDelay":"7200s"}]}}`),
	} {
		if e.RetryDelay != MaxRetryDelay {
			t.Errorf("%s: RetryDelay = %v, want the %v cap", name, e.RetryDelay, MaxRetryDelay)
		}
	}
	if d := ParseHTTPError(429, "53", nil).RetryDelay; d != 53*time.Second {
		t.Errorf("a short Retry-After is kept: %v", d)
	}
}

// A TLS certificate the system does not trust is named as
// such, with SSL_CERT_FILE, and is not retryable.
func TestCertificateProblem(t *testing.T) {
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshake is expected
	srv.StartTLS()
	defer srv.Close()
	_, err := (&http.Client{}).Get(srv.URL) // system roots: the test CA is unknown
	if err == nil {
		t.Fatal("the handshake with an untrusted certificate succeeded")
	}
	msg := CertificateProblem(err)
	if !strings.HasPrefix(msg, "certificate not trusted (") || !strings.Contains(msg, "set SSL_CERT_FILE to your organisation's CA bundle") {
		t.Errorf("CertificateProblem(%v) = %q", err, msg)
	}
	// A library that flattened the error with %v keeps the text only.
	if CertificateProblem(fmt.Errorf("oauth2/google: unable to generate access token: %v", err)) == "" {
		t.Error("flattened certificate error not recognised")
	}
	for _, other := range []error{errors.New("dial tcp: connection refused"), nil, errors.New("Certificate Authority Service quota exceeded")} {
		if m := CertificateProblem(other); m != "" {
			t.Errorf("CertificateProblem(%v) = %q, want empty", other, m)
		}
	}
}

func TestCertificateErrorNotRetryable(t *testing.T) {
	e := &Error{Code: Unavailable, Err: errors.New(`Post "https://x": tls: failed to verify certificate: x509: certificate signed by unknown authority`)}
	if e.Retryable() {
		t.Error("an untrusted certificate is retried like an outage")
	}
	if !(&Error{Code: Unavailable, Err: errors.New("connection refused")}).Retryable() {
		t.Error("an outage is no longer retried")
	}
}
