//go:build unix

package cli

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// TestColourOnATerminalAndAPipe runs `specs` (which dims the runtime specs
// the tier may not use) on a pseudo-terminal and on a pipe under each of
// gh's colour rules: a terminal has colour unless NO_COLOR or CLICOLOR=0,
// a pipe has none unless CLICOLOR_FORCE; --color always and never win
// over the environment.
func TestColourOnATerminalAndAPipe(t *testing.T) {
	bin := needBinary(t)
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedDemo})
	const dim = "\x1b[2m"
	cases := []struct {
		name          string
		env, flags    []string
		onTTY, onPipe bool
	}{
		{"default", nil, nil, true, false},
		{"NO_COLOR", []string{"NO_COLOR=1"}, nil, false, false},
		{"CLICOLOR=0", []string{"CLICOLOR=0"}, nil, false, false},
		{"CLICOLOR_FORCE=1", []string{"CLICOLOR_FORCE=1"}, nil, true, true},
		{"CLICOLOR_FORCE=0", []string{"CLICOLOR_FORCE=0"}, nil, true, false},
		{"--color never", []string{"CLICOLOR_FORCE=1"}, []string{"--color", "never"}, false, false},
		{"--color always", []string{"NO_COLOR=1", "CLICOLOR=0"}, []string{"--color=always"}, true, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			env := append([]string{"HOME=" + e.home, "NO_COLOR=", "CLICOLOR=", "CLICOLOR_FORCE="}, c.env...)
			args := append(append([]string{"specs"}, c.flags...), e.flags...)
			s := startSilent(t, env, bin, args...)
			if err := s.cmd.Wait(); err != nil {
				t.Fatalf("on a terminal: %v\n%q", err, s.output())
			}
			<-s.read
			if got := strings.Contains(s.output(), dim); got != c.onTTY {
				t.Errorf("on a terminal: colour %v, want %v:\n%q", got, c.onTTY, s.output())
			}
			cmd := exec.Command(bin, args...)
			cmd.Env = append(os.Environ(), env...)
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("on a pipe: %v\n%q", err, out)
			}
			if !strings.Contains(string(out), "TPU/V6E1/HIGHMEM") {
				t.Fatalf("on a pipe: no ineligible spec listed:\n%q", out)
			}
			if got := strings.Contains(string(out), dim); got != c.onPipe {
				t.Errorf("on a pipe: colour %v, want %v:\n%q", got, c.onPipe, out)
			}
		})
	}
}
