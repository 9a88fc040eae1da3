package lineedit

import (
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/ansi"
)

func edit(e *Editor, keys ...tea.KeyMsg) {
	for _, k := range keys {
		e.Handle(k)
	}
}

func runes(s string) tea.KeyMsg   { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }
func kt(t tea.KeyType) tea.KeyMsg { return tea.KeyMsg{Type: t} }

// The one line editor: the same keys edit the filter, every dialog input
// and the run-code console.
func TestLineEditorKeys(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []tea.KeyMsg
		want string
		pos  int
	}{
		{"type", []tea.KeyMsg{runes("ab"), runes("c")}, "abc", 3},
		{"insert at the cursor", []tea.KeyMsg{runes("ac"), kt(tea.KeyLeft), runes("b")}, "abc", 2},
		{"backspace", []tea.KeyMsg{runes("abc"), kt(tea.KeyBackspace)}, "ab", 2},
		{"backspace in the middle", []tea.KeyMsg{runes("abc"), kt(tea.KeyLeft), kt(tea.KeyBackspace)}, "ac", 1},
		{"delete", []tea.KeyMsg{runes("abc"), kt(tea.KeyHome), kt(tea.KeyDelete)}, "bc", 0},
		{"ctrl+u deletes to the start", []tea.KeyMsg{runes("hello world"), kt(tea.KeyLeft), kt(tea.KeyCtrlU)}, "d", 0},
		{"ctrl+k deletes to the end", []tea.KeyMsg{runes("hello world"), kt(tea.KeyCtrlA), kt(tea.KeyRight), kt(tea.KeyCtrlK)}, "h", 1},
		{"ctrl+w deletes a word", []tea.KeyMsg{runes("print(x) foo  "), kt(tea.KeyCtrlW)}, "print(x) ", 9},
		{"alt+backspace deletes a word", []tea.KeyMsg{runes("a bc"), {Type: tea.KeyBackspace, Alt: true}}, "a ", 2},
		{"home and end", []tea.KeyMsg{runes("bc"), kt(tea.KeyHome), runes("a"), kt(tea.KeyEnd), runes("d")}, "abcd", 4},
		{"right stops at the end", []tea.KeyMsg{runes("ab"), kt(tea.KeyRight), runes("c")}, "abc", 3},
		{"space", []tea.KeyMsg{runes("a"), {Type: tea.KeySpace, Runes: []rune{' '}}, runes("b")}, "a b", 3},
		{"a paste is one edit, its controls dropped", []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("a\x1b[2Jb\x07c"), Paste: true}}, "abc", 3},
		{"a one-line field drops a paste's line breaks", []tea.KeyMsg{{Type: tea.KeyRunes, Runes: []rune("a1\r\n00"), Paste: true}}, "a100", 4},
		{"ctrl+j is not a line break in one line", []tea.KeyMsg{runes("a"), kt(tea.KeyCtrlJ), runes("b")}, "ab", 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var e Editor
			edit(&e, tc.keys...)
			if e.Value() != tc.want || e.pos != tc.pos {
				t.Fatalf("%q at %d, want %q at %d", e.Value(), e.pos, tc.want, tc.pos)
			}
		})
	}
}

func TestLineEditorMultiLine(t *testing.T) {
	e := Editor{Multiline: true}
	edit(&e, tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune("for i in x:\r\n    f(i)"), Paste: true})
	if e.Value() != "for i in x:\n    f(i)" {
		t.Fatalf("paste: %q", e.Value())
	}
	edit(&e, kt(tea.KeyCtrlJ), runes("g()"), tea.KeyMsg{Type: tea.KeyEnter, Alt: true}, runes("h()"))
	if e.Value() != "for i in x:\n    f(i)\ng()\nh()" {
		t.Fatalf("ctrl+j and alt+enter: %q", e.Value())
	}
	// ↑ moves to the line above, same column; on the first line it is the
	// history's.
	edit(&e, kt(tea.KeyUp), kt(tea.KeyUp), runes("#"))
	if lines, row, _ := e.Lines(); row != 1 || lines[1] != "   # f(i)" {
		t.Fatalf("up: %q row %d", lines, row)
	}
	edit(&e, kt(tea.KeyDown), kt(tea.KeyDown), kt(tea.KeyDown))
	if _, row, _ := e.Lines(); row != 3 {
		t.Fatalf("down stops on the last line: row %d", row)
	}
	// ctrl+u deletes to the start of the line only.
	edit(&e, kt(tea.KeyCtrlU))
	if e.Value() != "for i in x:\n   # f(i)\ng()\n" {
		t.Fatalf("ctrl+u: %q", e.Value())
	}
	v := e.View(">>> ", "... ", 40, 10)
	if len(v) != 4 || v[0] != ">>> for i in x:" || v[3] != "... "+Cursor {
		t.Fatalf("view: %q", v)
	}
	if v := e.View(">>> ", "... ", 40, 2); len(v) != 2 || !strings.HasPrefix(v[1], "... "+Cursor) {
		t.Fatalf("two lines around the cursor: %q", v)
	}
}

func TestLineEditorHistory(t *testing.T) {
	var e Editor
	e.Remember("one")
	e.Remember("two")
	e.Remember("two") // repeats are kept once
	edit(&e, runes("dra"))
	edit(&e, kt(tea.KeyUp))
	if e.Value() != "two" {
		t.Fatalf("up: %q", e.Value())
	}
	edit(&e, kt(tea.KeyUp), kt(tea.KeyUp))
	if e.Value() != "one" {
		t.Fatalf("up at the oldest: %q", e.Value())
	}
	edit(&e, kt(tea.KeyDown), kt(tea.KeyDown))
	if e.Value() != "dra" {
		t.Fatalf("down past the newest gives back the draft: %q", e.Value())
	}
}

func TestLineEditorSelectedAndLimit(t *testing.T) {
	e := Editor{Limit: 5}
	e.Set("old")
	e.Selected = true
	edit(&e, kt(tea.KeyLeft)) // not typing: the text stays, deselected
	edit(&e, runes("x"))
	if e.Value() != "olxd" {
		t.Fatalf("a moved cursor then typing: %q", e.Value())
	}
	e.Set("old")
	e.Selected = true
	edit(&e, runes("new text"))
	if e.Value() != "new t" {
		t.Fatalf("typing replaces the selection, the limit cuts: %q", e.Value())
	}
}

// A long line scrolls so the cursor stays visible, wherever it is.
func TestLineEditorScrollsToTheCursor(t *testing.T) {
	var e Editor
	edit(&e, runes(strings.Repeat("a", 50)+"MIDDLE"+strings.Repeat("b", 50)))
	for i := 0; i < 50; i++ {
		edit(&e, kt(tea.KeyLeft))
	}
	v := e.View("> ", "", 30, 1)[0]
	if ansi.StringWidth(v) > 30 || !strings.Contains(v, "MIDDLE"+Cursor) {
		t.Fatalf("%q", v)
	}
	edit(&e, kt(tea.KeyEnd))
	if v := e.View("> ", "", 30, 1)[0]; !strings.HasSuffix(v, "b"+Cursor) || !strings.HasPrefix(v, "> …") {
		t.Fatalf("%q", v)
	}
}
