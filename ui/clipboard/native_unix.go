//go:build linux || freebsd || netbsd || openbsd || solaris || dragonfly

package clipboard

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// nativeCopiers are the programs that put their stdin on the clipboard,
// in the order tried: wl-copy under Wayland, xclip, xsel, Termux's
// termux-clipboard-set, and clip.exe under WSL.
func nativeCopiers(getenv func(string) string) [][]string {
	var c [][]string
	if getenv("WAYLAND_DISPLAY") != "" {
		c = append(c, []string{"wl-copy"})
	}
	return append(c, []string{"xclip", "-in", "-selection", "clipboard"}, []string{"xsel", "--input", "--clipboard"},
		[]string{"termux-clipboard-set"}, []string{"clip.exe"})
}

// nativeCopy hands text on stdin to the first of nativeCopiers found on
// PATH, bounded to 5 s. The programs are looked for at the copy, not at
// start-up: every command would otherwise search PATH for them (as
// github.com/atotto/clipboard's package initialisation does, which this
// replaces on these systems). The error names the program that failed,
// or what to install when none is there.
func nativeCopy(text string) error {
	for _, args := range nativeCopiers(os.Getenv) {
		path, err := exec.LookPath(args[0])
		if err != nil {
			continue
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		cmd := exec.CommandContext(ctx, path, args[1:]...)
		cmd.Stdin = strings.NewReader(text)
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %w", args[0], err)
		}
		return nil
	}
	return errors.New("no clipboard program on PATH (wl-copy, xclip, xsel, termux-clipboard-set or clip.exe)")
}
