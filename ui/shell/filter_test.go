package shell

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

// filterChunks runs the chunks through one filter, one Write each.
func filterChunks(chunks ...[]byte) string {
	var b bytes.Buffer
	f := newTermFilter(&b)
	for _, c := range chunks {
		_, _ = f.Write(c)
	}
	return b.String()
}

// filterCases are what the terminal must get for what the shell wrote:
// the sequences that change the clipboard or the title go, whichever
// way they are written, and everything else passes as it came.
var filterCases = []struct{ name, in, want string }{
	{"text and SGR pass", "plain \x1b[1mbold\x1b[0m", "plain \x1b[1mbold\x1b[0m"},
	{"clipboard, BEL", "a\x1b]52;c;aGk=\x07b", "ab"},
	{"title, ST", "a\x1b]0;title\x1b\\b", "ab"},
	{"titles 2 and 1", "a\x1b]2;t\x07\x1b]1;i\x07b", "ab"},
	{"UTF-8 C1 OSC and ST", "a\xc2\x9d52;c;x\xc2\x9cb", "ab"},
	{"hyperlink passes", "a\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\", "a\x1b]8;;https://x\x1b\\link\x1b]8;;\x1b\\"},
	{"colour query passes", "a\x1b]10;?\x07", "a\x1b]10;?\x07"},
	{"UTF-8 text passes", "é\xc2\xa0Ŝ", "é\xc2\xa0Ŝ"},
	{"cwd passes", "\x1b]7;file://h/x\x07", "\x1b]7;file://h/x\x07"},
	{"sixel passes", "\x1bPq#0;2;0;0;0#0~~\x1b\\", "\x1bPq#0;2;0;0;0#0~~\x1b\\"},
	{"PM passes", "\x1b^pm\x1b\\", "\x1b^pm\x1b\\"},
	{"CSI with a C0 inside passes", "\x1b[3\n1m", "\x1b[3\n1m"},

	// The number, written another way.
	{"leading zero", "a\x1b]052;c;aGk=\x07b", "ab"},
	{"many leading zeros", "\x1b]00000000000000000002;t\x07", ""},
	{"C0 inside the number", "\x1b]5\n2;c;eA==\x07", ""},
	{"no number is 0", "\x1b];title\x07", ""},
	{"number that wraps an int", "\x1b]4294967348;c;eA==\x07", ""},
	{"number and no parameters", "\x1b]52\x07after", "after"},
	{"letter after the number", "\x1b]52x;c;eA==\x07", ""},
	{"dtterm title", "\x1b]ltitle\x1b\\", ""},
	{"dtterm icon", "\x1b]Llabel\x07", ""},

	// One sequence inside another.
	{"clipboard inside a kept OSC", "\x1b]8;;u\x1b]52;c;eA==\x07", "\x1b]8;;u\x1b\\"},
	{"clipboard after a kept OSC ended by ESC [", "\x1b]8;;u\x1b[m\x1b]52;c;eA==\x07", "\x1b]8;;u\x1b[m"},
	{"clipboard inside a dropped one", "\x1b]0;a\x1b]52;c;eA==\x07b", "b"},
	{"UTF-8 C1 OSC inside a kept OSC", "\x1b]8;;u\xc2\x9d52;c;eA==\x07", "\x1b]8;;u\x1b\\"},
	{"8-bit OSC inside a kept DCS", "\x1bPqAB\x9d0;t\x07", "\x1bPqAB\x1b\\"},
	{"clipboard cuts a CSI short", "\x1b[31\x1b]52;c;eA==\x07m", "m"},
	{"C0 inside a cut escape is executed", "\x1b\n]52;c;eA==\x07", "\n"},
	{"ESC ESC", "\x1b\x1b]52;c;eA==\x07", ""},
	{"ignored byte after ESC", "\x1b\xc3\xa9]52;c;eA==\x07", ""},

	// CAN and SUB.
	{"CAN ends a kept OSC", "\x1b]8;\x18\x1b]52;c;eA==\x07b", "\x1b]8;\x18b"},
	{"SUB ends a kept OSC", "\x1b]7;x\x1a\x1b]0;t\x07", "\x1b]7;x\x1a"},
	{"CAN ends a dropped one (tmux sets it)", "\x1b]52;c;eA==\x18after", "after"},
	{"SUB ends a dropped one", "\x1b]2;t\x1aafter", "after"},

	// Terminators.
	{"ESC other than backslash ends a dropped OSC", "\x1b]2;a\x1b[1mB", "\x1b[1mB"},
	{"unterminated clipboard resyncs at ESC", "\x1b]52;c;eHh4\x1b[31mred", "\x1b[31mred"},
	{"8-bit OSC and ST", "a\x9d52;c;eA==\x9cb", "ab"},
	{"8-bit OSC, BEL", "\x9d0;t\x07b", "b"},
	{"ESC then 8-bit OSC", "\x1b\x9d52;c;eA==\x07", ""},
	{"UTF-8 C1 OSC right after a kept number", "\x1b]8\xc2\x9d8;;u\x07", "\x1b]8\xc2\x9d8;;u\x07"},
	{"UTF-8 C1 clipboard right after a kept number", "\x1b]8\xc2\x9d52;c;eA==\x07", "\x1b]8\x1b\\"},
	{"C2 after a kept number is data", "\x1b]8\xc2\xa0\x07", "\x1b]8\xc2\xa0\x07"},
	{"UTF-8 C1 ST ends a kept OSC", "\x1b]8;;u\xc2\x9cx", "\x1b]8;;u\xc2\x9cx"},
	{"ESC, a C0, then backslash", "\x1b]2;t\x1b\n\\x", "\nx"},

	// Other terminals' sequences.
	{"iTerm2 file", "\x1b]1337;File=name=eA==;inline=1:AAAA\x07", ""},
	{"iTerm2 user variable", "\x1b]1337;SetUserVar=a=Yg==\x07", ""},
	{"iTerm2 copy", "\x1b]1337;CopyToClipboard=\x07secret\x1b]1337;EndCopy\x07", "secret"},
	{"kitty clipboard", "\x1b]5522;type=write\x1b\\\x1b]5522;type=wdata:mime=dGV4dA==;eA==\x1b\\", ""},
	{"kitty file transfer", "\x1b]5113;ac=send;id=1\x1b\\", ""},
	{"Konsole tab title", "\x1b]30;t\x07", ""},
	{"X property", "\x1b]3;WM_NAME=t\x07", ""},
	{"xterm log file", "\x1b]46;/tmp/x\x07", ""},
	{"tmux passthrough", "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\", "\x1b\\"},
	{"tmux passthrough with parameters", "\x1bP1$tmux;x\x1b\\", ""},
	{"screen passthrough", "\x1bP\x1b]52;c;eA==\x07\x1b\\", "\x1b\\"},
	{"screen title", "\x1bktitle\x1b\\after", "after"},
	{"APC (tmux title, kitty graphics)", "\x1b_Gf=100;AAAA\x1b\\", ""},
	{"8-bit APC", "\x9ftitle\x9c", ""},
	{"8-bit APC after text", "a\x9ftitle\x1b\\b", "ab"},
	{"UTF-8 APC (C2 9F)", "a\xc2\x9ftitle\xc2\x9cb", "ab"},

	// The first and last C1 controls end a dropped string, 8-bit or in
	// UTF-8: what follows is shown.
	{"8-bit 0x80 ends a dropped OSC", "\x1b]52;c;AA\x80b", "\x80b"},
	{"UTF-8 U+0080 ends a dropped OSC", "\x1b]52;c;AA\xc2\x80b", "\xc2\x80b"},
	{"8-bit APC ends a dropped OSC", "\x1b]52;c;AA\x9fb\x1b\\c", "c"},
	{"UTF-8 inside a dropped title is its data", "\x1b]0;a\xe2\x80\x94b\x07c", "c"},
	{"U+0100 (C4 80) inside a dropped title is its data", "\x1b]0;\xc4\x80x\x07c", "c"},
	{"U+D7FF (ED 9F BF) is text", "\xed\x9f\xbf", "\xed\x9f\xbf"},
	{"8-bit APC right after a UTF-8 character", "\xc3\xa9\x9ftitle\x1b\\b", "\xc3\xa9b"},
	{"a 2-byte character led by DF inside a dropped title", "\x1b]0;\xdf\x80x\x07c", "c"},
	{"a 3-byte character led by E0 inside a dropped title", "\x1b]0;\xe0\xa0\x80x\x07c", "c"},
	{"a 3-byte character led by E1 inside a dropped title", "\x1b]0;\xe1\xa0\x80x\x07c", "c"},
	{"a 3-byte character led by EF inside a dropped title", "\x1b]0;\xef\x80\x80x\x07c", "c"},
	{"a 4-byte character led by F0 inside a dropped title", "\x1b]0;\xf0\x90\x80\x80x\x07c", "c"},
	{"a 4-byte character led by F1 inside a dropped title", "\x1b]0;\xf1\x80\x80\x80x\x07c", "c"},
	{"a 4-byte character led by F4 inside a dropped title", "\x1b]0;\xf4\x80\x80\x80x\x07c", "c"},
	{"a no-break space inside a kept OSC passes", "\x1b]8;;u\xc2\xa0x\x07", "\x1b]8;;u\xc2\xa0x\x07"},
	{"a C2 before P is no palette", "\x1b]\xc2P0ffffff\x07a", "a"},
	{"ESC ( 0 passes before a clipboard OSC", "\x1b(0\x1b]52;c;eA==\x07", "\x1b(0"},
	{"CSI @ passes before a clipboard OSC", "\x1b[2@\x1b]52;c;eA==\x07", "\x1b[2@"},
	{"CSI ~ passes before a clipboard OSC", "\x1b[3~\x1b]52;c;eA==\x07", "\x1b[3~"},
	{"DEL inside an escape is ignored", "\x1b\x7f]52;c;eA==\x07", ""},
	{"ESC / waits for its final", "\x1b/\x1b]52;c;eA==\x07", ""},
	{"ESC ( ~ passes before a clipboard OSC", "\x1b(~\x1b]52;c;eA==\x07", "\x1b(~"},
	{"8-bit APC right after a 4-byte character", "\xf0\x90\x80\x80\x9fx\x1b\\b", "\xf0\x90\x80\x80b"},

	// The number's edges, and no number.
	{"a space ends the number", "\x1b]5 2;c;x\x07", "\x1b]5 2;c;x\x07"},
	{"six significant digits pass", "\x1b]123456;x\x07", "\x1b]123456;x\x07"},
	{"seven significant digits go", "\x1b]1234567;x\x07a", "a"},
	{"Linux palette (ESC ] P) passes", "\x1b]P0ffffff\x07a", "\x1b]P0ffffff\x07a"},
	{"Linux palette reset (ESC ] R) passes", "\x1b]R\x07a", "\x1b]R\x07a"},
	{"32 digits (leading zeros) pass", "\x1b]" + strings.Repeat("0", 31) + "8;;u\x07", "\x1b]" + strings.Repeat("0", 31) + "8;;u\x07"},
	{"33 digits go", "\x1b]" + strings.Repeat("0", 32) + "8;;u\x07a", "a"},
	{"a dropped number ended by ESC takes its ST", "\x1b]52\x1b\\x", "x"},
	{"a dropped number ended by CAN leaves a later ST", "\x1b]52\x18\x1b\\x", "\x1b\\x"},

	// Where a sequence's header ends.
	{"ESC SP ] is not an OSC", "\x1b ]52;c;eA==\x07", "\x1b ]52;c;eA==\x07"},
	{"a CSI's space goes with the clipboard OSC that cuts it", "\x1b[ \x1b]52;c;eA==\x07", ""},
	{"a DCS ending in @ is not tmux's", "\x1bP@tmux;x\x1b\\", "\x1bP@tmux;x\x1b\\"},
	{"a DCS ending in ~ is not tmux's", "\x1bP~tmux;x\x1b\\", "\x1bP~tmux;x\x1b\\"},
	{"screen title ended by BEL", "\x1bktitle\x07after", "after"},
}

// Every case, in one write, split in two at every point, and a byte at
// a time: the filter's state carries across writes.
func TestFilterDropsSequencesAsATerminalReadsThem(t *testing.T) {
	for _, c := range filterCases {
		t.Run(c.name, func(t *testing.T) {
			in := []byte(c.in)
			for split := 0; split <= len(in); split++ {
				if got := filterChunks(in[:split], in[split:]); got != c.want {
					t.Fatalf("%q split at %d: %q, want %q", c.in, split, got, c.want)
				}
			}
			var bytewise [][]byte
			for i := range in {
				bytewise = append(bytewise, in[i:i+1])
			}
			if got := filterChunks(bytewise...); got != c.want {
				t.Fatalf("%q a byte at a time: %q, want %q", c.in, got, c.want)
			}
		})
	}
}

// An unterminated dropped string holds no memory, and an overlong
// header is held only up to maxPending.
func TestFilterMemoryIsBounded(t *testing.T) {
	var b bytes.Buffer
	f := newTermFilter(&b)
	_, _ = f.Write([]byte("\x1b]52;c;"))
	chunk := bytes.Repeat([]byte("A"), 1<<16)
	for range 64 {
		_, _ = f.Write(chunk)
	}
	if b.Len() != 0 || len(f.pend) != 0 {
		t.Fatalf("%d bytes out, %d held inside a dropped OSC", b.Len(), len(f.pend))
	}
	_, _ = f.Write([]byte("\x1b[mok"))
	if b.String() != "\x1b[mok" {
		t.Fatalf("after it: %q", b.String())
	}
	b.Reset()
	_, _ = f.Write([]byte("\x1b["))
	_, _ = f.Write(bytes.Repeat([]byte("1;"), maxPending))
	if len(f.pend) > maxPending {
		t.Fatalf("%d bytes held for one CSI", len(f.pend))
	}
	_, _ = f.Write([]byte("m\x1b]" + string(bytes.Repeat([]byte("0"), 2*maxOSCDigits)) + "8;;u\x07x"))
	if got := b.String(); len(got) < 2*maxPending || got[len(got)-1] != 'x' || bytes.Contains(b.Bytes(), []byte("\x1b]0")) {
		t.Fatalf("long CSI, then an OSC with too many zeros: %q…", got[len(got)-20:])
	}
}

// An OSC or DCS header longer than maxPending is still undecided there:
// it is dropped whole, from its introducer to its terminator, and what
// follows the terminator is written; none of the header leaks as text.
func TestFilterDropsAHeaderLongerThanMaxPending(t *testing.T) {
	for _, c := range []struct{ name, header, rest string }{
		{"OSC number with C0 controls", "\x1b]" + strings.Repeat("\n", maxPending+100), "8;;https://127.0.0.1/\x07"},
		{"DCS parameters", "\x1bP" + strings.Repeat("1;", maxPending), "q#0~~\x1b\\"},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := filterChunks([]byte(c.header), []byte(c.rest+"after")); got != "after" {
				t.Fatalf("%q…%q: %q…, want %q", c.header[:4], c.rest, got[:min(len(got), 40)], "after")
			}
		})
	}
}

// When a connection ends, End closes the sequence its output was left
// inside and forgets what was pending: colabdash's next line, or the next
// connection's output, is read by the terminal as text.
func TestFilterEndClosesWhatTheConnectionLeftOpen(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"a link left open", "\x1b]8;;https://example.com/\x1b", "\x1b]8;;https://example.com/" + st},
		{"a colour query's DCS left open", "\x1bP+q544e", "\x1bP+q544e" + st},
		{"a dropped title left open", "\x1b]0;title", ""},
		{"an undecided OSC number", "\x1b]5", ""},
		{"nothing open", "plain", "plain"},
		{"a CSI of maxPending bytes, held", "\x1b[" + strings.Repeat("1", maxPending-2), ""},
		{"a CSI past maxPending, passed on and cancelled", "\x1b[" + strings.Repeat("1", maxPending-1), "\x1b[" + strings.Repeat("1", maxPending-1) + "\x18"},
	} {
		t.Run(c.name, func(t *testing.T) {
			var b bytes.Buffer
			f := newTermFilter(&b)
			_, _ = f.Write([]byte(c.in))
			if err := f.End(); err != nil {
				t.Fatal(err)
			}
			_, _ = f.Write([]byte("[colabdash] the shell exited"))
			if want := c.want + "[colabdash] the shell exited"; b.String() != want {
				t.Errorf("wrote %q, want %q", b.String(), want)
			}
		})
	}
}

// Write reports every byte it was given as written, dropped ones too
// (a shorter count is a short write to io.Copy), and the terminal's
// write error.
func TestFilterWriteCounts(t *testing.T) {
	var b bytes.Buffer
	f := newTermFilter(&b)
	in := []byte("a\x1b]52;c;AA\x07b")
	if n, err := f.Write(in); n != len(in) || err != nil || b.String() != "ab" {
		t.Errorf("Write = %d, %v (%q); want %d, nil", n, err, b.String(), len(in))
	}
	f = newTermFilter(failWriter{})
	if n, err := f.Write([]byte("text")); n != 0 || err == nil {
		t.Errorf("to a failing terminal: Write = %d, %v; want 0 and its error", n, err)
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("EIO") }

// A UTF-8 C1 whose C2 was passed on with a CSI held past maxPending is
// still read as the C1: the CSI it starts comes after what was passed
// on.
func TestFilterC1AfterAHeldCSIFlowedOn(t *testing.T) {
	long := "\x1b[" + strings.Repeat("1", maxPending-2)
	got := filterChunks([]byte(long + "\xc2\x9bm"))
	if !strings.HasPrefix(got, long) || !strings.HasSuffix(got, "\xc2\x9bm") {
		t.Errorf("wrote %d bytes ending %q", len(got), got[max(len(got)-8, 0):])
	}
}

// A C1 control in UTF-8 (C2 9B) whose C2 is the byte that makes a CSI
// flow on past maxPending: the C2 went out with the CSI, and is not
// written a second time with the CSI it starts.
func TestFilterWritesAFlowedC2Once(t *testing.T) {
	in := "\x1b[" + strings.Repeat("0", maxPending-2) + "\xc2\x9bm" + "after"
	if got := filterChunks([]byte(in)); got != in {
		t.Errorf("wrote %d bytes with %d C2, want the input's %d bytes with 1", len(got), strings.Count(got, "\xc2"), len(in))
	}
}
