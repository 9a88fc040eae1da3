package cli

import (
	"strings"
	"testing"
)

// ctrl+z suspends the dashboard to the shell that started it, as every
// full-screen terminal program does, and fg brings it back intact: the
// same screen, still answering keys.
func TestE2ECtrlZSuspendsAndFgResumes(t *testing.T) {
	bin := binary(t)
	home := isolate(t)
	p := startTmux(t, 100, 30, []string{"HOME=" + home, "XDG_STATE_HOME=" + home + "/state", "GOOGLE_APPLICATION_CREDENTIALS=",
		"NO_COLOR=1", "PS1=shell-prompt-"}, "bash", "--norc", "--noprofile", "-i")
	p.waitText("shell-prompt-")
	p.text(bin + " --demo")
	p.keys("Enter")
	p.waitText("rt-v6edemo2mw")

	p.keys("C-z")
	p.waitFor("the shell back, the dashboard stopped", waitTimeout, func(s string) bool {
		return strings.Contains(s, "Stopped") && strings.HasSuffix(strings.TrimRight(s, "\n "), "shell-prompt-") &&
			!strings.Contains(s, "RUNTIMES 3")
	})

	p.text("fg")
	p.keys("Enter")
	s := p.waitFor("the dashboard intact", waitTimeout, func(s string) bool {
		return strings.Contains(s, "RUNTIMES 3") && strings.Contains(s, "rt-v6edemo2mw") && strings.Contains(s, "? help") &&
			!strings.Contains(s, "Stopped") && !strings.Contains(s, "shell-prompt-")
	})
	if !strings.HasPrefix(s, "colabdash · profile demo") {
		t.Fatalf("the header is not on the first line after fg:\n%s", s)
	}
	// It still answers keys: the help opens and lists ctrl+z.
	p.keys("?")
	p.waitText("suspend (fg resumes)")
	p.keys("Escape")
	p.waitGone("suspend (fg resumes)")
	p.keys("q")
	p.waitFor("the shell after quitting", waitTimeout, func(s string) bool {
		return !strings.Contains(s, "RUNTIMES 3") && strings.HasSuffix(strings.TrimRight(s, "\n "), "shell-prompt-")
	})
}
