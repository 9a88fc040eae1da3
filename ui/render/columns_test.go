package render

import "testing"

// Issue 10 defect 5: on a narrow screen SPEC shortens before NAME.
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
