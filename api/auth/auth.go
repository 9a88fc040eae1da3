// Package auth finds the Google credentials colabdash sends to the Colab
// MCP server (https://colaboratory.googleapis.com/mcp) and builds the HTTP
// client that carries them: `Authorization: Bearer <access token>`,
// `x-goog-user-project: <quota project>` and `X-Colab-Client-Agent:
// colabdash` (colab-api.md §3).
//
// Credentials come, in order, from --access-token-file, --credentials, or
// Application Default Credentials (GOOGLE_APPLICATION_CREDENTIALS, then the
// gcloud well-known file, honouring CLOUDSDK_CONFIG). The GCE metadata
// server is used only when GCE_METADATA_HOST is set or Options.AllowMetadata
// is true, so a machine without credentials gets a clear error at once and
// no network traffic. Tokens are kept in memory only: never logged, printed
// or written to disk, and registered with the process's api.Redactor the
// moment they are read or minted.
//
// Credentials and token files are read with safefile: regular files only
// (a symlink to /dev/zero, a FIFO or a directory is an error naming the
// file), at most 1 MiB (64 KiB for an access token file), in bounded time.
// Token endpoints are reached through safehttp's redirect policy. Every
// URL a credentials file names (token_uri, token_url,
// service_account_impersonation_url, credential_source.url, …, also in
// source_credentials) must be https, or plain http to loopback: New
// refuses the file otherwise, and the token HTTP client refuses any other
// URL before it sends a byte. invalid_grant is final: one request, then
// the same error until the file changes.
package auth

// Why this file is over 400 lines: every credential source (ADC, files, token file, impersonation, external account) with its error mapping, side by side. Its small helpers are in filecheck.go, what it reports about the credentials in describe.go.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"cloud.google.com/go/compute/metadata"
	"golang.org/x/oauth2"
	"golang.org/x/oauth2/google"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/api/safehttp"
)

const (
	// ColabScope is the OAuth scope the Colab MCP server needs
	// (colab-api.md §1 "OAuth scopes").
	ColabScope = "https://www.googleapis.com/auth/colaboratory"
	// CloudPlatformScope is requested at login next to ColabScope, because
	// gcloud's own OAuth client needs it.
	CloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"
	// LoginCommand is the command that creates ADC with the Colab scope
	// (field-cases.md cases 9 and 11).
	LoginCommand = "gcloud auth application-default login --scopes=" + ColabScope + "," + CloudPlatformScope
	// ClientAgent is the X-Colab-Client-Agent header value sent on every
	// request (colab-api.md §3; the VS Code extension sends "vscode").
	ClientAgent = "colabdash"
	// RefreshCooldown is how long after a forced refresh another 401 is
	// taken as final: ForceRefresh returns false instead of minting again,
	// so a server that keeps answering 401 cannot cause a refresh loop.
	RefreshCooldown = 30 * time.Second
	// EarlyRefresh is how long before its expiry a cached access token is
	// replaced (x/oauth2 uses only 10 s; field case 12a). Tokens living
	// less than 2×EarlyRefresh are replaced at half their lifetime.
	EarlyRefresh = 60 * time.Second
)

// Header names set by the transport on every request.
const (
	// HeaderUserProject carries the quota project ID (field case 8); it is
	// sent only when a quota project is set.
	HeaderUserProject = "X-Goog-User-Project"
	// HeaderClientAgent carries ClientAgent (colab-api.md §3).
	HeaderClientAgent = "X-Colab-Client-Agent"
)

// Where a path or quota project came from, as shown to the user.
const (
	fromAccessTokenFlag = "--access-token-file"
	fromCredentialsFlag = "--credentials"
	fromEnvADC          = "GOOGLE_APPLICATION_CREDENTIALS"
	fromCloudSDKConfig  = "$CLOUDSDK_CONFIG"
	fromHomeGcloud      = "$HOME/.config/gcloud"
	fromAppData         = "%APPDATA%/gcloud"
	fromQuotaFlag       = "--quota-project"
	envQuotaProject     = "GOOGLE_CLOUD_QUOTA_PROJECT"
	envMetadataHost     = "GCE_METADATA_HOST"
	adcFileName         = "application_default_credentials.json"
	tokenFetchTimeout   = 30 * time.Second
)

// Options says where to find credentials. The zero value means: ADC with
// the Colab scope, quota project from GOOGLE_CLOUD_QUOTA_PROJECT or the
// credentials file.
type Options struct {
	// CredentialsFile is --credentials: an authorized_user,
	// service_account, external_account, external_account_authorized_user
	// or impersonated_service_account JSON file. Takes precedence over ADC.
	CredentialsFile string
	// AccessTokenFile is --access-token-file (as in gcloud): a file holding
	// one bearer access token; surrounding whitespace is trimmed. The file
	// is re-read when its modification time or size changes. Takes
	// precedence over CredentialsFile.
	AccessTokenFile string
	// QuotaProject is --quota-project: the project sent as
	// x-goog-user-project. Overrides GOOGLE_CLOUD_QUOTA_PROJECT and the
	// file's quota_project_id.
	QuotaProject string
	// From says where CredentialsFile or AccessTokenFile was set, for
	// errors ("… does not exist (from FROM)") and their fixes, e.g.
	// "profile work, /home/u/.config/colabdash/config.yaml:18". "" means
	// the command-line flag: "--credentials" or "--access-token-file".
	// A value other than those flag names makes the fix point at the
	// profile's credentialsFile or accessTokenFile setting.
	From string
	// QuotaProjectFrom says where QuotaProject was set, as From does
	// (e.g. "profile work, config.yaml:20"); "" means "--quota-project".
	QuotaProjectFrom string
	// Scopes are the OAuth scopes asked for (service accounts, metadata
	// server); default [ColabScope]. authorized_user credentials ignore
	// them: their scopes were fixed at login.
	Scopes []string
	// Getenv reads environment variables; default os.Getenv. Tests pass a
	// map lookup. (The metadata server's own library always reads the real
	// GCE_METADATA_HOST.)
	Getenv func(string) string
	// HTTPClient is used for token fetches from the token endpoint
	// (token_uri, STS, IAM); default a client with a 30 s timeout. A copy
	// is used that never follows a redirect to another origin (safehttp).
	// The metadata server is reached through its library's own client.
	HTTPClient *http.Client
	// AllowMetadata lets New use the GCE metadata server even when
	// GCE_METADATA_HOST is unset; that probes 169.254.169.254 and DNS for
	// metadata.google.internal, which can take seconds off GCE.
	AllowMetadata bool
	// Now is the clock for token expiry and the refresh cooldown; default
	// time.Now.
	Now func() time.Time
	// Redactor, shared with the rest of the process, learns every secret
	// the moment it is known: the access token of an access token file
	// when it is read; the refresh tokens, client secrets and private keys
	// of a credentials file when it is read; every access token minted;
	// and every bearer token, Basic credential and secret form field the
	// token HTTP client sends (the intermediate tokens of impersonation and
	// external accounts). Error texts of this package pass through it.
	// nil: a private one (the patterns only protect the errors).
	Redactor *api.Redactor
}

type sourceKind int

const (
	sourceAccessTokenFile sourceKind = iota + 1
	sourceCredentialsFile
	sourceADC
	sourceMetadata
)

// loaded is one reading of a credentials source.
type loaded struct {
	kind     sourceKind
	path     string // "" for metadata
	from     string // how path was chosen
	credType string // JSON "type"; "" for token file / metadata
	json     []byte // raw credentials JSON, in memory only
	static   string // access token from an access token file
	account  string // client_email of a service account, for Describe
	// impersonated is the service account an impersonated_service_account
	// (or external_account) file impersonates, "" when none.
	impersonated string
	// subjectFile is an external_account's credential_source.file.
	subjectFile string
	quota       string // quota_project_id in the file
	modTime     time.Time
	size        int64
}

// Credentials are the credentials found by New, with an access-token cache.
// They are safe for concurrent use. Token values never leave the package
// except in the Authorization header of requests sent through HTTPClient
// or Transport (and from TokenSource).
type Credentials struct {
	scopes   []string
	tokenCtx context.Context
	now      func() time.Time
	red      *api.Redactor

	quotaFlag, quotaEnv string
	quotaFrom           string // where quotaFlag was set (--quota-project, a profile)

	mu       sync.Mutex
	src      *loaded
	epoch    uint64 // bumped when src is replaced
	tok      *oauth2.Token
	mintedAt time.Time
	gen      uint64 // bumped with every new cached token
	sticky   *Error // KindReauthRequired until the file changes
	flight   *flight
	rejected uint64 // highest token generation a server answered 401 to
	forcedAt time.Time
}

// Test seams: reading files (bounded: regular files only, at most max
// bytes, in bounded time), and the metadata server.
var (
	readFile          = func(path string, max int64) ([]byte, error) { return safefile.Read(path, max, 0) }
	onGCE             = metadata.OnGCE
	newMetadataSource = func(scopes []string) oauth2.TokenSource { return google.ComputeTokenSource("", scopes...) }
)

// New finds credentials, in this order: opts.AccessTokenFile, then
// opts.CredentialsFile, then Application Default Credentials:
// GOOGLE_APPLICATION_CREDENTIALS, then
// $CLOUDSDK_CONFIG/application_default_credentials.json when CLOUDSDK_CONFIG
// is set, else $HOME/.config/gcloud/application_default_credentials.json
// (%APPDATA%\gcloud on Windows), then the GCE metadata server, only if
// GCE_METADATA_HOST is set or opts.AllowMetadata.
//
// New reads and checks files but sends nothing: the first access token is
// minted on the first request. ctx supplies values (not cancellation) for
// later token fetches. The error is always an *Error: KindNoCredentials
// (with Tried), KindMissingFile, KindUnreadableFile or KindMalformedFile.
// A file that was named or found is never skipped: a broken
// GOOGLE_APPLICATION_CREDENTIALS is an error, not a fall-through.
func New(ctx context.Context, opts Options) (*Credentials, error) {
	getenv := opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	c := &Credentials{scopes: opts.Scopes, now: opts.Now}
	if len(c.scopes) == 0 {
		c.scopes = []string{ColabScope}
	}
	if c.now == nil {
		c.now = time.Now
	}
	c.red = opts.Redactor
	if c.red == nil {
		c.red = &api.Redactor{}
	}
	base := opts.HTTPClient
	if base == nil {
		base = &http.Client{Timeout: tokenFetchTimeout}
	}
	// Token endpoints (token_uri, STS, IAM) get the product's redirect
	// policy: a form body with a client secret or a bearer token never
	// follows a redirect to another origin. Whatever credential the
	// libraries send through it is registered first.
	hc := safehttp.Client(base)
	hc.Transport = &secretTap{base: hc.Transport, red: c.red}
	c.tokenCtx = context.WithValue(context.WithoutCancel(ctx), oauth2.HTTPClient, hc)

	var (
		src *loaded
		err error
	)
	switch {
	case opts.AccessTokenFile != "":
		src, err = c.load(sourceAccessTokenFile, opts.AccessTokenFile, orDefault(opts.From, fromAccessTokenFlag))
	case opts.CredentialsFile != "":
		src, err = c.load(sourceCredentialsFile, opts.CredentialsFile, orDefault(opts.From, fromCredentialsFlag))
	default:
		src, err = c.findDefault(getenv, opts.AllowMetadata)
	}
	if err != nil {
		return nil, err
	}
	c.src = src
	c.quotaFlag = strings.TrimSpace(opts.QuotaProject)
	c.quotaFrom = orDefault(opts.QuotaProjectFrom, fromQuotaFlag)
	c.quotaEnv = strings.TrimSpace(getenv(envQuotaProject))
	return c, nil
}

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
