package common

import (
	"fmt"
	"github.com/colabdash/colabdash/api"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/jupyter"
)

// A runtime file's error names its path as the files pane shows it (not
// Go-quoted), wrapped or not; ErrLine is one safe line, "" for nil.
func TestErrTextAndLine(t *testing.T) {
	je := &jupyter.Error{Op: "download", Runtime: "rt-a", Path: "content/my \"file\".csv", Kind: jupyter.ErrNotFound}
	for _, err := range []error{je, fmt.Errorf("files: %w", je)} {
		if got := ErrText(err); !strings.Contains(got, `rt-a:/content/my "file".csv`) {
			t.Errorf("ErrText(%v) = %q", err, got)
		}
	}
	if ErrLine(nil) != "" {
		t.Error("ErrLine(nil) is not empty")
	}
	long := fmt.Errorf("line one\nline two \x1b[2J%s", strings.Repeat("x", 400))
	got := ErrLine(long)
	if strings.ContainsAny(got, "\n\x1b") || !strings.HasPrefix(got, "line one line two") || !strings.HasSuffix(got, "…") {
		t.Errorf("ErrLine: %q", got)
	}
}

// A credentials failure reads as the CLI says it: what is wrong and the
// fix, not the server's cut-off code (the wrong scope, an expired token).
func TestErrTextExplainsCredentialFailures(t *testing.T) {
	for _, tc := range []struct {
		err  *api.Error
		want []string
	}{
		{&api.Error{Code: api.PermissionDenied, HTTPStatus: 403, Reason: api.ReasonScopeInsufficient, Message: "Request had insufficient authentication scopes."},
			[]string{"credentials lack the Colab scope", "; fix: "}},
		{&api.Error{Code: api.Unauthenticated, HTTPStatus: 401, Message: "Request had invalid authentication credentials."},
			[]string{"access token was rejected", "; fix: "}},
	} {
		got := ErrLine(tc.err)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("ErrLine(%v) = %q, lacks %q", tc.err, got, w)
			}
		}
		if strings.HasPrefix(got, "PERMISSION_DENIED") || strings.HasPrefix(got, "UNAUTHENTICATED") {
			t.Errorf("ErrLine(%v) = %q starts with the server's code", tc.err, got)
		}
	}
}
