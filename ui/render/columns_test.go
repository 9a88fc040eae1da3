package render

import (
	"strings"
	"testing"
)

// On a narrow screen SPEC shortens before NAME.
func TestNarrowScreenCutsSpecBeforeName(t *testing.T) {
	c := WidthsFor(60, 13)
	if c.Name < 13 || c.Spec >= 16 {
		t.Fatalf("60 columns, 13-cell names: name %d spec %d", c.Name, c.Spec)
	}
	if c := WidthsFor(60, 9); c.Spec != 16 || c.Name != 10 {
		t.Fatalf("short names keep the spec column: %+v", c)
	}
	if c := WidthsFor(60, 40); c.Spec != minSpecWidth {
		t.Fatalf("a long name shortens the spec to its minimum first: %+v", c)
	}
}

// On a wide screen NAME takes every cell the other columns
// leave (no dead padding after TOKEN).
func TestWideScreenNameTakesTheRest(t *testing.T) {
	for _, w := range []int{120, 160, 200} {
		c := WidthsFor(w, 10)
		row := RowPrefix + c.Name + 1 + c.Spec + 1 + c.Version + 1 + c.Sess + 1 + c.Token
		if row != w || c.Spec != 18 {
			t.Errorf("%d cells: a row is %d cells (%+v)", w, row, c)
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
