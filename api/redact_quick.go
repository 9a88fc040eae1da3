package api

import "strings"

// mayHoldPattern reports whether s could hold text that one of Redact's
// patterns matches. Each pattern needs one of these in s: ":" or "="
// (secretHeader, secretQuery, secretJSONField, which also needs a quote),
// "-----BEGIN" (pemKey), or "bearer" / "ya29." in any case (bearerToken).
// Text without any of them (a listing's file names, most lines) skips the
// regular expressions, which cost about 20 µs a line (an `ls` of 100,000
// entries spent two thirds of its time in them). A pattern added to
// Redact that needs none of these must extend this test
// (TestMayHoldPatternCoversRedact).
func mayHoldPattern(s string) bool {
	if strings.ContainsAny(s, ":=") || strings.Contains(s, "-----BEGIN") {
		return true
	}
	for i := 0; i < len(s); i++ {
		switch s[i] | 0x20 { // ASCII lower case
		case 'b':
			if hasPrefixFold(s[i:], "bearer") {
				return true
			}
		case 'y':
			if hasPrefixFold(s[i:], "ya29.") {
				return true
			}
		}
	}
	return false
}

// hasPrefixFold is strings.HasPrefix ignoring ASCII case (lower is lower
// case ASCII).
func hasPrefixFold(s, lower string) bool {
	return len(s) >= len(lower) && strings.EqualFold(s[:len(lower)], lower)
}
