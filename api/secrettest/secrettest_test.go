package secrettest

import "testing"

func TestFind(t *testing.T) {
	const tok = "Zq3kP0-vX9_wYt2LmN8bR5sA" // 24 characters
	for _, c := range []struct {
		text  string
		piece string // "" for clean
	}{
		{"token •••••••• (hidden)", ""},
		{"whole " + tok + " here", tok[:Piece]},
		{"tail …" + tok[len(tok)-Piece:], tok[len(tok)-Piece:]},
		{"middle [" + tok[7:7+Piece] + "]", tok[7 : 7+Piece]},
		{"seven only " + tok[3:3+Piece-1], ""},
		{"short secret abc", "abc"},
	} {
		secrets := []string{"", tok}
		if c.piece == "abc" {
			secrets = []string{"abc"}
		}
		_, piece, ok := Find(c.text, secrets...)
		if ok != (c.piece != "") || piece != c.piece {
			t.Errorf("Find(%q) = %q, %v; want %q", c.text, piece, ok, c.piece)
		}
	}
}

type recorder struct {
	testing.TB
	errors int
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.errors++ }

func TestCheckReportsEachSecret(t *testing.T) {
	r := &recorder{TB: t}
	if Check(r, "frame", "abcdefgh and 12345678", "xxabcdefghxx", "012345678", "clean-secret") || r.errors != 2 {
		t.Fatalf("Check: %d errors, want 2", r.errors)
	}
	if !Check(r, "frame", "nothing here", "abcdefgh") || r.errors != 2 {
		t.Fatal("Check reported a clean text")
	}
}

func TestTokenSharesNoPieceWithItsSeed(t *testing.T) {
	seed := "runtimes/r-charlie"
	tok := Token(seed)
	if tok != Token(seed) || tok == Token("r-alpha") || len(tok) != len("SECRET-")+20 {
		t.Fatalf("Token(%q) = %q", seed, tok)
	}
	if _, piece, ok := Find("https://8080-m-s-"+seed+".prod.colab.dev", tok); ok {
		t.Fatalf("the seed shows the piece %q of its token", piece)
	}
}
