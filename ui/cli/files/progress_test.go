package files

// cp's progress line on a terminal and ls's listing
// lines, as the user sees them.

import (
	"strings"
	"testing"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
)

// Guards the figures of the progress line: bytes of total, rate and time
// left; no total when it is unknown, no rate before time has passed, no
// ETA once done.
func TestTransferStats(t *testing.T) {
	for _, c := range []struct {
		done, total int64
		elapsed     time.Duration
		want        string
	}{
		{54_000_000, 120_000_000, 2 * time.Second, "54.0 MB / 120.0 MB  27.0 MB/s  ETA 2s"},
		{54_000_000, -1, 2 * time.Second, "54.0 MB  27.0 MB/s"},
		{500, 1000, 0, "500 B / 1.0 kB"},
		{1000, 1000, time.Second, "1.0 kB / 1.0 kB  1.0 kB/s"},
		{0, 1000, time.Second, "0 B / 1.0 kB  0 B/s"},
		{0, 0, 0, "0 B / 0 B"},
	} {
		if got := transferStats(c.done, c.total, c.elapsed); got != c.want {
			t.Errorf("transferStats(%d, %d, %v) = %q, want %q", c.done, c.total, c.elapsed, got, c.want)
		}
	}
}

// Guards the width count that decides whether the file's name fits.
func TestVisibleLen(t *testing.T) {
	for s, want := range map[string]int{"": 0, "abc": 3, "\x1b[31mab\x1b[0mc": 3, "é…": 2, "\x1b[38;5;12mx": 1,
		"\x1b[2ax": 1, "\x1b[2zx": 1, "\x1b[2Ax": 1, "\x1b[2Zx": 1} {
		if got := visibleLen(s); got != want {
			t.Errorf("visibleLen(%q) = %d, want %d", s, got, want)
		}
	}
}

// clock is a settable time for the progress line.
type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

// terminalView is a progress line on a terminal width cells wide, without
// colour, writing into b and reading the time from c.
func terminalView(width int) (v *transferView, b *strings.Builder, c *clock) {
	b = &strings.Builder{}
	c = &clock{time.Unix(1000, 0)}
	v = newTransferView(b, true, true, width)
	v.now = c.now
	return v, b, c
}

// Guards the progress line: only on a terminal, one line redrawn in place
// at most ten times a second (the last update always drawn), the file's
// name made safe (quoted, its controls escaped) and cut from the left to the width, and erased before a
// result line.
func TestTransferViewLine(t *testing.T) {
	var b strings.Builder
	off := newTransferView(&b, false, true, 80)
	off.update("a.bin", 1, 2)
	off.clear()
	if b.Len() != 0 {
		t.Fatalf("not a terminal: wrote %q", b.String())
	}

	c := &clock{time.Unix(1000, 0)}
	v := newTransferView(&b, true, true, 80)
	v.now = c.now
	v.update("dir/a\x1b[2Jb.bin", 0, 1000)
	first := b.String()
	if !strings.HasPrefix(first, "\r\x1b[2K") || strings.Count(first, "\x1b") != 1 || !strings.HasSuffix(first, "  \"dir/a\\x1b[2Jb.bin\"") ||
		!strings.Contains(first, " 0 B / 1.0 kB") {
		t.Fatalf("first line %q: want one line redrawn in place, plain, with the name made safe", first)
	}
	c.t = c.t.Add(50 * time.Millisecond)
	v.update("dir/a\x1b[2Jb.bin", 500, 1000)
	if b.String() != first {
		t.Fatalf("redrawn within 100 ms: %q", b.String()[len(first):])
	}
	v.update("dir/a\x1b[2Jb.bin", 1000, 1000)
	if got := b.String()[len(first):]; !strings.Contains(got, "1.0 kB / 1.0 kB") {
		t.Fatalf("the last update was not drawn: %q", got)
	}
	// Each drawn: a new file at once, then other.bin's updates 100 ms or
	// more apart.
	for _, u := range []struct {
		what  string
		after time.Duration
		done  int64
		want  string
	}{
		{"a new file within 100 ms", 10 * time.Millisecond, 10, "10 B / 1.0 kB"},
		{"an update after 100 ms", 150 * time.Millisecond, 20, "20 B / 1.0 kB"},
		{"an update 100 ms after the last", 100 * time.Millisecond, 30, "30 B / 1.0 kB"},
	} {
		b.Reset()
		c.t = c.t.Add(u.after)
		v.update("other.bin", u.done, 1000)
		if got := b.String(); !strings.Contains(got, u.want) || !strings.HasSuffix(got, "  other.bin") {
			t.Fatalf("%s was not drawn: %q", u.what, got)
		}
	}
	b.Reset()
	v.clear()
	v.clear()
	if b.String() != "\r\x1b[2K" {
		t.Fatalf("clear: %q, want one erase", b.String())
	}
	v.clear()

	// A name longer than the room left is cut from the left ("…" and
	// its end); without room for 9 cells no name is shown.
	b.Reset()
	narrow := newTransferView(&b, true, true, 70)
	narrow.now = c.now
	narrow.update("/content/"+strings.Repeat("x", 60)+"-end.bin", 10, 1000)
	line := strings.TrimPrefix(b.String(), "\r\x1b[2K")
	if visibleLen(line) != 69 || !strings.Contains(line, "  …") || !strings.HasSuffix(line, "x-end.bin") {
		t.Fatalf("long name: %q (%d cells), want 69 cells ending in the name's tail", line, visibleLen(line))
	}
	b.Reset()
	tiny := newTransferView(&b, true, true, 40)
	tiny.now = c.now
	tiny.update("a.bin", 10, 1000)
	if strings.Contains(b.String(), "a.bin") {
		t.Fatalf("no room, yet the name was shown: %q", b.String())
	}
	// At width 50 the line leaves 9 cells: a name of 9 fits whole; at 49
	// (8 cells) no name is shown.
	for _, c2 := range []struct {
		width int
		want  string
	}{{50, "  abcde.bin"}, {49, "1.0 kB"}} {
		b.Reset()
		v := newTransferView(&b, true, true, c2.width)
		v.now = c.now
		v.update("abcde.bin", 10, 1000)
		if !strings.HasSuffix(b.String(), c2.want) {
			t.Errorf("width %d: %q, want it to end %q", c2.width, b.String(), c2.want)
		}
	}
	if w := newTransferView(&b, true, true, 0).width; w != 80 {
		t.Fatalf("unknown width: %d, want 80", w)
	}
	b.Reset()
	colour := newTransferView(&b, true, false, 80)
	colour.update("a.bin", 10, 1000)
	if strings.Count(b.String(), "\x1b") < 2 {
		t.Fatalf("colour: the bar has no colour: %q", b.String())
	}
}

// Guards ls's lines: right-aligned size ("-" for a directory or an
// unknown size), the minute modified ("-" when unknown), then the name,
// redacted and made safe, a directory's ending in "/".
func TestListingLine(t *testing.T) {
	red := &api.Redactor{}
	red.Add("ya29.secret-token-0123456789")
	when := time.Date(2026, 3, 4, 5, 6, 7, 0, time.Local)
	for _, c := range []struct {
		e    jupyter.Model
		want string
	}{
		{jupyter.Model{Name: "data.csv", Type: "file", Size: 1500, LastModified: when}, "  1.5 kB  2026-03-04 05:06  data.csv"},
		{jupyter.Model{Name: "sub", Type: jupyter.TypeDirectory, Size: 4096, LastModified: when}, "       -  2026-03-04 05:06  sub/"},
		{jupyter.Model{Name: "x", Type: "file", Size: -1}, "       -  -                 x"},
		{jupyter.Model{Name: "ya29.secret-token-0123456789\x1b[2J", Type: "file", Size: 0}, "     0 B  -                 \"" + api.Redacted + "\\x1b[2J\""},
	} {
		if got := listingLine(red, c.e); got != c.want {
			t.Errorf("listingLine(%+v):\n got %q\nwant %q", c.e, got, c.want)
		}
	}
	// Entries in turn: each line has its own minute.
	var l lineWriter
	first := string(l.append(nil, red, jupyter.Model{Name: "a", Size: 1, LastModified: when}))
	second := string(l.append(nil, red, jupyter.Model{Name: "b", Size: 1, LastModified: when.Add(time.Hour)}))
	third := string(l.append(nil, red, jupyter.Model{Name: "c", Size: 1, LastModified: when.Add(time.Hour + 30*time.Second)}))
	if !strings.Contains(first, "2026-03-04 05:06") || !strings.Contains(second, "2026-03-04 06:06") || !strings.Contains(third, "2026-03-04 06:06") {
		t.Fatalf("lines in turn: %q %q %q", first, second, third)
	}
}

// Guards the bar: filled in proportion to the bytes done (24 cells), empty
// for a file of unknown size or reported as empty (a /proc file that is
// read whole anyway).
func TestTransferViewBar(t *testing.T) {
	c := &clock{time.Unix(1000, 0)}
	bar := func(file string, done, total int64) string {
		var b strings.Builder
		v := newTransferView(&b, true, true, 80)
		v.now = c.now
		v.update(file, done, total)
		line := strings.TrimPrefix(b.String(), "\r\x1b[2K")
		bar, _, _ := strings.Cut(line, " ")
		return bar
	}
	for _, tc := range []struct {
		done, total int64
		full, blank int
	}{{500, 1000, 12, 12}, {1000, 1000, 24, 0}, {0, 1000, 0, 24}, {0, 0, 0, 24}, {10, 0, 0, 24}, {10, -1, 0, 24}} {
		got := bar("a.bin", tc.done, tc.total)
		if strings.Count(got, "█") != tc.full || strings.Count(got, "░") != tc.blank {
			t.Errorf("%d of %d bytes: bar %q, want %d full and %d empty cells", tc.done, tc.total, got, tc.full, tc.blank)
		}
	}
}

// Guards cp -r's progress line: once the plan is known it
// counts the files copied of all and the bytes of the whole copy, the
// bytes of every file in flight included, several files moving at once.
func TestTransferViewCountsFilesAndBytes(t *testing.T) {
	v, b, c := terminalView(120)
	v.plan(3, 3000)
	v.update("a.bin", 500, 1000)
	c.t = c.t.Add(time.Second)
	v.update("b.bin", 400, 1000) // two files in flight: 900 of 3000
	got := b.String()
	if !strings.Contains(got, " 0/3 files  900 B / 3.0 kB  900 B/s  ETA 2s") || !strings.HasSuffix(got, "b.bin") {
		t.Fatalf("two files in flight: %q", got)
	}
	if full := strings.Count(got[strings.LastIndex(got, "\x1b[2K"):], "█"); full != 7 { // 30 % of 24 cells
		t.Errorf("900 of 3000 bytes: %d of the bar's 24 cells full, want 7: %q", full, got)
	}
	// The line is redrawn at most every 100 ms.
	b.Reset()
	c.t = c.t.Add(50 * time.Millisecond)
	v.update("b.bin", 450, 1000)
	if b.Len() != 0 {
		t.Errorf("redrawn 50 ms after the last line: %q", b.String())
	}
	c.t = c.t.Add(50 * time.Millisecond)
	v.update("b.bin", 500, 1000)
	if !strings.Contains(b.String(), " 0/3 files  1.0 kB / 3.0 kB") {
		t.Errorf("not redrawn 100 ms after the last line: %q", b.String())
	}
	v.update("a.bin", 1000, 1000)
	v.fileDone("a.bin", 1000)
	b.Reset()
	c.t = c.t.Add(time.Second)
	v.update("c.bin", 100, 1000) // a done (1000), b 500, c 100
	if got := b.String(); !strings.Contains(got, " 1/3 files  1.6 kB / 3.0 kB") {
		t.Fatalf("one file done: %q", got)
	}
}

// A plan of no bytes (empty files only) draws its bar full, not empty or
// broken.
func TestTransferViewEmptyPlan(t *testing.T) {
	v, b, _ := terminalView(120)
	v.plan(2, 0)
	v.update("a.bin", 0, 0)
	if got := b.String(); strings.Count(got, "█") != 24 || !strings.Contains(got, " 0/2 files  0 B / 0 B") {
		t.Fatalf("an empty plan: %q", got)
	}
}
