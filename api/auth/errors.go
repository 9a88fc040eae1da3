package auth

import (
	"errors"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"golang.org/x/oauth2"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/api/safehttp"
)

// Kind says which credential failure an *Error is. Its value is a short
// lower-case phrase safe to show.
type Kind string

// The kinds of *Error: credentials not found, a credentials file missing,
// unreadable or malformed, a refresh token revoked or needing
// re-authentication, and an access token that cannot be had.
const (
	// KindNoCredentials: no flag, no GOOGLE_APPLICATION_CREDENTIALS, no
	// well-known ADC file, and the metadata server was not to be used.
	// Error.Tried lists every place looked at.
	KindNoCredentials Kind = "no credentials found"
	// KindMissingFile: a named credentials or token file does not exist
	// (e.g. GOOGLE_APPLICATION_CREDENTIALS=/nonexistent.json).
	KindMissingFile Kind = "credentials file missing"
	// KindUnreadableFile: the file exists but cannot be read (mode 000,
	// a directory, an I/O error).
	KindUnreadableFile Kind = "credentials file unreadable"
	// KindMalformedFile: the file was read but is not usable credentials
	// (bad JSON, `{}` with no "type", an unknown type, missing fields, an
	// empty access token file).
	KindMalformedFile Kind = "credentials file malformed"
	// KindReauthRequired: the token endpoint answered invalid_grant (also
	// "invalid_rapt", "Token has been expired or revoked."): only a new
	// login helps. Sticky until the credentials file changes on disk.
	KindReauthRequired Kind = "re-authentication required"
	// KindClockSkew: the token endpoint answered invalid_grant because a
	// signed JWT is not "in a reasonable timeframe": this
	// machine's clock is probably wrong. Final and sticky, as
	// KindReauthRequired.
	KindClockSkew Kind = "clock skew suspected"
	// KindTokenFetch: minting an access token failed for another reason
	// (network, token endpoint 5xx, invalid_client…).
	KindTokenFetch Kind = "cannot get an access token"
)

// Error is the one error type of this package: every failure of New and
// every failure to mint an access token (seen as the error of a request
// sent through Credentials.HTTPClient, reachable with errors.As through
// *url.Error and the MCP SDK's wrapping).
//
// Kind is the failure; Path is the file concerned ("" when none) and From
// says how that path was chosen ("--credentials", "GOOGLE_APPLICATION_CREDENTIALS",
// "$CLOUDSDK_CONFIG", "$HOME/.config/gcloud", "--access-token-file"); Tried
// lists, for KindNoCredentials, each place looked at with what was found
// there; Detail is a short reason ("permission denied", `has no "type"
// field`); Fix is a one-line instruction, usually a command to run. Err is
// the underlying cause (*fs.PathError, *json.SyntaxError,
// *oauth2.RetrieveError…). Error() is one line and never contains a token,
// refresh token, client secret or private key.
type Error struct {
	Kind   Kind
	Path   string
	From   string
	Tried  []string
	Detail string
	Fix    string
	Err    error

	tokenFile bool // Path is an access token file, not a credentials JSON file
	transient bool // a network failure or a token endpoint 5xx/429: retrying may help
}

// FixLine returns Fix (api.CredentialsError).
func (e *Error) FixLine() string { return e.Fix }

// Transient reports whether retrying later may help: the token endpoint
// could not be reached, or answered 5xx or 429 (api.CredentialsError).
// Every other failure needs the user to act first.
func (e *Error) Transient() bool { return e.transient }

// Error renders one line without the Fix, e.g.
// "credentials file /x.json (from GOOGLE_APPLICATION_CREDENTIALS) does not exist".
func (e *Error) Error() string {
	where := e.Path
	if e.From != "" && where != "" {
		where += " (from " + e.From + ")"
	}
	var s string
	switch e.Kind {
	case KindNoCredentials:
		s = "no Google credentials found (tried " + strings.Join(e.Tried, "; ") + ")"
	case KindMissingFile:
		s = e.fileNoun() + " " + where + " does not exist"
	case KindUnreadableFile:
		s = "cannot read " + e.fileNoun() + " " + where
		if e.Detail != "" {
			s += ": " + e.Detail
		}
	case KindMalformedFile:
		s = e.fileNoun() + " " + where + " is not usable"
		if e.Detail != "" {
			s += ": " + e.Detail
		}
	default:
		s = string(e.Kind)
		if e.Detail != "" {
			s += ": " + e.Detail
		}
		if where != "" {
			s += " [" + where + "]"
		}
	}
	return api.OneLine(s, 400)
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// Is reports whether target is an *Error of the same Kind, so
// errors.Is(err, &auth.Error{Kind: auth.KindReauthRequired}) works.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Kind == e.Kind
}

func (e *Error) fileNoun() string {
	if e.tokenFile || e.From == fromAccessTokenFlag {
		return "access token file"
	}
	return "credentials file"
}

// tokenError turns a failure of a token source into an *Error. For
// invalid_grant it is KindReauthRequired; the description the endpoint gave
// (e.g. "reauth related error (invalid_rapt)") is kept, the raw body is not.
// Every text taken from a server passes through the Redactor first. The fix
// says what to do for each known failure: re-login, grant
// roles/iam.serviceAccountTokenCreator (impersonation denied), set
// GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES=1 (an external account with an
// executable source), set SSL_CERT_FILE (an untrusted certificate); "check
// the network" only for what is left.
func (c *Credentials) tokenError(err error, src *loaded) *Error {
	e := &Error{Kind: KindTokenFetch, Path: src.path, From: src.from, Err: err, tokenFile: src.kind == sourceAccessTokenFile}
	red := c.red.Redact
	var re *oauth2.RetrieveError
	var se *safefile.Error
	var pe *safehttp.PlainHTTPError
	text := err.Error()
	ans, answered := answerOf(err)
	switch {
	case answered && ans.code == "invalid_grant":
		// Final: sticky until the file changes, never retried.
		e.Kind = KindReauthRequired
		e.Detail = ans.answered(red)
		e.Fix = c.reauthFix(src)
		if ans.clockSkewed() {
			e.Kind = KindClockSkew
			e.Detail = ans.clockNote(c.clock()) + "; " + e.Detail
			e.Fix = clockFix
		}
	case errors.As(err, &pe) || errors.Is(err, errNotHTTP) ||
		strings.Contains(text, "plain http would send credentials") || strings.Contains(text, errNotHTTP.Error()):
		// checkRequestURL refused a URL a library built; nothing was sent.
		e.Detail = "refused to send credentials: " + red(text)
		if pe != nil {
			e.Detail = "refused to send credentials to " + pe.URL + ": plain http to a host that is not loopback"
		}
		e.Fix = "use https:// URLs in " + orDefault(src.path, "the credentials") + " (plain http is accepted only for loopback)"
	case errors.As(err, &re):
		e.Detail = ans.answered(red)
		e.Fix = c.reauthFix(src)
		if ans.status != 0 && transientStatus(ans.status) {
			e.transient, e.Fix = true, outageFix
		}
	case safehttp.IsRedirect(err) || strings.Contains(text, "refused a redirect from "):
		// Typed, or flattened into text by the library (impersonation).
		e.Detail = red(text)
		var rde *safehttp.RedirectError
		if errors.As(err, &rde) {
			e.Detail = red(rde.Error())
		}
		e.Fix = "check the token endpoint URLs in " + orDefault(src.path, "the credentials") + ": a token endpoint may not redirect to another host"
	case api.CertificateProblem(err) != "":
		e.Detail = strings.TrimSuffix(red(api.CertificateProblem(err)), "; "+api.CertificateHint)
		e.Fix = api.CertificateHint
	case strings.Contains(text, envAllowExecutables):
		e.Detail = "the credentials file gets its token by running a command, which is not allowed by default"
		e.Fix = "if you trust the command in " + src.path + ", set " + envAllowExecutables + "=1 in the environment and retry"
	case src.impersonated != "" && iamStatus().MatchString(text):
		m := iamStatus().FindStringSubmatch(text)
		status, _ := strconv.Atoi(m[1])
		ae := api.ParseHTTPError(status, "", []byte(red(m[2])))
		e.Detail = "IAM refused to mint a token for service account " + src.impersonated + " (" + string(ae.Code)
		if ae.Message != "" && ae.Message != api.DefaultMessage(ae.Code, status) {
			e.Detail += ": " + ae.Message
		}
		e.Detail += ")"
		e.Fix = c.reauthFix(src)
		if status == 403 {
			e.Fix = "the signed-in account needs the role " + TokenCreatorRole + " on " + src.impersonated +
				": `gcloud iam service-accounts add-iam-policy-binding " + src.impersonated +
				" --member=user:YOUR_EMAIL --role=" + TokenCreatorRole + "`"
		}
	case errors.As(err, &se):
		e.Detail = red(se.Error())
		e.Fix = "point credential_source.file in " + src.path + " at a readable token file"
	case answered && ans.status != 0:
		// STS or IAM, as text: "status code 400: {body}".
		e.Detail = ans.answered(red)
		e.Fix = c.reauthFix(src)
		if transientStatus(ans.status) {
			e.transient, e.Fix = true, outageFix
		}
	default:
		e.Detail = api.OneLine(red(text), 200)
		e.Fix = "check the network connection and retry"
		e.transient = true
	}
	e.Detail = api.OneLine(e.Detail, 300)
	return e
}

// outageFix is the fix line for a token endpoint that answered 5xx, 429
// or 408: nothing is wrong with the credentials.
const outageFix = "the token endpoint is failing or busy; retry in a while (check the network connection if it persists)"

// TokenCreatorRole is the IAM role that lets an account mint tokens for a
// service account it impersonates.
const TokenCreatorRole = "roles/iam.serviceAccountTokenCreator"

// envAllowExecutables must be 1 for an external_account file whose
// credential_source runs a command.
const envAllowExecutables = "GOOGLE_EXTERNAL_ACCOUNT_ALLOW_EXECUTABLES"

// iamStatus is how x/oauth2 reports a failed generateAccessToken:
// "oauth2/google: status code 403: {body}".
var iamStatus = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)status code (\d{3}): (.*)$`) })

// reauthFix is the fix line for "these credentials no longer work".
func (c *Credentials) reauthFix(src *loaded) string {
	switch {
	case src == nil:
		return "run `" + LoginCommand + "`"
	case src.kind == sourceAccessTokenFile:
		return "write a fresh access token to " + src.path + ", e.g. `gcloud auth application-default print-access-token > " + src.path + "`"
	case src.credType == "service_account":
		return "check that the service-account key in " + src.path + " is still active (and the clock is right), or create a new key"
	case src.kind == sourceMetadata:
		return "check the service account attached to this VM, or run `" + LoginCommand + "`"
	}
	return loginFix(src)
}

// loginFix is "run the login command", plus, when GOOGLE_APPLICATION_CREDENTIALS
// or --credentials names the file, that the login does not rewrite it.
func loginFix(src *loaded) string {
	fix := "run `" + LoginCommand + "`"
	switch {
	case src == nil:
	case src.from == fromEnvADC:
		fix += " and unset GOOGLE_APPLICATION_CREDENTIALS (gcloud writes its own file, not " + src.path + ")"
	case src.from == fromCredentialsFlag:
		fix += " and drop --credentials (gcloud writes its own file, not " + src.path + ")"
	case src.kind == sourceCredentialsFile:
		fix += " and remove credentialsFile (" + src.from + ") or point it at gcloud's file (gcloud writes its own file, not " + src.path + ")"
	}
	return fix
}

// Explain turns a failure into user guidance for the auth panel and the
// status command: a one-line headline and a one-line fix (usually a command
// to run). It understands *Error, an *oauth2.RetrieveError from the token
// endpoint (invalid_grant / invalid_rapt → re-login), and an *api.Error
// whose Reason or Code is about credentials:
//
//   - ACCESS_TOKEN_SCOPE_INSUFFICIENT → "credentials lack the Colab scope" + LoginCommand
//   - USER_PROJECT_DENIED / CONSUMER_INVALID → names the quota project and
//     where it came from + `gcloud auth application-default set-quota-project PROJECT`
//   - SERVICE_DISABLED or a "requires a quota project" message → the project
//     Google billed (metadata.consumer) and its activationUrl, or set a quota
//     project (serviceDisabled)
//   - EMULATOR_HOST_NOT_LOOPBACK (colabdash's emulator refused the Host) → reach it by loopback
//   - UNAUTHENTICATED (HTTP 401) → re-login
//   - other PERMISSION_DENIED → the server's message
//
// c may be nil (then the quota project's origin is not named). Both strings
// are "" when err is nil or not a credentials failure.
func Explain(err error, c *Credentials) (headline, fix string) {
	if err == nil {
		return "", ""
	}
	var ae *Error
	if errors.As(err, &ae) {
		return ae.Error(), ae.Fix
	}
	var src *loaded
	if c != nil {
		src = c.current()
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) {
		if c == nil {
			c = &Credentials{}
		}
		return c.tokenError(re, orEmpty(src)).Error(), c.reauthFix(src)
	}
	var e *api.Error
	if !errors.As(err, &e) {
		return "", ""
	}
	project, from := "", ""
	if c != nil {
		project, from = c.QuotaProject()
	}
	msg := strings.ToLower(e.Message)
	switch {
	case e.Reason == api.ReasonScopeInsufficient || strings.Contains(msg, "insufficient authentication scopes"):
		return scopeInsufficient(src)
	case e.Reason == api.ReasonUserProjectDenied || e.Reason == "CONSUMER_INVALID":
		return quotaProjectRefused(e, project, from)
	case e.Reason == api.ReasonServiceDisabled || strings.Contains(msg, "requires a quota project"):
		return serviceDisabled(e, msg, project, from)
	case e.Code == api.Unauthenticated || e.HTTPStatus == 401:
		return "not signed in, or the access token was rejected", c.reauthFix(src)
	case e.Reason == api.ReasonEmulatorHostNotLoopback:
		// Not the account: colabdash's emulator refused the name the
		// endpoint URL reached it by (DNS rebinding protection).
		return "the Colab emulator refused the request: " + api.OneLine(e.Message, 200),
			"reach the emulator by a loopback address, e.g. --endpoint http://127.0.0.1:PORT/mcp (a proxy in front of it must pass a loopback Host)"
	case e.Code == api.PermissionDenied || e.HTTPStatus == 403:
		return permissionDenied(e, c)
	}
	return "", ""
}

// scopeInsufficient explains credentials without the Colab scope; the
// fix depends on whether src is an access token file (mint another
// token) or credentials to sign in again with.
func scopeInsufficient(src *loaded) (headline, fix string) {
	headline = "credentials lack the Colab scope (" + ColabScope + ")"
	if src != nil && src.kind == sourceAccessTokenFile {
		return headline, "write a token minted with the Colab scope to " + src.path + " (after `" + LoginCommand + "`, use `gcloud auth application-default print-access-token`)"
	}
	return headline, loginFix(src) + "; add --client-id-file=CLIENT.json if gcloud refuses the Colab scope"
}

// quotaProjectRefused explains USER_PROJECT_DENIED and CONSUMER_INVALID:
// the project Google names (metadata.consumer), else the configured one
// (project, set from from), which is denied or not valid.
func quotaProjectRefused(e *api.Error, project, from string) (headline, fix string) {
	denied := strings.TrimPrefix(e.Metadata["consumer"], "projects/")
	if denied == "" {
		denied = project
	}
	headline = "quota project"
	if denied != "" {
		headline += " " + denied
	}
	if from != "" && (denied == "" || denied == project) {
		headline += " (from " + from + ")"
	}
	if e.Reason == "CONSUMER_INVALID" {
		headline += " is not valid"
	} else {
		headline += " is denied: the account may not use it (serviceusage.services.use)"
	}
	return headline, quotaFix(from)
}

// permissionDenied explains any other PERMISSION_DENIED: the server's
// message unless it is only the status's default, and the credentials in
// use (c may be nil).
func permissionDenied(e *api.Error, c *Credentials) (headline, fix string) {
	headline = "permission denied"
	if e.Message != "" && !strings.HasPrefix(e.Message, "Permission denied (HTTP") {
		headline += ": " + api.OneLine(e.Message, 200)
	}
	fix = "check that the signed-in account may use Colab"
	if c != nil {
		fix += " (" + c.Describe() + ")"
	}
	return headline, fix
}

func orEmpty(src *loaded) *loaded {
	if src == nil {
		return &loaded{}
	}
	return src
}

// quotaFix is the fix line for a missing or denied quota project; from is
// where the current one came from ("" when none is set).
func quotaFix(from string) string {
	fix := "run `gcloud auth application-default set-quota-project PROJECT` with a project you may use, or pass --quota-project PROJECT"
	if from == envQuotaProject {
		fix = "change or unset " + envQuotaProject + ", or " + fix
	}
	return fix
}
