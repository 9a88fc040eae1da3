package auth

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// What New says about a credentials or token file it cannot use, and what
// it shows of one it can.

// An access token file holding more than one token, or a credentials
// file passed as a token file, is refused with the reason and the file.
func TestAccessTokenFileWithMoreThanAToken(t *testing.T) {
	env := newEnv(t)
	for _, content := range []string{"ya29.one ya29.two", "ya29.one\nya29.two\n", `{"type":"authorized_user"}`} {
		path := writeFile(t, t.TempDir(), "tok", content)
		o := env.opts()
		o.AccessTokenFile = path
		_, err := New(context.Background(), o)
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != KindMalformedFile || !strings.Contains(ae.Error(), path) ||
			!strings.Contains(ae.Error(), "expected one access token and nothing else") {
			t.Errorf("%q: err = %v", content, err)
		}
	}
}

// An impersonated_service_account file has no client_email: the account
// Describe shows is the one impersonated.
func TestImpersonatedAccountIsDescribed(t *testing.T) {
	env := newEnv(t)
	o := env.opts()
	o.CredentialsFile = impersonatedFile(t, "http://127.0.0.1:9/token", "http://127.0.0.1:9")
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if d := c.Describe(); !strings.Contains(d, "(impersonated_service_account "+trustSA+")") {
		t.Errorf("Describe() = %q, want the impersonated account", d)
	}
}

// A file of a supported type that the oauth2 library itself refuses (an
// external_account without its audience and token source) is refused at
// New, naming the file, not at the first request.
func TestCredentialsTheLibraryRefuses(t *testing.T) {
	env := newEnv(t)
	o := env.opts()
	o.CredentialsFile = writeJSON(t, t.TempDir(), "ext.json", map[string]any{"type": "external_account"})
	_, err := New(context.Background(), o)
	var ae *Error
	if !errors.As(err, &ae) {
		t.Fatalf("err = %v, want an *auth.Error", err)
	}
	if ae.Kind != KindMalformedFile || !strings.Contains(ae.Error(), o.CredentialsFile) || ae.Err == nil ||
		ae.Detail == "" || strings.HasPrefix(ae.Detail, "google: ") {
		t.Fatalf("err = %v (detail %q)", err, ae.Detail)
	}
}
