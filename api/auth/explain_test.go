package auth

import (
	"context"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
)

// Explain's headline and fix for the refusals TestExplainAPIErrors does not
// show: an invalid or denied quota project not named by the server, a
// scope refused for a token the user minted, and any other permission
// refusal.
func TestExplainQuotaScopeAndPermissionRefusals(t *testing.T) {
	env := newEnv(t)
	ts := newTokenServer(t)
	path := writeJSON(t, t.TempDir(), "adc.json", authorizedUser(ts, nil))
	env.set("GOOGLE_APPLICATION_CREDENTIALS", path)
	env.set("GOOGLE_CLOUD_QUOTA_PROJECT", "env-proj")
	withEnvQuota, err := New(context.Background(), env.opts())
	if err != nil {
		t.Fatal(err)
	}
	tokEnv := newEnv(t)
	o := tokEnv.opts()
	o.AccessTokenFile = writeFile(t, t.TempDir(), "tok", "ya29.token")
	withToken, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	// A 403 with a Google ErrorInfo.
	errorInfo := func(code, message, reason, metadata string) string {
		return `{"error":{"code":403,"message":"` + message + `","status":"` + code +
			`","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"` + reason + `","domain":"googleapis.com","metadata":{` + metadata + `}}]}}`
	}
	for _, tc := range []struct {
		name      string
		c         *Credentials
		body      string
		headline  string // the whole headline
		fixPrefix string
	}{
		{"consumer invalid, named by the server", withEnvQuota,
			errorInfo("INVALID_ARGUMENT", "Invalid consumer", "CONSUMER_INVALID", `"consumer":"projects/bad-proj"`),
			"quota project bad-proj is not valid",
			"change or unset GOOGLE_CLOUD_QUOTA_PROJECT, or run `gcloud auth application-default set-quota-project PROJECT`"},
		{"user project denied, not named: the configured one", withEnvQuota,
			errorInfo("PERMISSION_DENIED", "Denied", "USER_PROJECT_DENIED", ""),
			"quota project env-proj (from GOOGLE_CLOUD_QUOTA_PROJECT) is denied: the account may not use it (serviceusage.services.use)",
			"change or unset GOOGLE_CLOUD_QUOTA_PROJECT"},
		{"user project denied, none known", nil,
			errorInfo("PERMISSION_DENIED", "Denied", "USER_PROJECT_DENIED", ""),
			"quota project is denied: the account may not use it (serviceusage.services.use)",
			"run `gcloud auth application-default set-quota-project PROJECT`"},
		{"scope insufficient for an access token file", withToken,
			errorInfo("PERMISSION_DENIED", "Request had insufficient authentication scopes.", "ACCESS_TOKEN_SCOPE_INSUFFICIENT", ""),
			"credentials lack the Colab scope (" + ColabScope + ")",
			"write a token minted with the Colab scope to " + o.AccessTokenFile},
		{"other permission refusal, with the server's message", withEnvQuota,
			`{"error":{"code":403,"message":"The caller does not have permission","status":"PERMISSION_DENIED"}}`,
			"permission denied: The caller does not have permission",
			"check that the signed-in account may use Colab (ADC from GOOGLE_APPLICATION_CREDENTIALS (" + path},
		{"other permission refusal, no message, no credentials known", nil, "",
			"permission denied",
			"check that the signed-in account may use Colab"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head, fix := Explain(api.ParseHTTPError(403, "", []byte(tc.body)), tc.c)
			if head != tc.headline {
				t.Errorf("headline = %q\nwant       %q", head, tc.headline)
			}
			if !strings.HasPrefix(fix, tc.fixPrefix) {
				t.Errorf("fix = %q\nwant prefix %q", fix, tc.fixPrefix)
			}
		})
	}
	// Nothing to add to the fix when the credentials are not known.
	if _, fix := Explain(api.ParseHTTPError(403, "", nil), nil); fix != "check that the signed-in account may use Colab" {
		t.Errorf("fix without credentials = %q", fix)
	}
	if h, f := Explain(nil, withEnvQuota); h != "" || f != "" {
		t.Errorf("Explain(nil) = %q / %q, want nothing", h, f)
	}
}
