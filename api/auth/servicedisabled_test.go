package auth

import (
	"context"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
)

// A 403 SERVICE_DISABLED names the project Google billed
// (metadata.consumer) and its activationUrl, not only the configured
// quota project.
func TestExplainServiceDisabledNamesConsumer(t *testing.T) {
	ts := newTokenServer(t)
	env := newEnv(t)
	env.set("GOOGLE_APPLICATION_CREDENTIALS", writeJSON(t, t.TempDir(), "adc.json", authorizedUser(ts, nil)))
	env.set("GOOGLE_CLOUD_QUOTA_PROJECT", "other-proj")
	withQuota, err := New(context.Background(), env.opts())
	if err != nil {
		t.Fatal(err)
	}
	noEnv := newEnv(t)
	noEnv.set("GOOGLE_APPLICATION_CREDENTIALS", writeJSON(t, t.TempDir(), "adc.json", authorizedUser(ts, nil)))
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
