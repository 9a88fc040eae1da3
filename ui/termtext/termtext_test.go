package termtext

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Samples of what was seen in the field: a server put an OSC 52 clipboard
// write, an OSC 0 title change and CSI 2J in runtime names, accelerators
// and shapes, and a right-to-left override in an error message; a paste
// into the filter carried an OSC 0 title and a CR.
const (
	osc52  = "\x1b]52;c;aGFja2Vk\x07"
	osc0   = "\x1b]0;pwned\x07"
	csi2J  = "\x1b[2J"
	c1CSI  = "\u009b2J"
	rlo    = "\u202e"
	paste  = "a1\x1b]0;T\x07\r00"
	badUTF = "ok\xff\xfe"
)

// inert reports why s could drive a terminal ("" when it cannot): any C0
// control other than allowed, DEL, C1, bidi control or invalid UTF-8.
func inert(s, allowed string) string {
	if !utf8.ValidString(s) {
		return "invalid UTF-8"
	}
	for _, r := range s {
		switch {
		case strings.ContainsRune(allowed, r):
		case r < 0x20 || (r >= 0x7f && r <= 0x9f):
			return "control " + string(rune(0x2400+r%0x80))
		case isBidi(r):
			return "bidi control"
		}
	}
	return ""
}

func TestLineMakesSamplesInert(t *testing.T) {
	for _, in := range []string{osc52, osc0, csi2J, c1CSI, rlo + "gpj.exe", badUTF, "a\tb\nc\rd\x7f", paste} {
		got := Line(in)
		if why := inert(got, ""); why != "" {
			t.Errorf("Line(%q) = %q: %s", in, got, why)
		}
	}
	if got, want := Line(osc52), "␛]52;c;aGFja2Vk␇"; got != want {
		t.Errorf("Line(OSC 52) = %q, want the sequence made visible %q", got, want)
	}
	if got, want := Line("evil"+rlo+"txt.exe"), "eviltxt.exe"; got != want {
		t.Errorf("Line(RLO) = %q, want %q", got, want)
	}
	if got, want := Line("x"+c1CSI), "x�2J"; got != want {
		t.Errorf("Line(C1 CSI) = %q, want %q", got, want)
	}
	if got, want := Line("a\tb\nc"), "a b c"; got != want {
		t.Errorf("Line(layout controls) = %q, want %q", got, want)
	}
	if got, want := Line("gpu-t4 ✓ 名前"), "gpu-t4 ✓ 名前"; got != want {
		t.Errorf("Line changed printable text: %q", got)
	}
}

func TestBlockKeepsLinesAndNeverOverwrites(t *testing.T) {
	got := Block("import os\rprint(1)\r\nprint(2)\n\tx" + osc0)
	want := "import os\nprint(1)\nprint(2)\n        x␛]0;pwned␇"
	if got != want {
		t.Errorf("Block = %q, want %q", got, want)
	}
	if why := inert(got, "\n"); why != "" {
		t.Errorf("Block left a %s", why)
	}
}

func TestInput(t *testing.T) {
	for _, tc := range []struct {
		in        string
		multiline bool
		want      string
	}{
		{paste, false, "a100"},
		{paste, true, "a1\n00"},
		{"import os\rprint(1)\rprint(2)", true, "import os\nprint(1)\nprint(2)"},
		{"a\r\nb", true, "a\nb"},
		{"\tx = 1", true, "\tx = 1"},
		{"\tx", false, " x"},
		{"a" + rlo + "b\u009b31mc\x7f", false, "ab31mc"},
		{"\x1b[31mred\x1b[0m", false, "red"},
		{"é✓", false, "é✓"},
	} {
		if got := Input(tc.in, tc.multiline); got != tc.want {
			t.Errorf("Input(%q, %v) = %q, want %q", tc.in, tc.multiline, got, tc.want)
		}
	}
}

func TestCutFitsTheColumn(t *testing.T) {
	long := strings.Repeat("x", 5000) + osc52
	got := Cut(long, 40)
	if w := ansi.StringWidth(got); w != 40 || !strings.HasSuffix(got, Ellipsis) {
		t.Errorf("Cut(5,000 chars, 40) is %d cells wide: %q", w, got)
	}
	if got := Cut("名前名前名前", 5); ansi.StringWidth(got) > 5 {
		t.Errorf("Cut(wide, 5) = %q, %d cells", got, ansi.StringWidth(got))
	}
	if Cut("abc", 0) != "" || Cut("abc", 3) != "abc" {
		t.Error("Cut edge cases")
	}
}

func TestFrameKeepsOnlySGR(t *testing.T) {
	in := "\x1b[1;38;2;1;2;3mbold\x1b[0m " + osc52 + csi2J + osc0 + "\x1b[?25l\x1bP1$r\x1b\\" + c1CSI + rlo + "\x07\r\x1bc\n" + badUTF
	want := "\x1b[1;38;2;1;2;3mbold\x1b[0m 2J\nok\uFFFD\uFFFD"
	if got := Frame(in); got != want {
		t.Errorf("Frame = %q, want %q", got, want)
	}
	clean := "\x1b[1mcolabdash\x1b[0m · tier Pro\n● connected"
	if got := Frame(clean); got != clean {
		t.Errorf("Frame changed a clean frame: %q", got)
	}
}

// FuzzSanitizers: whatever the input, the output of every function is
// valid UTF-8 and drives nothing.
func FuzzSanitizers(f *testing.F) {
	for _, s := range []string{osc52, osc0, csi2J, c1CSI, rlo, paste, badUTF, "\x1b[31mx\x1b[0m", "\x1b", "\x1b[", "\x1b]", "\t\r\n"} {
		f.Add(s, 10)
	}
	f.Fuzz(func(t *testing.T, s string, w int) {
		if why := inert(Line(s), ""); why != "" {
			t.Fatalf("Line(%q): %s", s, why)
		}
		if why := inert(Output(s), "\n"); why != "" {
			t.Fatalf("Output(%q): %s", s, why)
		}
		if why := inert(Block(s), "\n"); why != "" {
			t.Fatalf("Block(%q): %s", s, why)
		}
		if why := inert(Input(s, false), ""); why != "" {
			t.Fatalf("Input(%q, false): %s", s, why)
		}
		if why := inert(Input(s, true), "\n\t"); why != "" {
			t.Fatalf("Input(%q, true): %s", s, why)
		}
		w = w % 200
		if c := Cut(s, w); ansi.StringWidth(c) > max(w, 0) {
			t.Fatalf("Cut(%q, %d) = %q is %d cells", s, w, c, ansi.StringWidth(c))
		}
		fr := Frame(s)
		// Only SGR may keep an ESC; take the SGR sequences out and the
		// rest must be inert.
		rest := sgr.ReplaceAllString(fr, "")
		if why := inert(rest, "\n"); why != "" {
			t.Fatalf("Frame(%q) = %q: %s", s, fr, why)
		}
		if Frame(fr) != fr {
			t.Fatalf("Frame is not idempotent on %q", s)
		}
	})
}

var sgr = regexp.MustCompile(`\x1b\[[0-9;:]*m`)

func TestOutputDropsColoursAndShowsTheRest(t *testing.T) {
	got := Output("\x1b[0;31mValueError\x1b[0m: x\r\n" + osc52 + csi2J + "\x1b]0;unterminated")
	want := "ValueError: x\n␛]52;c;aGFja2Vk␇␛[2J␛]0;unterminated"
	if got != want {
		t.Errorf("Output = %q, want %q", got, want)
	}
}

// JSON escapes what encoding/json leaves raw (C1 controls, bidi controls)
// and nothing else, so the result decodes to the same value.
func TestJSONEscapesC1AndBidi(t *testing.T) {
	v := map[string]string{"k": "a" + c1CSI + rlo + "é\u2066x\u2069\u0085" + osc0 + badUTF}
	raw, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	out := JSON(raw)
	if why := inert(string(out), ""); why != "" {
		t.Fatalf("JSON(%q) = %q: %s", raw, out, why)
	}
	var back map[string]string
	if err := json.Unmarshal(out, &back); err != nil {
		t.Fatalf("JSON(%q) = %q does not decode: %v", raw, out, err)
	}
	var want map[string]string
	_ = json.Unmarshal(raw, &want)
	if back["k"] != want["k"] {
		t.Errorf("JSON changed the value: %q, want %q", back["k"], want["k"])
	}
	if plain := []byte(`{"k":"é ok"}`); string(JSON(plain)) != string(plain) {
		t.Errorf("JSON changed plain text: %q", JSON(plain))
	}
}
