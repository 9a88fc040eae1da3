package theme

import "testing"

func TestParseBackground(t *testing.T) {
	cases := []struct {
		name     string
		reply    string
		dark, ok bool
	}{
		{"xterm white, ST", "\x1b]11;rgb:ffff/ffff/ffff\x1b\\\x1b[12;1R", false, true},
		{"black, BEL", "\x1b]11;rgb:0000/0000/0000\x07\x1b[3;4R", true, true},
		{"solarized light", "\x1b]11;rgb:fdfd/f6f6/e3e3\x07\x1b[1;1R", false, true},
		{"dark grey, 2 hex digits", "\x1b]11;rgb:1e/1e/2e\x1b\\\x1b[1;1R", true, true},
		{"only the cursor answer", "\x1b[40;1R", false, false},
		{"nothing", "", false, false},
		{"garbage colour", "\x1b]11;bogus\x07\x1b[1;1R", false, false},
	}
	for _, c := range cases {
		dark, ok := parseBackground([]byte(c.reply))
		if dark != c.dark || ok != c.ok {
			t.Errorf("%s: parseBackground(%q) = %v, %v; want %v, %v", c.name, c.reply, dark, ok, c.dark, c.ok)
		}
	}
	if !answered([]byte("\x1b]11;rgb:0/0/0\x07\x1b[2;3R")) || answered([]byte("\x1b]11;rgb:0/0/0\x07")) {
		t.Error("answered must wait for the cursor-position report and only for it")
	}
}
