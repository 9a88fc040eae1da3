package auth

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/auth/authtest"
)

// What New says about a credentials or token file it cannot use, and what
// it shows of one it can.

// An access token file is refused with the reason and the file when it
// holds more than one token, is a credentials file passed as a token
// file, or holds a byte an HTTP header cannot carry; a token of
// header-safe bytes is accepted.
func TestAccessTokenFileRefusedWithReason(t *testing.T) {
	env := newEnv(t)
	const oneToken, header = "expected one access token and nothing else", "HTTP header"
	for _, tc := range []struct{ content, reason string }{
		{"ya29.one ya29.two", oneToken},
		{"ya29.one\nya29.two\n", oneToken},
		{`{"type":"authorized_user"}`, oneToken},
		{"ya29.ab\x01cd", header},
		{"ya29.äöü", header},
		{"tok;en", header},
		{"a=b", header},
		{"=abc", header},
	} {
		path := authtest.WriteFile(t, t.TempDir(), "tok", tc.content)
		o := env.opts()
		o.AccessTokenFile = path
		_, err := New(context.Background(), o)
		var ae *Error
		if !errors.As(err, &ae) || ae.Kind != KindMalformedFile || !strings.Contains(ae.Error(), path) ||
			!strings.Contains(ae.Error(), tc.reason) {
			t.Errorf("token file %q: err = %v, want a malformed file naming it and %q", tc.content, err, tc.reason)
		}
	}
	for _, tok := range []string{"ya29.a0AfH6SMB-x_y~z+/", "abc==", "fake"} {
		o := env.opts()
		o.AccessTokenFile = authtest.WriteFile(t, t.TempDir(), "tok", tok)
		if _, err := New(context.Background(), o); err != nil {
			t.Errorf("token %q refused: %v", tok, err)
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
	o.CredentialsFile = authtest.WriteJSON(t, t.TempDir(), "ext.json", map[string]any{"type": "external_account"})
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

// A file named by a config profile is blamed on the profile, not on a flag
// the user never passed, and the fix names the profile's setting.
func TestProfileFileErrorsNameTheProfile(t *testing.T) {
	const from = "profile work, /home/u/.config/colabdash/config.yaml:18"
	dir := t.TempDir()
	empty := authtest.WriteFile(t, dir, "empty.txt", "  \n")
	for _, tc := range []struct {
		name       string
		opts       func(*Options)
		msg, fix   string
		notFix     string
		wantSource string
	}{
		{"missing credentialsFile", func(o *Options) { o.CredentialsFile = filepath.Join(dir, "work.json") },
			"credentials file " + filepath.Join(dir, "work.json") + " (from " + from + ") does not exist",
			"point credentialsFile (" + from + ") at an existing credentials file", "--credentials", ""},
		{"missing accessTokenFile", func(o *Options) { o.AccessTokenFile = filepath.Join(dir, "tok") },
			"access token file " + filepath.Join(dir, "tok") + " (from " + from + ") does not exist",
			"or point accessTokenFile (" + from + ") at another file", "--access-token-file", ""},
		{"empty accessTokenFile", func(o *Options) { o.AccessTokenFile = empty },
			"access token file " + empty + " (from " + from + ") is not usable: the file is empty",
			"accessTokenFile (" + from + ")", "--access-token-file", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t)
			o := env.opts()
			o.From = from
			tc.opts(&o)
			_, err := New(context.Background(), o)
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("err = %v, want *Error", err)
			}
			if ae.Error() != tc.msg {
				t.Errorf("Error() = %q\nwant        %q", ae.Error(), tc.msg)
			}
			if !strings.Contains(ae.Fix, tc.fix) || strings.Contains(ae.Fix, tc.notFix) {
				t.Errorf("Fix = %q, want it to contain %q and not %q", ae.Fix, tc.fix, tc.notFix)
			}
		})
	}
}

// Without From the flags are still named (the flags are how the path came).
func TestFlagFileErrorsNameTheFlag(t *testing.T) {
	env := newEnv(t)
	o := env.opts()
	o.CredentialsFile = filepath.Join(t.TempDir(), "x.json")
	_, err := New(context.Background(), o)
	if err == nil || !strings.Contains(err.Error(), "(from --credentials) does not exist") {
		t.Errorf("err = %v", err)
	}
}

// A quota project set by a profile is reported as coming from it.
func TestQuotaProjectFrom(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	path := authtest.WriteJSON(t, t.TempDir(), "c.json", authorizedUser(ts, nil))
	o := env.opts()
	o.CredentialsFile, o.From = path, "profile work, config.yaml:18"
	o.QuotaProject, o.QuotaProjectFrom = "qp", "profile work, config.yaml:20"
	c, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	if p, f := c.QuotaProject(); p != "qp" || f != "profile work, config.yaml:20" {
		t.Errorf("QuotaProject() = %q, %q", p, f)
	}
}
