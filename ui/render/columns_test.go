package render

import (
	"strings"
	"testing"
)

// On a narrow screen what says least is cut first: the TOKEN column's
// room for its longer words, then SPEC, and NAME last.
func TestNarrowScreenCutsWhatSaysLeastFirst(t *testing.T) {
	if c := WidthsFor(60, 13); c.Name != 13 || c.Spec != 16 || c.Token != 10+tokenWordMin+1 {
		t.Fatalf("60 columns, 13-cell names: the token's spare room goes, the spec stays whole: %+v", c)
	}
	if c := WidthsFor(60, 9); c.Spec != 16 || c.Name < 9 {
		t.Fatalf("short names keep the spec column: %+v", c)
	}
	if c := WidthsFor(60, 40); c.Spec != minSpecWidth || c.Token != 10+tokenWordMin {
		t.Fatalf("a long name shortens the token word and the spec to their minimum first: %+v", c)
	}
}

// A spec too long for its cell loses its shape word's letters before
// anything is cut: STANDARD and HIGHMEM still read apart.
func TestSpecFitShortensTheShapeWord(t *testing.T) {
	for _, tc := range []struct {
		spec string
		w    int
		want string
	}{
		{"GPU/T4/STANDARD", 15, "GPU/T4/STANDARD"},
		{"GPU/T4/STANDARD", 14, "GPU/T4/STD"},
		{"TPU/V6E1/HIGHMEM", 14, "TPU/V6E1/HIMEM"},
		{"CPU/STANDARD", 8, "CPU/STD"},
	} {
		if got := SpecFit(tc.spec, tc.w); got != tc.want {
			t.Errorf("SpecFit(%q, %d) = %q, want %q", tc.spec, tc.w, got, tc.want)
		}
	}
}

// On a wide screen the extra cells are spread over NAME, SPEC and
// VERSION, a few each: a row spans the screen, and a short name is not
// followed by dozens of blanks before its figures (the rest pads the end).
func TestWideScreenSpreadsTheWidth(t *testing.T) {
	for _, w := range []int{120, 160, 200} {
		c := WidthsFor(w, 10)
		row := RowPrefix + c.Name + 1 + c.Spec + 1 + c.Version + 1 + c.Sess + 1 + c.Token
		if row != w {
			t.Errorf("%d cells: a row is %d cells (%+v)", w, row, c)
		}
		nameExtra, specExtra, versionExtra := c.Name-10, c.Spec-18, c.Version-10
		if nameExtra-specExtra > 2 || nameExtra-versionExtra > 2 || specExtra < 0 {
			t.Errorf("%d cells: the extra width is not spread: %+v", w, c)
		}
		// The figures stay near the name: the rest pads the row's end.
		if nameExtra > maxSpread+2 || specExtra > maxSpread || versionExtra > maxSpread {
			t.Errorf("%d cells: a gap of more than %d blanks: %+v", w, maxSpread+2, c)
		}
	}
}

// The sorted column's title carries its arrow, cut before the arrow is.
func TestHeaderArrow(t *testing.T) {
	narrow := WidthsFor(60, 9) // SESS is 4 cells there
	for _, tc := range []struct {
		w       Widths
		by      *Column
		reverse bool
		want    string
	}{
		{WidthsFor(100, 9), &ColName, false, "NAME↑"},
		{WidthsFor(100, 9), &ColToken, true, "TOKEN↓"},
		{narrow, &ColSess, false, "SES↑"},
	} {
		h := Header(tc.w, tc.by, tc.reverse)
		if !strings.Contains(h, tc.want) || strings.Count(h, "↑")+strings.Count(h, "↓") != 1 {
			t.Errorf("header %q, want %q", h, tc.want)
		}
	}
	if h := Header(narrow, nil, false); strings.ContainsAny(h, "↑↓") {
		t.Errorf("unsorted header %q has an arrow", h)
	}
}
