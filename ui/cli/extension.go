package cli

// Command-line extensions, as gh and kubectl have them: `colabdash NAME
// ARGS…`, NAME not a built-in command, runs the program colabdash-NAME
// found on PATH with ARGS, the profile in effect and its endpoint in its
// environment, and exits with its exit code.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
)

// extensionPrefix starts the name of every extension program.
const extensionPrefix = "colabdash-"

// extensionName reports whether name may be an extension's NAME: a
// lowercase word (a letter or digit, then up to 62 of letters, digits, _
// and -), so that nothing but a plain program name is ever looked up. A
// loop, not a regular expression: every start of colabdash checks its
// first argument, and compiling one would cost more than the check.
func extensionName(name string) bool {
	if name == "" || len(name) > 63 {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		word := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		if !word && (i == 0 || c != '_' && c != '-') {
			return false
		}
	}
	return true
}

// extensionCall returns the path of the extension args call (args[0]
// names no built-in command, and colabdash-NAME is on PATH), or "".
func extensionCall(root *cobra.Command, args []string) string {
	if len(args) == 0 || !extensionName(args[0]) {
		return ""
	}
	root.InitDefaultHelpCmd()
	if c, _, err := root.Find(args[:1]); err == nil && c != root {
		return "" // a built-in command always wins
	}
	p, err := exec.LookPath(extensionPrefix + args[0])
	if err != nil {
		return ""
	}
	return p
}

// runExtension runs the extension at path with args on this process's
// streams (the terminal, when there is one), its environment the
// process's plus COLABDASH_PROFILE and COLABDASH_ENDPOINT of the profile
// in effect (config, COLABDASH_PROFILE). A broken config stops it as it
// stops every command. The exit code is the extension's (128 + the
// signal that ended it); 1 when it could not be started.
func runExtension(ctx context.Context, g *kit.Globals, s *kit.Streams, root *cobra.Command, path string, args []string) int {
	if err := kit.CheckPrivateDirs(os.Getenv); err != nil {
		return extensionFailed(s, g, err)
	}
	if err := kit.LoadConfig(root, g, os.Getenv); err != nil {
		return extensionFailed(s, g, err)
	}
	cmd := exec.Command(path, args...)
	env := make([]string, 0, len(os.Environ())+2)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "COLABDASH_PROFILE=") && !strings.HasPrefix(kv, "COLABDASH_ENDPOINT=") {
			env = append(env, kv)
		}
	}
	env = append(env, "COLABDASH_PROFILE="+g.Profile.Name)
	if g.Profile.Endpoint != "" {
		env = append(env, "COLABDASH_ENDPOINT="+g.Profile.Endpoint)
	}
	cmd.Env = env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = s.In, s.Out, s.Err
	// The terminal, not the redacting writers: the extension's output is
	// its own, as with any program the user runs.
	if f, ok := s.In.(*os.File); ok {
		cmd.Stdin = f
	}
	if f, ok := kit.File(s.Out); ok {
		cmd.Stdout = f
	}
	if f, ok := kit.File(s.Err); ok {
		cmd.Stderr = f
	}
	if err := cmd.Start(); err != nil {
		return extensionFailed(s, g, &kit.ExitError{Code: kit.ExitFailure, Msg: "extension " + filepath.Base(path) + ": " + err.Error()})
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var err error
	select {
	case err = <-done:
	case <-ctx.Done():
		// A signal for colabdash (SIGTERM, SIGHUP; ctrl+c reaches the
		// extension from the terminal itself) is passed on.
		if runtime.GOOS != "windows" {
			_ = cmd.Process.Signal(syscall.SIGTERM)
		}
		err = <-done
	}
	var xe *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &xe):
		if ws, ok := xe.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return xe.ExitCode()
	}
	return extensionFailed(s, g, &kit.ExitError{Code: kit.ExitFailure, Msg: "extension " + filepath.Base(path) + ": " + err.Error()})
}

// extensionFailed prints err's line as every command's failure is
// printed and returns its exit code.
func extensionFailed(s *kit.Streams, g *kit.Globals, err error) int {
	var ee *kit.ExitError
	if !errors.As(err, &ee) {
		ee = &kit.ExitError{Code: kit.ExitFailure, Msg: err.Error()}
	}
	fmt.Fprintln(s.Err, "colabdash: "+termtext.Block(g.Logs.Red.Redact(ee.Msg)))
	return ee.Code
}

// extensions lists the extensions on PATH: NAME → the first
// colabdash-NAME program found, leaving out names of built-in commands
// (which always win).
func extensions(root *cobra.Command) map[string]string {
	out := map[string]string{}
	for _, dir := range filepath.SplitList(os.Getenv("PATH")) {
		if dir == "" {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue
		}
		for _, e := range entries {
			name, ok := strings.CutPrefix(e.Name(), extensionPrefix)
			if runtime.GOOS == "windows" {
				name = strings.TrimSuffix(name, filepath.Ext(name))
			}
			if !ok || !extensionName(name) || out[name] != "" {
				continue
			}
			if c, _, err := root.Find([]string{name}); err == nil && c != root {
				continue
			}
			p := filepath.Join(dir, e.Name())
			if _, err := exec.LookPath(p); err == nil {
				out[name] = p
			}
		}
	}
	return out
}

// withExtensionsHelp makes the root's --help end with the extensions
// found on PATH (not the generated references, which do not depend on a
// PATH).
func withExtensionsHelp(root *cobra.Command) {
	def := root.HelpFunc()
	root.SetHelpFunc(func(c *cobra.Command, args []string) {
		def(c, args)
		if c != root {
			return
		}
		exts := extensions(root)
		if len(exts) == 0 {
			return
		}
		names := make([]string, 0, len(exts))
		for n := range exts {
			names = append(names, n)
		}
		sort.Strings(names)
		w := c.OutOrStdout()
		fmt.Fprintln(w, "\nExtensions (colabdash-NAME programs on PATH; run as colabdash NAME):")
		for _, n := range names {
			fmt.Fprintf(w, "  %-20s %s\n", termtext.Line(n), termtext.Line(exts[n]))
		}
	})
}
