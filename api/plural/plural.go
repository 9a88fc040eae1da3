// Package plural writes a count with its noun in the right number ("1
// runtime", "2 runtimes"), the one way every front end and message says
// how many: never "runtime(s)".
package plural

import "strconv"

// Count writes n and the noun: one when n is 1, else the plural, which
// is one+"s" unless given (Count(2, "entry", "entries")). n is printed in
// decimal, negative numbers as they are.
func Count(n int, one string, many ...string) string {
	return strconv.Itoa(n) + " " + Noun(n, one, many...)
}

// Noun is the noun alone, in the number n asks for (as Count).
func Noun(n int, one string, many ...string) string {
	if n == 1 {
		return one
	}
	if len(many) > 0 {
		return many[0]
	}
	return one + "s"
}
