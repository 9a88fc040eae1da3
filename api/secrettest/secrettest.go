// Package secrettest finds secrets, whole or in part, in what colabdash
// printed, logged or drew. Every test that scans an output path for
// secrets (the status command's output and log file, dashboard frames,
// the client's debug log) uses it, so they all hold the same line: no
// Piece consecutive characters of a secret may appear anywhere, not just
// the whole secret. A screen that showed the tail of a proxy token, or a
// log that cut a bearer token in half, passes a whole-token scan but not
// this one.
package secrettest

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"testing"
)

// Piece is the length, in bytes, of the pieces of a secret a scan looks
// for: long enough that no ordinary text on a screen or in a log matches a
// piece of a random token by chance, short enough that a partly shown
// secret is caught.
const Piece = 8

// Find returns the first secret of which some Piece consecutive bytes
// occur in text, and that piece. A secret shorter than Piece is looked for
// whole; empty secrets are ignored. ok is false when text holds no piece
// of any secret.
func Find(text string, secrets ...string) (secret, piece string, ok bool) {
	for _, s := range secrets {
		if p, found := findPiece(text, s); found {
			return s, p, true
		}
	}
	return "", "", false
}

func findPiece(text, secret string) (string, bool) {
	if secret == "" {
		return "", false
	}
	if len(secret) <= Piece {
		return secret, strings.Contains(text, secret)
	}
	for i := 0; i+Piece <= len(secret); i++ {
		if p := secret[i : i+Piece]; strings.Contains(text, p) {
			return p, true
		}
	}
	return "", false
}

// Check reports a test error for each secret of which a piece occurs in
// text, naming what was scanned (for example "status stderr"), the piece
// and the text around it. It returns true when text is clean.
func Check(t testing.TB, what, text string, secrets ...string) bool {
	t.Helper()
	clean := true
	for _, s := range secrets {
		p, found := findPiece(text, s)
		if !found {
			continue
		}
		clean = false
		t.Errorf("%s shows %q, a piece of the secret %q: %s", what, p, s, around(text, p))
	}
	return clean
}

// around is the text near the first occurrence of piece, on one line.
func around(text, piece string) string {
	i := strings.Index(text, piece)
	from, to := max(0, i-60), min(len(text), i+len(piece)+60)
	return fmt.Sprintf("%q", text[from:to])
}

// Token returns a fake secret for tests, the same for the same seed: a
// marker ("SECRET-") and 20 hex digits derived from seed. It shares no
// Piece-long run with seed, so a screen may show the seed (a runtime id,
// say) without a scan mistaking it for a piece of the token.
func Token(seed string) string {
	sum := sha256.Sum256([]byte(seed))
	return "SECRET-" + hex.EncodeToString(sum[:10])
}
