package api

import (
	"regexp"
	"strings"
	"sync"
)

// The patterns that find secrets nobody registered. A pattern that finds
// a secret by what precedes it ("Bearer ", "Authorization: ", "?token=")
// replaces only a value shaped like a secret (tokenShaped, queryShaped):
// colabdash's own words after such a prefix — "a bearer token is
// letters…", "Authorization: token …", "?token=…", "X-Colab-Runtime-Proxy-Token:
// $(colabdash token rt-abc)" — stay as written. Registered secrets are
// redacted wherever they appear, whatever their shape.
var (
	// "token": "…" and friends inside JSON text, also when that JSON is
	// itself quoted inside a JSON string (\"token\":\"…\"). A JSON value
	// is data, not prose: it is redacted whatever its shape. In plain JSON
	// the value runs to its closing quote, escaped quotes (\") included;
	// in quoted JSON a \" closes it. The prefix kept is group 1 or 2.
	secretJSONField = sync.OnceValue(func() *regexp.Regexp {
		const keys = `(?:token|access_token|accessToken|refresh_token|id_token|client_secret|private_key|authorization|x-colab-runtime-proxy-token|proxy_token|proxyToken|assertion|client_assertion|subject_token|actor_token|password|code_verifier|device_code|api_key|apiKey)`
		return regexp.MustCompile(`(?i)("` + keys + `"\s*:\s*")(?:[^"\\]|\\.)*|(\\"` + keys + `\\"\s*:\s*\\")(?:[^"\\]|\\[^"])*`)
	})
	// Bare "Bearer …" and Google access tokens (ya29.…).
	bearerToken = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)\b(bearer\s+)([A-Za-z0-9._~+/=-]+)|ya29\.[A-Za-z0-9._~+/=-]+`)
	})
	// Header-style "X-Colab-Runtime-Proxy-Token: …" / "authorization=…",
	// with an optional scheme word (Bearer, Basic, token).
	// The scheme goes with the value: "Authorization: [redacted]".
	secretHeader = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)((?:x-colab-runtime-proxy-token|x-goog-api-key|authorization)["']?\s*[:=]\s*["']?)((?:(?:bearer|basic|token)\s+)?[^\s"',;}&]+)`)
	})
	// ?token=… in URLs (Jupyter), and form-encoded token-endpoint bodies
	// (client_secret=…&refresh_token=…, assertion=…, subject_token=…),
	// also when quoted inside other text.
	secretQuery = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)((?:^|[?&#\s"'{(,;:\\]|\\u0026)(?:token|access_token|refresh_token|id_token|client_secret|client_assertion|assertion|subject_token|actor_token|password|code_verifier|device_code)=)([^&#\s"'\\]+)`)
	})
	// Short or common names that are secrets only as a URL's query or
	// fragment parameter (or a form field after the first): ?key= (API
	// keys), ?sig= and signed-URL signatures, ?code= (OAuth codes).
	urlSecretQuery = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)((?:[?&#]|\\u0026)(?:key|api_key|apikey|sig|signature|x-goog-signature|x-amz-signature|x-amz-security-token|code)=)([^&#\s"'\\]+)`)
	})
	// The password of a URL's user info: https://user:PASSWORD@host.
	urlPassword = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)(\b[a-z][a-z0-9+.-]*://[^/\s:@"'<>]*:)([^/\s@"'<>]+)@`)
	})
	// headerScheme is the scheme word that may start a credential header's
	// value.
	headerScheme = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)^(?:bearer|basic|token)\s+`) })
	// A PEM private key, whole or cut short, raw or JSON-escaped.
	pemKey = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`-----BEGIN[A-Z ]*PRIVATE KEY-----(?:[\s\S]*?-----END[A-Z ]*PRIVATE KEY-----|[A-Za-z0-9+/=\s\\]*)`)
	})
)

// patternBytes: no pattern above matches text without one of these
// bytes (white space, a quote, '=', ':' or '@'), except a Google access
// token, which holds "29." (ya29.…). A pattern added above must keep
// this true (TestPatternsNeedTheirBytes).
const patternBytes = " \t\n\f\r\"=:@"

// redactPatternsWith applies the patterns above to s, which holds the
// trigger words w (or fewer; the matcher's pass finds them). Text without
// patternBytes or "29." (a file name, most often) is returned at once.
func redactPatternsWith(s string, w words) string {
	if !mayHoldPattern(s) {
		return s
	}
	return applyPatterns(s, w, replaceSpans)
}

// applyPatterns applies the patterns above to s, which holds the trigger
// words w or fewer, one after the other: each pattern's redactions in
// the text the ones before left (spans of it, in order) are made by
// redact, which returns the text the next one reads (replaceSpans: with
// Redacted in place). Each pattern runs only when s holds a word it
// needs, so a block of text with no secret-like word costs no more than
// the pass that found w.
func applyPatterns(s string, w words, redact func(s string, spans []span) string) string {
	has := func(mask words) bool { return w&mask != 0 }
	if has(wPrivateKey) {
		s = redactMatches(pemKey(), s, redact, func(_ string, m []int) (span, bool) { return span{m[0], m[1]}, true })
	}
	if strings.Contains(s, `"`) && has(wToken|wAuthorization|wSecret|wKey|wAssertion|wPassword|wCode) {
		s = redactMatches(secretJSONField(), s, redact, func(_ string, m []int) (span, bool) {
			if m[3] >= 0 {
				return span{m[3], m[1]}, true // after the prefix of plain JSON
			}
			return span{m[5], m[1]}, true // after the prefix of quoted JSON
		})
	}
	if has(wAuthorization | wProxyToken | wGoogKey) {
		s = redactValue(secretHeader(), s, redact, func(v string) bool { return tokenShaped(headerScheme().ReplaceAllString(v, "")) })
	}
	if has(wBearer | wYa29) {
		s = redactMatches(bearerToken(), s, redact, func(s string, m []int) (span, bool) {
			if m[2] < 0 {
				return span{m[0], m[1]}, true // ya29.…
			}
			return span{m[4], m[5]}, tokenShaped(s[m[4]:m[5]])
		})
	}
	if strings.Contains(s, "=") {
		s = redactValue(secretQuery(), s, redact, queryShaped)
		s = redactValue(urlSecretQuery(), s, redact, queryShaped)
	}
	if strings.Contains(s, "://") && strings.Contains(s, "@") {
		s = redactValue(urlPassword(), s, redact, func(v string) bool { return v != "" })
	}
	return s
}

// redactMatches redacts in s, with redact, the span pick chooses in each
// match of re (m: the match's submatch indexes), when it chooses one.
func redactMatches(re *regexp.Regexp, s string, redact func(string, []span) string, pick func(s string, m []int) (span, bool)) string {
	var spans []span
	for _, m := range re.FindAllStringSubmatchIndex(s, -1) {
		if sp, ok := pick(s, m); ok {
			spans = append(spans, sp)
		}
	}
	if len(spans) == 0 {
		return s
	}
	return redact(s, spans)
}

// words is a set of the words that gate the patterns (triggerWords).
type words uint16

const (
	wPrivateKey words = 1 << iota
	wToken
	wAuthorization
	wSecret
	wKey
	wAssertion
	wPassword
	wCode
	wProxyToken
	wGoogKey
	wBearer
	wYa29
	allWords = 1<<iota - 1
)

// triggerWords are the words of the set, lower-case, by their bit.
var triggerWords = [...]struct {
	w    words
	text string
}{
	{wPrivateKey, "private key"}, {wToken, "token"}, {wAuthorization, "authorization"},
	{wSecret, "secret"}, {wKey, "key"}, {wAssertion, "assertion"}, {wPassword, "password"},
	{wCode, "code"}, {wProxyToken, "x-colab-runtime-proxy-token"}, {wGoogKey, "x-goog-api-key"},
	{wBearer, "bearer"}, {wYa29, "ya29."},
}

// foldsToASCII are the three non-ASCII letters that Unicode case rules
// (the patterns' (?i), strings.ToLower) take for an ASCII letter of a
// word: U+0130 İ (i), U+017F ſ (s) and U+212A K (k). The matcher takes
// a text holding one for a text holding every word, so every pattern
// runs on it.
var foldsToASCII = [...]string{"\u0130", "\u017f", "\u212a"}

// redactValue redacts, in every match of re (group 2 the value; the
// rest of the match is kept), the value when shaped says it looks like a
// secret. Punctuation that ends a sentence or a bracket after the value
// (")", "].", "…") is kept, not taken as part of the value.
func redactValue(re *regexp.Regexp, s string, redact func(string, []span) string, shaped func(string) bool) string {
	return redactMatches(re, s, redact, func(s string, m []int) (span, bool) {
		if len(m) < 6 || m[4] < 0 {
			return span{}, false
		}
		core := strings.TrimRight(s[m[4]:m[5]], ")]}>,;:!?.…")
		return span{m[4], m[4] + len(core)}, shaped(core)
	})
}

// tokenShaped reports whether v, found after "Bearer " or a credential
// header name, looks like a credential rather than a word: at least
// minSecretLen characters of a token's alphabet (letters, digits,
// -._~+/=%), and not a plain word ("token", "Bearer", "realm=",
// "access-token") or an upper-case placeholder ("TOKEN", "YOUR_TOKEN").
func tokenShaped(v string) bool {
	if len(v) < minSecretLen {
		return false
	}
	for i := 0; i < len(v); i++ {
		c := v[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/=%", c) >= 0) {
			return false
		}
	}
	return !wordLike(strings.TrimRight(v, "="))
}

// queryShaped reports whether v, a URL query or form value after a secret
// name, may be a secret: at least minSecretLen bytes and no placeholder
// ("…", "<token>", "$TOKEN", "${…}", "TOKEN", "YOUR_KEY"). Its alphabet
// is not checked: a password may hold anything.
func queryShaped(v string) bool {
	if len(v) < minSecretLen || strings.Contains(v, "…") || strings.Contains(v, "...") {
		return false
	}
	switch v[0] {
	case '<', '$', '{', '[':
		return false
	}
	return !placeholderWord().MatchString(v)
}

// plainWord is a lower-case word, possibly capitalised or hyphenated
// ("token", "Bearer", "access-token-file"), with parts of at most 18
// letters: a random token is longer or mixes in digits and capitals.
// placeholderWord is an upper-case placeholder: "TOKEN", "YOUR_API_KEY".
var (
	plainWord       = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z][a-z]{0,17}(?:-[a-z]{1,18})*$`) })
	placeholderWord = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Z][A-Z_]*$`) })
)

// wordLike reports whether v reads as a word or a placeholder.
func wordLike(v string) bool {
	return plainWord().MatchString(v) || placeholderWord().MatchString(v)
}
