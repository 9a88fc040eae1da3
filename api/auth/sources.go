package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/colabdash/colabdash/api/safefile"
)

// findDefault is ADC without the network: files first, the metadata server
// only when asked for.
func (c *Credentials) findDefault(getenv func(string) string, allowMetadata bool) (*loaded, error) {
	var tried []string
	if p := getenv(fromEnvADC); p != "" {
		return c.load(sourceADC, p, fromEnvADC)
	}
	tried = append(tried, fromEnvADC+": not set")

	path, from := wellKnownFile(getenv)
	if path == "" {
		tried = append(tried, from+"/"+adcFileName+": "+homeVar()+" not set")
	} else {
		if _, err := os.Stat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
			return c.load(sourceADC, path, from)
		}
		tried = append(tried, path+": not found")
	}

	if host := getenv(envMetadataHost); host != "" || (allowMetadata && onGCE()) {
		return &loaded{kind: sourceMetadata, from: "GCE metadata server"}, nil
	}
	if allowMetadata {
		tried = append(tried, "GCE metadata server: not on GCE")
	} else {
		tried = append(tried, "GCE metadata server: skipped ("+envMetadataHost+" not set)")
	}
	return nil, &Error{
		Kind:  KindNoCredentials,
		Tried: tried,
		Fix:   "run `" + LoginCommand + "`, or pass --credentials FILE or --access-token-file FILE",
	}
}

func homeVar() string {
	if runtime.GOOS == "windows" {
		return "APPDATA"
	}
	return "HOME"
}

// wellKnownFile is where gcloud writes ADC: $CLOUDSDK_CONFIG when set (which
// golang.org/x/oauth2 ignores, field case 10b), else the per-user config
// directory. path is "" when the home variable is unset.
func wellKnownFile(getenv func(string) string) (path, from string) {
	if dir := getenv("CLOUDSDK_CONFIG"); dir != "" {
		return filepath.Join(dir, adcFileName), fromCloudSDKConfig
	}
	if runtime.GOOS == "windows" {
		if d := getenv("APPDATA"); d != "" {
			return filepath.Join(d, "gcloud", adcFileName), fromAppData
		}
		return "", fromAppData
	}
	if h := getenv("HOME"); h != "" {
		return filepath.Join(h, ".config", "gcloud", adcFileName), fromHomeGcloud
	}
	return "", fromHomeGcloud
}

// supportedTypes are the credential file types New accepts.
var supportedTypes = []string{"authorized_user", "service_account", "external_account",
	"external_account_authorized_user", "impersonated_service_account"}

// load reads and checks one credentials or token file.
func (c *Credentials) load(kind sourceKind, path, from string) (*loaded, error) {
	fileErr := func(k Kind, detail, fix string, err error) error {
		return &Error{Kind: k, Path: path, From: from, Detail: detail, Fix: fix, Err: err, tokenFile: kind == sourceAccessTokenFile}
	}
	limit := int64(safefile.MaxCredentialsFile)
	if kind == sourceAccessTokenFile {
		limit = safefile.MaxTokenFile
	}
	b, err := readFile(path, limit)
	if err != nil {
		var se *safefile.Error
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return nil, fileErr(KindMissingFile, "", missingFix(kind, path, from), err)
		case errors.Is(err, fs.ErrPermission):
			return nil, fileErr(KindUnreadableFile, "permission denied",
				"make it readable by you: `chmod 600 "+path+"` (and check its owner)", err)
		case errors.As(err, &se):
			detail := se.Problem
			if st, serr := os.Stat(path); serr == nil && st.IsDir() {
				detail = "is a directory"
			}
			if se.Target != "" {
				detail += " (a link to " + se.Target + ")"
			}
			return nil, fileErr(KindUnreadableFile, detail, missingFix(kind, path, from), err)
		default:
			return nil, fileErr(KindUnreadableFile, shortLine(unwrapPath(err)), missingFix(kind, path, from), err)
		}
	}
	st, statErr := os.Stat(path)
	l := &loaded{kind: kind, path: path, from: from}
	if statErr == nil {
		l.modTime, l.size = st.ModTime(), st.Size()
	}
	if kind == sourceAccessTokenFile {
		tok := strings.TrimSpace(string(b))
		switch {
		case tok == "":
			return nil, fileErr(KindMalformedFile, "the file is empty", missingFix(kind, path, from), nil)
		case strings.ContainsAny(tok, " \t\r\n") || strings.HasPrefix(tok, "{"):
			return nil, fileErr(KindMalformedFile, "expected one access token and nothing else", missingFix(kind, path, from), nil)
		}
		if i := badTokenByte(tok); i >= 0 {
			return nil, fileErr(KindMalformedFile, fmt.Sprintf("the access token has a character an HTTP header cannot carry "+
				"(byte %d; a bearer token is letters, digits and -._~+/ with = at the end)", i+1), missingFix(kind, path, from), nil)
		}
		c.red.Add(tok)
		l.static = tok
		return l, nil
	}
	recreate := "re-create it with `" + LoginCommand + "`, or download a new service-account key"
	var f struct {
		Type         string          `json:"type"`
		Quota        string          `json:"quota_project_id"`
		ClientEmail  string          `json:"client_email"`
		PrivateKey   string          `json:"private_key"`
		ClientID     string          `json:"client_id"`
		ClientSecret string          `json:"client_secret"`
		RefreshToken string          `json:"refresh_token"`
		Installed    json.RawMessage `json:"installed"`
		Web          json.RawMessage `json:"web"`
		// impersonated_service_account and external_account.
		ImpersonationURL string `json:"service_account_impersonation_url"`
		CredentialSource struct {
			File string `json:"file"`
		} `json:"credential_source"`
	}
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, fileErr(KindMalformedFile, "not valid JSON ("+jsonProblem(err)+")", recreate, err)
	}
	// The file's secrets (refresh_token, client_secret, private_key, also
	// in source_credentials) are known from now on.
	var all any
	if json.Unmarshal(b, &all) == nil {
		c.red.AddFields(all)
	}
	if f.Type == "" && (f.Installed != nil || f.Web != nil) {
		return nil, fileErr(KindMalformedFile, "this is an OAuth client file, not credentials",
			"run `"+LoginCommand+" --client-id-file="+path+"`", nil)
	}
	if f.Type == "" {
		return nil, fileErr(KindMalformedFile, `has no "type" field (expected authorized_user or service_account)`, recreate, nil)
	}
	known := false
	for _, t := range supportedTypes {
		known = known || t == f.Type
	}
	if !known {
		return nil, fileErr(KindMalformedFile, "unknown credential type "+quote(f.Type)+
			" (supported: "+strings.Join(supportedTypes, ", ")+")", recreate, nil)
	}
	// Every URL the file names gets the --endpoint rule before anything
	// can be sent to one of them.
	if field, why := insecureEndpoint(all, ""); field != "" {
		return nil, fileErr(KindMalformedFile, field+" "+why, endpointFix(path, field), nil)
	}
	var missing []string
	need := func(v, name string) {
		if strings.TrimSpace(v) == "" {
			missing = append(missing, name)
		}
	}
	switch f.Type {
	case "authorized_user":
		need(f.ClientID, "client_id")
		need(f.ClientSecret, "client_secret")
		need(f.RefreshToken, "refresh_token")
	case "service_account":
		need(f.ClientEmail, "client_email")
		need(f.PrivateKey, "private_key")
	}
	if len(missing) > 0 {
		return nil, fileErr(KindMalformedFile, f.Type+" credentials without "+strings.Join(missing, ", "), recreate, nil)
	}
	if f.Type == "service_account" && !parsesAsKey(f.PrivateKey) {
		return nil, fileErr(KindMalformedFile, "private_key is not a PEM-encoded PKCS#8 or PKCS#1 key", recreate, nil)
	}
	l.credType, l.json, l.quota, l.account = f.Type, b, strings.TrimSpace(f.Quota), f.ClientEmail
	if m := impersonatedAccount.FindStringSubmatch(f.ImpersonationURL); m != nil {
		l.impersonated = m[1]
		if l.account == "" {
			l.account = m[1]
		}
	}
	l.subjectFile = f.CredentialSource.File
	// Let the library check the rest (e.g. a private key that is not PEM)
	// now rather than on the first request. Nothing is fetched here.
	if _, err := c.jsonSource(l); err != nil {
		return nil, fileErr(KindMalformedFile, shortLine(strings.TrimPrefix(err.Error(), "google: ")), recreate, err)
	}
	return l, nil
}

// jsonSource builds a fresh, empty-cache token source from a JSON file's
// bytes, for the type the file declares.
func (c *Credentials) jsonSource(l *loaded) (oauth2.TokenSource, error) {
	creds, err := google.CredentialsFromJSONWithTypeAndParams(c.tokenCtx, l.json,
		google.CredentialsType(l.credType), google.CredentialsParams{Scopes: c.scopes})
	if err != nil {
		return nil, err
	}
	return creds.TokenSource, nil
}
