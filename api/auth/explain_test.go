package auth

import (
	"context"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth/authtest"
)

// Explain's headline and fix for the refusals TestExplainAPIErrors does not
// show: an invalid or denied quota project not named by the server, a
// scope refused for a token the user minted, and any other permission
// refusal.
func TestExplainQuotaScopeAndPermissionRefusals(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	path := env.useADC(ts, nil)
	env.set("GOOGLE_CLOUD_QUOTA_PROJECT", "env-proj")
	withEnvQuota, err := New(context.Background(), env.opts())
	if err != nil {
		t.Fatal(err)
	}
	tokEnv := newEnv(t)
	o := tokEnv.opts()
	o.AccessTokenFile = authtest.WriteFile(t, t.TempDir(), "tok", "ya29.token")
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

// A 403 SERVICE_DISABLED names the project Google billed
// (metadata.consumer) and its activationUrl, not only the configured
// quota project.
func TestExplainServiceDisabledNamesConsumer(t *testing.T) {
	ts := authtest.NewTokenServer(t)
	env := newEnv(t)
	env.useADC(ts, nil)
	env.set("GOOGLE_CLOUD_QUOTA_PROJECT", "other-proj")
	withQuota, err := New(context.Background(), env.opts())
	if err != nil {
		t.Fatal(err)
	}
	noEnv := newEnv(t)
	noEnv.useADC(ts, nil)
	noQuota, err := New(context.Background(), noEnv.opts())
	if err != nil {
		t.Fatal(err)
	}
	body := func(consumer, activation string) string {
		return `{"error":{"code":403,"message":"Colaboratory API has not been used in project ` + consumer + ` before or it is disabled.","status":"PERMISSION_DENIED",` +
			`"details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED","domain":"googleapis.com",` +
			`"metadata":{"consumer":"projects/` + consumer + `","service":"colaboratory.googleapis.com","serviceTitle":"Colaboratory API","activationUrl":"` + activation + `"}},` +
			`{"@type":"type.googleapis.com/google.rpc.Help","links":[{"description":"Google developers console API activation","url":"` + activation + `"}]}]}}`
	}
	const act = "https://console.developers.google.com/apis/api/colaboratory.googleapis.com/overview?project=demo-proj-123"
	for _, tc := range []struct {
		name      string
		c         *Credentials
		body      string
		want, not []string
	}{
		{"consumer differs from --quota-project", withQuota, body("demo-proj-123", act),
			[]string{"disabled in project demo-proj-123", "instead of quota project other-proj", "x-goog-user-project header was not honoured", "enable it at " + act},
			[]string{"--project other-proj"}},
		{"consumer is the quota project", withQuota, body("other-proj", act),
			[]string{"disabled in quota project other-proj", "enable it at " + act}, []string{"instead of"}},
		{"no quota project: the OAuth client's project", noQuota, body("demo-proj-123", act),
			[]string{"a quota project is required and none is set", "Google billed project demo-proj-123", "set-quota-project", "enable it at " + act}, nil},
		{"an activationUrl off Google's consoles is not printed", withQuota, body("demo-proj-123", "https://evil.example/activate"),
			[]string{"run `gcloud services enable colaboratory.googleapis.com --project demo-proj-123`"}, []string{"evil.example"}},
		{"a plain-http activationUrl is not printed", withQuota, body("demo-proj-123", "http://console.developers.google.com/x"),
			[]string{"--project demo-proj-123"}, []string{"http://console"}},
		{"a consumer that is no project id is not put into a command", withQuota, body("x; rm -rf ~", act),
			[]string{"disabled in quota project other-proj", "enable it at " + act}, []string{"rm -rf"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			head, fix := Explain(api.ParseHTTPError(403, "", []byte(tc.body)), tc.c)
			line := head + "; fix: " + fix
			for _, w := range tc.want {
				if !strings.Contains(line, w) {
					t.Errorf("%q\nwant it to contain %q", line, w)
				}
			}
			for _, n := range tc.not {
				if strings.Contains(line, n) {
					t.Errorf("%q\nmust not contain %q", line, n)
				}
			}
			if strings.ContainsAny(line, "\n\r") {
				t.Errorf("not one line: %q", line)
			}
		})
	}
}
