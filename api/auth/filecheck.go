package auth

import (
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"errors"
	"io/fs"
	"regexp"
	"strconv"
	"strings"
	"sync"

	"github.com/colabdash/colabdash/api"
)

// impersonatedAccount finds the service account in a
// service_account_impersonation_url
// (…/serviceAccounts/SA@PROJECT.iam.gserviceaccount.com:generateAccessToken).
var impersonatedAccount = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`/serviceAccounts/([^/:]+):generateAccessToken`) })

// badTokenByte returns the index of the first byte of tok that is not in
// RFC 6750's b64token (letters, digits, -._~+/ and trailing =), or -1.
// Such a token cannot be sent as "Authorization: Bearer …".
func badTokenByte(tok string) int {
	end := len(strings.TrimRight(tok, "="))
	for i := 0; i < len(tok); i++ {
		ch := tok[i]
		switch {
		case ch >= 'a' && ch <= 'z', ch >= 'A' && ch <= 'Z', ch >= '0' && ch <= '9',
			strings.IndexByte("-._~+/", ch) >= 0:
		case ch == '=' && i >= end && i > 0:
		default:
			return i
		}
	}
	return -1
}

// parsesAsKey reports whether key is a private key the way the library
// reads it (PEM, or raw DER; PKCS#8 or PKCS#1), which it only does on the
// first token fetch.
func parsesAsKey(key string) bool {
	der := []byte(key)
	if b, _ := pem.Decode(der); b != nil {
		der = b.Bytes
	}
	if _, err := x509.ParsePKCS8PrivateKey(der); err == nil {
		return true
	}
	_, err := x509.ParsePKCS1PrivateKey(der)
	return err == nil
}

// missingFix is the fix line for a credentials or token file that is
// missing or unusable: it names the flag, the environment variable or the
// profile setting (with its config line) that chose the file.
func missingFix(kind sourceKind, path, from string) string {
	switch {
	case kind == sourceAccessTokenFile:
		fix := "write an access token there: `gcloud auth application-default print-access-token > " + path + "`"
		if from != fromAccessTokenFlag {
			fix += ", or point accessTokenFile (" + from + ") at another file"
		}
		return fix
	case from == fromCredentialsFlag:
		return "pass an existing credentials file to --credentials"
	case kind == sourceCredentialsFile:
		return "point credentialsFile (" + from + ") at an existing credentials file"
	case from == fromEnvADC:
		return "point GOOGLE_APPLICATION_CREDENTIALS at an existing credentials file, or unset it and run `" + LoginCommand + "`"
	}
	return "run `" + LoginCommand + "`"
}

// jsonProblem describes a JSON decoding error without quoting file content.
func jsonProblem(err error) string {
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		return "syntax error at byte " + itoa(se.Offset)
	case errors.As(err, &te):
		if te.Field != "" {
			return "field " + quote(te.Field) + " should be " + article(te.Type.String()) + ", not " + article(te.Value)
		}
		return "expected a JSON object, found " + article(te.Value)
	}
	return "invalid JSON"
}

// article puts "a" or "an" before a JSON type name: "an array", "a string".
func article(noun string) string {
	if noun != "" && strings.ContainsRune("aeiouAEIOU", rune(noun[0])) {
		return "an " + noun
	}
	return "a " + noun
}

// orDefault is s, or def when s is empty.
func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// shortLine folds an error text onto one short line.
func shortLine(s string) string { return api.OneLine(s, 200) }

// unwrapPath drops the "open PATH: " prefix of a *fs.PathError (the path is
// shown separately).
func unwrapPath(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

func quote(s string) string { return strconv.Quote(api.OneLine(s, 60)) }
