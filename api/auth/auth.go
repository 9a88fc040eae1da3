// Package auth finds the Google credentials colabdash sends to the Colab
// MCP server (https://colaboratory.googleapis.com/mcp) and builds the HTTP
// client that carries them: `Authorization: Bearer <access token>`,
// `x-goog-user-project: <quota project>` and `X-Colab-Client-Agent:
// colabdash`.
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

import (
	"context"
	"net/http"
	"os"
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
	// (the one scope it documents).
	ColabScope = "https://www.googleapis.com/auth/colaboratory"
	// CloudPlatformScope is requested at login next to ColabScope, because
	// gcloud's own OAuth client needs it.
	CloudPlatformScope = "https://www.googleapis.com/auth/cloud-platform"
	// LoginCommand is the command that creates ADC with the Colab scope:
	// what a token lacking that scope, or a revoked refresh token
	// (invalid_grant, invalid_rapt), is fixed with. A plain `gcloud auth
	// application-default login` no longer grants non-Cloud scopes.
	LoginCommand = "gcloud auth application-default login --scopes=" + ColabScope + "," + CloudPlatformScope
	// ClientAgent is the X-Colab-Client-Agent header value sent on every
	// request; Colab's VS Code extension sends "vscode" in it.
	ClientAgent = "colabdash"
	// RefreshCooldown is how long after a forced refresh another 401 is
	// taken as final: ForceRefresh returns false instead of minting again,
	// so a server that keeps answering 401 cannot cause a refresh loop.
	RefreshCooldown = 30 * time.Second
	// EarlyRefresh is how long before its expiry a cached access token is
	// replaced (x/oauth2 uses only 10 s). Tokens living
	// less than 2×EarlyRefresh are replaced at half their lifetime.
	EarlyRefresh = 60 * time.Second
)

// Header names set by the transport on every request.
const (
	// HeaderUserProject carries the quota project ID; it is
	// sent only when a quota project is set.
	HeaderUserProject = "X-Goog-User-Project"
	// HeaderClientAgent carries ClientAgent.
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
