package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth/authtest"
)

// A quota project denied (USER_PROJECT_DENIED), the service disabled or a
// quota project required (SERVICE_DISABLED), a token without the Colab
// scope and a plain 401: Explain on *api.Error built with
// api.ParseHTTPError from the exact bodies Google sends.
func TestExplainAPIErrors(t *testing.T) {
	env := newEnv(t)
	ts := authtest.NewTokenServer(t)
	path := env.useADC(ts, map[string]string{"quota_project_id": "other-proj"})
	withFileQuota, err := New(context.Background(), env.opts())
	if err != nil {
		t.Fatal(err)
	}
	env.set("GOOGLE_CLOUD_QUOTA_PROJECT", "env-proj")
	withEnvQuota, _ := New(context.Background(), env.opts())
	noQuotaEnv := newEnv(t)
	noQuotaEnv.useADC(ts, nil)
	noQuota, _ := New(context.Background(), noQuotaEnv.opts())

	const (
		case8a     = `{"error":{"code":403,"status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"USER_PROJECT_DENIED","domain":"googleapis.com","metadata":{"consumer":"projects/other-proj"}}]}}`
		case9      = `{"error":{"code":403,"message":"Request had insufficient authentication scopes.","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"ACCESS_TOKEN_SCOPE_INSUFFICIENT","domain":"googleapis.com","metadata":{"service":"colaboratory.googleapis.com","method":"google.colab.v1.Colab.ListRuntimes"}}]}}`
		case8b     = `{"error":{"code":403,"message":"Colaboratory API has not been used in project 123 before or it is disabled.","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"SERVICE_DISABLED","domain":"googleapis.com","metadata":{"consumer":"projects/123","service":"colaboratory.googleapis.com"}}]}}`
		case8bText = `{"error":{"code":403,"message":"Your application is authenticating by using local Application Default Credentials. The colaboratory.googleapis.com API requires a quota project, which is not set by default.","status":"PERMISSION_DENIED"}}`
		plain401   = `{"error":{"code":401,"message":"Request had invalid authentication credentials.","status":"UNAUTHENTICATED"}}`
	)
	// The answers several cases share.
	const (
		noQuotaSet = "a quota project is required and none is set"
		setQuota   = "run `gcloud auth application-default set-quota-project PROJECT`"
		rejected   = "not signed in, or the access token was rejected"
		login      = "run `" + LoginCommand + "`"
	)
	for _, tc := range []struct {
		name     string
		c        *Credentials
		status   int
		body     string
		headline string
		fix      string
	}{
		{"8a user project denied, quota from file", withFileQuota, 403, case8a,
			"quota project other-proj (from " + path + ") is denied: the account may not use it (serviceusage.services.use)",
			"run `gcloud auth application-default set-quota-project PROJECT` with a project you may use, or pass --quota-project PROJECT"},
		{"8a denied project named by the server, quota from env", withEnvQuota, 403, case8a,
			"quota project other-proj is denied",
			"change or unset GOOGLE_CLOUD_QUOTA_PROJECT, or run `gcloud auth application-default set-quota-project PROJECT`"},
		{"9 scope insufficient", withFileQuota, 403, case9,
			"credentials lack the Colab scope (https://www.googleapis.com/auth/colaboratory)", login},
		{"8b service disabled, no quota project", noQuota, 403, case8b, noQuotaSet, setQuota},
		{"8b service disabled in another project than the quota project (case 78)", withFileQuota, 403, case8b,
			"the Colab API (colaboratory.googleapis.com) is disabled in project 123, which Google billed instead of quota project other-proj (from " + path + ")",
			"run `gcloud services enable colaboratory.googleapis.com --project 123`"},
		{"8b requires a quota project", noQuota, 403, case8bText, noQuotaSet, setQuota},
		{"plain 401", withFileQuota, 401, plain401, rejected, login},
		{"the emulator refused the Host, not the account", withFileQuota, 403,
			`{"error":{"code":403,"message":"Host \"evil.example.com\" is not a loopback name.","status":"PERMISSION_DENIED","details":[{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":"EMULATOR_HOST_NOT_LOOPBACK","domain":"colaboratory.googleapis.com"}]}}`,
			"the Colab emulator refused the request: Host \"evil.example.com\" is not a loopback name.",
			"--endpoint http://127.0.0.1:PORT/mcp"},
		{"HTML 401, no credentials known", nil, 401, "<html>nope</html>", rejected, login},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := api.ParseHTTPError(tc.status, "", []byte(tc.body))
			// As the MCP client would hand it over: wrapped.
			err := fmt.Errorf("calling \"tools/call\": %w", e)
			head, fix := Explain(err, tc.c)
			if !strings.HasPrefix(head, tc.headline) {
				t.Errorf("headline = %q\nwant prefix %q", head, tc.headline)
			}
			if !strings.Contains(fix, tc.fix) {
				t.Errorf("fix = %q\nwant it to contain %q", fix, tc.fix)
			}
			if strings.Contains(head+fix, "\n") {
				t.Errorf("not one line")
			}
		})
	}
	if h, f := Explain(api.ParseHTTPError(500, "", nil), withFileQuota); h != "" || f != "" {
		t.Errorf("Explain(500) = %q / %q, want nothing (not an auth failure)", h, f)
	}
	if h, f := Explain(errors.New("boom"), nil); h != "" || f != "" {
		t.Errorf("Explain(plain error) = %q / %q", h, f)
	}
}

// Explain passes an *Error from New through with its own fix.
func TestExplainNewError(t *testing.T) {
	env := newEnv(t)
	env.set("GOOGLE_APPLICATION_CREDENTIALS", "/nonexistent.json")
	_, err := New(context.Background(), env.opts())
	head, fix := Explain(err, nil)
	if head != "credentials file /nonexistent.json (from GOOGLE_APPLICATION_CREDENTIALS) does not exist" {
		t.Errorf("headline = %q", head)
	}
	if !strings.HasPrefix(fix, "point GOOGLE_APPLICATION_CREDENTIALS at an existing credentials file") {
		t.Errorf("fix = %q", fix)
	}
}

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
