package auth

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
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
// golang.org/x/oauth2 ignores), else the per-user config
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
	cf := credFile{kind: kind, path: path, from: from}
	b, err := readFile(path, cf.sizeLimit())
	if err != nil {
		return nil, cf.readError(err)
	}
	l := &loaded{kind: kind, path: path, from: from}
	if st, err := os.Stat(path); err == nil {
		l.modTime, l.size = st.ModTime(), st.Size()
	}
	if kind == sourceAccessTokenFile {
		return c.loadAccessToken(cf, l, b)
	}
	return c.loadCredentialsJSON(cf, l, b)
}

// credFile names the file load reads, for the errors about it.
type credFile struct {
	kind       sourceKind
	path, from string
}

// fail is an *Error of kind k about the file.
func (cf credFile) fail(k Kind, detail, fix string, err error) error {
	return &Error{Kind: k, Path: cf.path, From: cf.from, Detail: detail, Fix: fix, Err: err,
		tokenFile: cf.kind == sourceAccessTokenFile}
}

// missingFix is the fix for a file that is missing or unusable: where a
// file of its kind comes from.
func (cf credFile) missingFix() string { return missingFix(cf.kind, cf.path, cf.from) }

// sizeLimit is the largest file of its kind read, in bytes.
func (cf credFile) sizeLimit() int64 {
	if cf.kind == sourceAccessTokenFile {
		return safefile.MaxTokenFile
	}
	return safefile.MaxCredentialsFile
}

// readError explains why the file could not be read: missing, not
// readable by the user, not a regular file (or a link out of reach, too
// large…), or another I/O error in one line.
func (cf credFile) readError(err error) error {
	var se *safefile.Error
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return cf.fail(KindMissingFile, "", cf.missingFix(), err)
	case errors.Is(err, fs.ErrPermission):
		return cf.fail(KindUnreadableFile, "permission denied",
			"make it readable by you: `chmod 600 "+cf.path+"` (and check its owner)", err)
	case errors.As(err, &se):
		detail := se.Problem
		if st, serr := os.Stat(cf.path); serr == nil && st.IsDir() {
			detail = "is a directory"
		}
		if se.Target != "" {
			detail += " (a link to " + se.Target + ")"
		}
		return cf.fail(KindUnreadableFile, detail, cf.missingFix(), err)
	default:
		return cf.fail(KindUnreadableFile, shortLine(unwrapPath(err)), cf.missingFix(), err)
	}
}

// loadAccessToken checks an access token file's bytes b (one token that
// an HTTP header can carry, nothing else), registers the token with the
// redactor and keeps it in l.
func (c *Credentials) loadAccessToken(cf credFile, l *loaded, b []byte) (*loaded, error) {
	tok := strings.TrimSpace(string(b))
	switch {
	case tok == "":
		return nil, cf.fail(KindMalformedFile, "the file is empty", cf.missingFix(), nil)
	case strings.ContainsAny(tok, " \t\r\n") || strings.HasPrefix(tok, "{"):
		return nil, cf.fail(KindMalformedFile, "expected one access token and nothing else", cf.missingFix(), nil)
	}
	if i := badTokenByte(tok); i >= 0 {
		return nil, cf.fail(KindMalformedFile, fmt.Sprintf("the access token has a character an HTTP header cannot carry "+
			"(byte %d; a bearer token is letters, digits and -._~+/ with = at the end)", i+1), cf.missingFix(), nil)
	}
	c.red.Add(tok)
	l.static = tok
	return l, nil
}

// recreateFix is the fix for a credentials file that cannot be used.
const recreateFix = "re-create it with `" + LoginCommand + "`, or download a new service-account key"

// credJSON is what load reads of a credentials file.
type credJSON struct {
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

// loadCredentialsJSON checks a credentials file's bytes b, registers its
// secrets with the redactor and fills l: a supported type, every URL it
// names acceptable, the fields its type needs, and what the oauth2
// library itself checks without the network.
func (c *Credentials) loadCredentialsJSON(cf credFile, l *loaded, b []byte) (*loaded, error) {
	var f credJSON
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, cf.fail(KindMalformedFile, "not valid JSON ("+jsonProblem(err)+")", recreateFix, err)
	}
	// The file's secrets (refresh_token, client_secret, private_key, also
	// in source_credentials) are known from now on.
	var all any
	if json.Unmarshal(b, &all) == nil {
		c.red.AddFields(all)
	}
	if err := cf.checkType(&f); err != nil {
		return nil, err
	}
	// Every URL the file names gets the --endpoint rule before anything
	// can be sent to one of them.
	if field, why := insecureEndpoint(all, ""); field != "" {
		return nil, cf.fail(KindMalformedFile, field+" "+why, endpointFix(cf.path, field), nil)
	}
	if missing := missingFields(&f); len(missing) > 0 {
		return nil, cf.fail(KindMalformedFile, f.Type+" credentials without "+strings.Join(missing, ", "), recreateFix, nil)
	}
	if f.Type == "service_account" && !parsesAsKey(f.PrivateKey) {
		return nil, cf.fail(KindMalformedFile, "private_key is not a PEM-encoded PKCS#8 or PKCS#1 key", recreateFix, nil)
	}
	l.credType, l.json, l.quota, l.account = f.Type, b, strings.TrimSpace(f.Quota), f.ClientEmail
	if m := impersonatedAccount().FindStringSubmatch(f.ImpersonationURL); m != nil {
		l.impersonated = m[1]
		if l.account == "" {
			l.account = m[1]
		}
	}
	l.subjectFile = f.CredentialSource.File
	// Let the library check the rest (e.g. a private key that is not PEM)
	// now rather than on the first request. Nothing is fetched here.
	if _, err := c.jsonSource(l); err != nil {
		return nil, cf.fail(KindMalformedFile, shortLine(strings.TrimPrefix(err.Error(), "google: ")), recreateFix, err)
	}
	return l, nil
}

// checkType refuses a file whose "type" is missing (an OAuth client
// file, which has none, is named as such) or not one of supportedTypes.
func (cf credFile) checkType(f *credJSON) error {
	switch {
	case f.Type == "" && (f.Installed != nil || f.Web != nil):
		return cf.fail(KindMalformedFile, "this is an OAuth client file, not credentials",
			"run `"+LoginCommand+" --client-id-file="+cf.path+"`", nil)
	case f.Type == "":
		return cf.fail(KindMalformedFile, `has no "type" field (expected authorized_user or service_account)`, recreateFix, nil)
	case !slices.Contains(supportedTypes, f.Type):
		return cf.fail(KindMalformedFile, "unknown credential type "+quote(f.Type)+
			" (supported: "+strings.Join(supportedTypes, ", ")+")", recreateFix, nil)
	}
	return nil
}

// missingFields lists the fields f's type needs that are absent or blank:
// client_id, client_secret and refresh_token for authorized_user,
// client_email and private_key for service_account.
func missingFields(f *credJSON) []string {
	var need []struct{ v, name string }
	switch f.Type {
	case "authorized_user":
		need = []struct{ v, name string }{{f.ClientID, "client_id"}, {f.ClientSecret, "client_secret"}, {f.RefreshToken, "refresh_token"}}
	case "service_account":
		need = []struct{ v, name string }{{f.ClientEmail, "client_email"}, {f.PrivateKey, "private_key"}}
	}
	var missing []string
	for _, n := range need {
		if strings.TrimSpace(n.v) == "" {
			missing = append(missing, n.name)
		}
	}
	return missing
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
