package cli

import (
	"regexp"
	"strings"
	"testing"
)

// proxyURL is a runtime's connection URL as the details show it.
var proxyURL = regexp.MustCompile(`http://127\.0\.0\.1:[0-9]+/proxy/(rt-[a-z0-9]+)/`)

// TestCopyInTmux: inside tmux, y and Y put the URL and the
// token in a tmux paste buffer, with tmux's default options (no
// allow-passthrough, set-clipboard external), and the status line says
// so instead of claiming the system clipboard.
func TestCopyInTmux(t *testing.T) {
	home := isolate(t)
	bin := binary(t)
	s := startTmux(t, 120, 30, []string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "XDG_CONFIG_HOME=" + home + "/config",
		"NO_COLOR=1", "TERM=xterm-256color", "DISPLAY=", "WAYLAND_DISPLAY="}, bin, "--demo")
	scr := s.waitFor("the selected runtime's URL", waitTimeout, func(scr string) bool { return proxyURL.MatchString(scr) })
	u := proxyURL.FindStringSubmatch(scr)
	url, rt := u[0], u[1]

	s.keys("y")
	s.waitText("✓ copied the URL of " + rt + " to a tmux buffer (prefix ] pastes it)")
	if got := s.tmux("show-buffer"); got != url {
		t.Fatalf("tmux buffer after y: %q, want %q", got, url)
	}

	s.keys("v")
	token := regexp.MustCompile(`token +(\S+)`)
	scr = s.waitText("revealed in the details")
	if m := token.FindStringSubmatch(scr); m == nil || strings.Contains(m[1], "•") {
		t.Fatalf("no revealed token on screen:\n%s", scr)
	}
	before := token.FindStringSubmatch(scr)[1]
	s.keys("Y")
	scr = s.waitText("✓ copied the proxy token of " + rt + " to a tmux buffer")
	// The demo renews tokens early: the one copied is the one on screen
	// when Y was pressed, or, when a renewal landed just before it, the
	// one on screen now.
	if got, shown := s.tmux("show-buffer"), token.FindStringSubmatch(scr); shown == nil || got != shown[1] && got != before {
		t.Fatalf("tmux buffer after Y: %q, want the token on screen (%q before Y):\n%s", got, before, scr)
	}
	if n := strings.Count(s.tmux("list-buffers"), "\n"); n != 2 {
		t.Errorf("want one buffer per copy (2), got %d:\n%s", n, s.tmux("list-buffers"))
	}
}
