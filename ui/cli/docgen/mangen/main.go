// Command mangen writes colabdash's man pages (colabdash.1 and one page
// per command, section 1: the same as docs/man) into DIR, creating it:
//
//	go run ./ui/cli/docgen/mangen DIR
//
// Packagers and the release's before-hook (.ci/release/generate) run it,
// so a package carries pages made from the code. It is a program of its
// own, not a verb of colabdash, so that the Markdown renderer behind the
// man pages is not in the binary every command starts. Each page is
// written whole and atomically; a symbolic link at a page's name is
// replaced, never followed. Exit codes: 0 written, 1 a write failed, 2
// usage.
package main

import (
	"fmt"
	"io"
	"os"

	"github.com/colabdash/colabdash/ui/cli"
	"github.com/colabdash/colabdash/ui/cli/docgen"
)

func main() { os.Exit(run(os.Args[1:], os.Stderr)) }

// run writes the pages into args[0] and returns the exit code; errors
// go to stderr on one line.
func run(args []string, stderr io.Writer) int {
	if len(args) != 1 || args[0] == "" {
		fmt.Fprintln(stderr, "usage: mangen DIR (writes colabdash's man pages into DIR)")
		return 2
	}
	if err := docgen.WriteMan(cli.CommandTree(), args[0]); err != nil {
		fmt.Fprintln(stderr, "mangen: "+err.Error())
		return 1
	}
	return 0
}
