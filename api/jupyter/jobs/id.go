package jobs

import (
	"crypto/rand"
	"path"
	"strings"
)

// idStemMax is the longest stem NewID keeps from a script's name.
const idStemMax = 20

// idAlphabet is what NewID's random part is drawn from.
const idAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789"

// NewID returns a fresh job id for a script named file: its stem in
// lower case letters, digits and '-' (at most 20, "job" when none is
// left) and 6 random characters: "train-4kq9zt". The result always
// passes ValidID.
func NewID(file string) string {
	base := path.Base(strings.ReplaceAll(file, "\\", "/"))
	if ext := path.Ext(base); ext != "" && ext != base {
		base = strings.TrimSuffix(base, ext)
	}
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(base) {
		ok := (r >= 'a' && r <= 'z') || (r >= '0' && r <= '9')
		switch {
		case ok:
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= idStemMax {
			break
		}
	}
	stem := strings.TrimRight(b.String(), "-")
	if len(stem) > idStemMax {
		stem = strings.TrimRight(stem[:idStemMax], "-")
	}
	if stem == "" {
		stem = "job"
	}
	return stem + "-" + randomSuffix(6)
}

// randomSuffix is n characters of idAlphabet from crypto/rand, each
// equally likely (bytes from 252 up are drawn again: 252 is 7 × 36).
func randomSuffix(n int) string {
	out := make([]byte, 0, n)
	buf := make([]byte, 2*n)
	for len(out) < n {
		_, _ = rand.Read(buf) // crypto/rand never fails (it panics rather)
		for _, c := range buf {
			if c < 252 && len(out) < n {
				out = append(out, idAlphabet[int(c)%len(idAlphabet)])
			}
		}
	}
	return string(out)
}

// ValidID returns ErrBadID unless id could be one of NewID's: lower case
// letters, digits and '-', 1 to 40 characters, starting with a letter or
// digit. Ids read from a runtime are checked before they reach a path, a
// URL or the terminal.
func ValidID(id string) error {
	if len(id) < 1 || len(id) > 40 || id[0] == '-' {
		return ErrBadID
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		if !(c >= 'a' && c <= 'z') && !(c >= '0' && c <= '9') && c != '-' {
			return ErrBadID
		}
	}
	return nil
}
