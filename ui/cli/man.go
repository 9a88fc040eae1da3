package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// manCmd is the hidden `colabdash man DIR`: it writes the man pages
// (colabdash.1 and one page per command, the same as docs/man) into DIR,
// creating it, so a package is built from the code rather than from the
// committed copies. Each page is written whole and atomically; a
// symbolic link at a page's name is replaced, never followed.
func manCmd() *cobra.Command {
	return &cobra.Command{
		Use:     "man DIR",
		Short:   "Write the man pages into DIR",
		Long:    "man writes colabdash.1 and one page per command (section 1) into DIR, creating it; for packagers.\n" + kit.ExitCodesHelp,
		Example: "  colabdash man ./man && man -l ./man/colabdash.1",
		Hidden:  true,
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			pages, err := manPages()
			if err != nil {
				return &kit.ExitError{Code: kit.ExitFailure, Msg: "man: " + err.Error()}
			}
			dir := args[0]
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return &kit.ExitError{Code: kit.ExitFailure, Msg: "man: " + err.Error()}
			}
			names := make([]string, 0, len(pages))
			for name := range pages {
				names = append(names, name)
			}
			sort.Strings(names)
			for _, name := range names {
				if err := safefile.WriteAtomic(filepath.Join(dir, name), pages[name], 0o644); err != nil {
					return &kit.ExitError{Code: kit.ExitFailure, Msg: fmt.Sprintf("man: %v", err)}
				}
			}
			return nil
		},
	}
}
