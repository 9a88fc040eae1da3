package opstest

import (
	"fmt"
	"net/http"
	"testing"

	"github.com/colabdash/colabdash/api/auth/authtest"
)

// ADC isolates t's environment for Application Default Credentials and
// returns the path of the credentials file it made: HOME is a new
// temporary directory; CLOUDSDK_CONFIG, GOOGLE_CLOUD_QUOTA_PROJECT and
// GCE_METADATA_HOST are empty; GOOGLE_APPLICATION_CREDENTIALS names an
// authorized_user file (mode 0600) in HOME whose token_uri is a token
// endpoint on 127.0.0.1 that grants every refresh a one-hour access
// token with scope (space-separated, as Google answers it). quota, when
// not empty, is the file's quota_project_id. The client secret and
// refresh token in the file start with "SECRET-". The token endpoint
// closes when t ends; a failure to write the file fails t.
func ADC(t testing.TB, scope, quota string) string {
	t.Helper()
	ts := authtest.NewTokenServer(t)
	ts.SetReply(func(w http.ResponseWriter, _ *http.Request, _ int64) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprintf(w, `{"access_token":"ya29.adc-minted","token_type":"Bearer","expires_in":3600,"scope":%q}`, scope)
	})
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("CLOUDSDK_CONFIG", "")
	t.Setenv("GOOGLE_CLOUD_QUOTA_PROJECT", "")
	t.Setenv("GCE_METADATA_HOST", "")
	adc := map[string]string{"type": "authorized_user", "client_id": "cid.apps.googleusercontent.com",
		"client_secret": "SECRET-adc-client", "refresh_token": "1//SECRET-adc-refresh", "token_uri": ts.URL + "/token"}
	if quota != "" {
		adc["quota_project_id"] = quota
	}
	path := authtest.WriteJSON(t, home, "adc.json", adc)
	t.Setenv("GOOGLE_APPLICATION_CREDENTIALS", path)
	return path
}
