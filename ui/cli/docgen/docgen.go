// Package docgen makes colabdash's generated documentation from its
// command tree: the Markdown CLI reference (docs/reference/cli) and the
// man pages (docs/man, and those a release package carries).
//
// It is kept out of the colabdash binary on purpose: cobra/doc renders
// man pages through a Markdown library whose package initialisation
// every start of every command would otherwise pay. The reference test
// of ui/cli and the packagers' program ui/cli/docgen/mangen use it.
package docgen

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"

	"github.com/colabdash/colabdash/api/safefile"
)

// ManDate is the date the man pages carry. It is fixed, not today's, so
// that regenerating them changes nothing unless the commands changed.
var ManDate = time.Date(2026, time.December, 1, 0, 0, 0, 0, time.UTC)

// Markdown returns the CLI reference of root by file name: one Markdown
// page per command that is not hidden (colabdash_session_open.md), as
// docs/reference/cli holds them. root is the whole tree, built without
// running anything (cli.CommandTree); the error is the generator's or
// the scratch directory's.
func Markdown(root *cobra.Command) (map[string][]byte, error) {
	return generate(root, doc.GenMarkdownTree)
}

// Man returns the man pages of root by file name: colabdash.1 and one
// page per command that is not hidden (colabdash-session-open.1), section
// 1, dated ManDate, as docs/man holds them.
func Man(root *cobra.Command) (map[string][]byte, error) {
	return generate(root, func(root *cobra.Command, dir string) error {
		header := &doc.GenManHeader{Title: "COLABDASH", Section: "1", Source: "colabdash", Manual: "colabdash manual", Date: &ManDate}
		return doc.GenManTree(root, header, dir)
	})
}

// WriteMan writes Man(root) into dir, creating it (0755). Each page is
// written whole and atomically (0644); a symbolic link at a page's name
// is replaced, never followed. The error names the page it stopped at.
func WriteMan(root *cobra.Command, dir string) error {
	pages, err := Man(root)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	names := make([]string, 0, len(pages))
	for name := range pages {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		if err := safefile.WriteAtomic(filepath.Join(dir, name), pages[name], 0o644); err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
	}
	return nil
}

// generate runs gen (a cobra/doc tree generator) on root in a scratch
// directory and returns the files it wrote by name.
func generate(root *cobra.Command, gen func(root *cobra.Command, dir string) error) (map[string][]byte, error) {
	tmp, err := os.MkdirTemp("", "colabdash-reference-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	if err := gen(root, tmp); err != nil {
		return nil, err
	}
	entries, err := os.ReadDir(tmp)
	if err != nil {
		return nil, err
	}
	files := map[string][]byte{}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(tmp, e.Name()))
		if err != nil {
			return nil, err
		}
		files[e.Name()] = b
	}
	return files, nil
}
