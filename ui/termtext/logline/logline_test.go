package logline

import (
	"regexp"
	"strings"
	"testing"
)

// lines writes each chunk in turn and returns every line as a terminal
// shows it (plain) and as drawn (styled), the unfinished one last.
func lines(l *Line, chunks ...string) (plain, styled []string) {
	done := func(cells []Cell, cut bool) {
		s, p := Render(cells, cut)
		plain, styled = append(plain, p), append(styled, s)
	}
	for _, c := range chunks {
		l.Write([]byte(c), done)
	}
	l.Flush()
	if cells, cut := l.Cells(); len(cells) > 0 || cut {
		done(cells, cut)
	}
	return plain, styled
}

func TestLineIsWhatATerminalShows(t *testing.T) {
	for _, c := range []struct {
		name   string
		chunks []string
		want   []string
	}{
		{"a progress bar redrawn in place", []string{" 10%|#   |\r 50%|##  |\r100%|####|\n"}, []string{"100%|####|"}},
		{"a shorter line over a longer keeps the rest", []string{"abcdef\rXY\n"}, []string{"XYcdef"}},
		{"backspace moves back a cell", []string{"ab\bX\n", "\b\bY\n"}, []string{"aX", "Y"}},
		{"a tab moves to the next stop, over nothing", []string{"a\tb\n", "abcdefgh\tc\n"}, []string{"a       b", "abcdefgh        c"}},
		{"erase to the end of the line", []string{"abcdef\r\x1b[K12\n", "abcdef\rab\x1b[0K\n"}, []string{"12", "ab"}},
		{"erase to the cursor, its cell included", []string{"abcdef\rab\x1b[1K\n"}, []string{"   def"}},
		{"erase the whole line, the cursor stays", []string{"abcdef\x1b[2Kx\n"}, []string{"      x"}},
		{"other escapes shown, never acted on", []string{"a\x1b[2Jb\x1b]0;title\x07c\x1b[?25ld\n"}, []string{"a␛[2Jb␛]0;title␇c␛[?25ld"}},
		{"an escape split across writes", []string{"x\x1b[", "3", "1my\x1b", "[Kz\n"}, []string{"xyz"}},
		{"a character split across writes", []string{"caf\xc3", "\xa9 \xe2\x82", "\xac\n"}, []string{"café €"}},
		{"invalid UTF-8 and C1 controls", []string{"a\xffb\xc2\x9bc\n"}, []string{"a\uFFFDb\uFFFDc"}},
		{"a wide character overwritten by halves", []string{"漢字\rX\n", "漢字\r\x1b[CY\n"}, []string{"X 字", "␛[CY"}},
		{"an escape cut off by the log's end", []string{"end\x1b[3"}, []string{"end␛[3"}},
		{"bidi controls removed", []string{"a\u202eb\n"}, []string{"ab"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _ := lines(&Line{}, c.chunks...)
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("lines %q, want %q", got, c.want)
			}
		})
	}
}

// Colours are kept per cell and drawn with a reset at each change; a
// reset clears them; they cannot pile up without bound, and a sequence too
// long for a colour is left out.
func TestLineColours(t *testing.T) {
	_, styled := lines(&Line{}, "\x1b[31mred\x1b[0m \x1b[1m\x1b[32mbold\x1b[m.\n")
	if want := "\x1b[31mred\x1b[0m \x1b[1m\x1b[32mbold\x1b[0m."; styled[0] != want {
		t.Errorf("styled %q, want %q", styled[0], want)
	}
	l := &Line{}
	l.Write([]byte(strings.Repeat("\x1b[1;2;3m", 10000)+"x"), nil)
	if cells, _ := l.Cells(); len(cells) != 1 || len(cells[0].Pen) > maxPen {
		t.Errorf("a pile of colours: pen of %d bytes", len(cells[0].Pen))
	}
	plain, styled := lines(&Line{}, "\x1b["+strings.Repeat("1;", 5000)+"31mlong\n")
	if plain[0] != "long" || styled[0] != "long" {
		t.Errorf("an overlong SGR: %q / %q", plain[0], styled[0])
	}
	sgrOnly := regexp.MustCompile(`\x1b\[[0-9;:]*m`)
	if rest := sgrOnly.ReplaceAllString(strings.Join(styled, ""), ""); strings.Contains(rest, "\x1b") {
		t.Errorf("an escape other than SGR was drawn: %q", rest)
	}
}

// A line keeps MaxCells cells: past them it is cut (marked), or with Wrap
// ended and continued on the next.
func TestLineBound(t *testing.T) {
	plain, _ := lines(&Line{MaxCells: 4}, "abcdefg\nhi\n")
	if strings.Join(plain, "|") != "abcd…|hi" {
		t.Errorf("cut: %q", plain)
	}
	plain, _ = lines(&Line{MaxCells: 4, Wrap: true}, "abcdefg\nhi\n")
	if strings.Join(plain, "|") != "abcd|efg|hi" {
		t.Errorf("wrapped: %q", plain)
	}
	l := &Line{}
	l.Write([]byte(strings.Repeat("x", 3*DefaultMaxCells)), nil)
	if cells, cut := l.Cells(); len(cells) != DefaultMaxCells || !cut {
		t.Errorf("the default bound: %d cells, cut %v", len(cells), cut)
	}
}

// Changed tells the unfinished line's changes apart from writes that left
// it as it was, so a drawer redraws only when it must.
func TestLineChanged(t *testing.T) {
	l := &Line{}
	l.Write([]byte("50%"), nil)
	if !l.Changed() || l.Changed() {
		t.Fatal("a write that drew is one change")
	}
	l.Write([]byte("\r"), nil)
	if l.Changed() {
		t.Error("a carriage return alone changed the line")
	}
	l.Write([]byte("done\n"), func([]Cell, bool) {})
	if l.Changed() {
		t.Error("an ended line left the next one changed")
	}
}

// Whatever a log holds, however it is split across writes, what is drawn
// holds no escape sequence but SGR colours and no control character, and
// no line holds more cells than its bound.
func FuzzLine(f *testing.F) {
	f.Add([]byte("\x1b[31mred\x1b[0m\r\x1b[K50%\b\t|\n"), 3)
	f.Add([]byte("漢字\x1b]52;c;ZXZpbA==\x07\x1b[2J\xff\xc2\x9b\u202e\x1b["), 1)
	sgrOnly := regexp.MustCompile(`\x1b\[[0-9;:]*m`)
	f.Fuzz(func(t *testing.T, log []byte, split int) {
		l := &Line{MaxCells: 64, Wrap: split%2 == 0}
		var chunks []string
		for n := max(split%17, 1); len(log) > 0; log = log[min(n, len(log)):] {
			chunks = append(chunks, string(log[:min(n, len(log))]))
		}
		plain, styled := lines(l, chunks...)
		for i := range styled {
			rest := sgrOnly.ReplaceAllString(styled[i], "")
			for _, r := range rest + plain[i] {
				if r < 0x20 || r == 0x7f || r >= 0x80 && r <= 0x9f {
					t.Fatalf("line %d holds control %U: %q", i, r, styled[i])
				}
			}
			if n := len([]rune(plain[i])); n > 64*4+1 {
				t.Fatalf("line %d holds %d characters", i, n)
			}
		}
	})
}

// Every printable ASCII character is its own cell.
func TestPrintableASCII(t *testing.T) {
	for c := byte(0x20); c < 0x7f; c++ {
		l := &Line{}
		l.Write([]byte{c}, nil)
		if cells, _ := l.Cells(); len(cells) != 1 || cells[0].Text != string(rune(c)) {
			t.Errorf("%q drawn as %q", c, cells)
		}
	}
}
