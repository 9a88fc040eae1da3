package kit

import (
	"os"

	"github.com/colabdash/colabdash/ui"
)

// This file is the one place the commands' shared code uses package ui
// (the dashboard's package): its state directory, the last-used spec and
// its terminal and colour checks. The dashboard itself is started from
// ui/cli/dashboard.go.

// LastSpec is the runtimeSpec and version of the last runtime the user
// created (create --last), kept in the state directory; no secret.
type LastSpec = ui.LastSpec

// StateDir returns $XDG_STATE_HOME/colabdash, or ~/.local/state/colabdash
// when XDG_STATE_HOME is unset or not absolute; "" when neither can be
// found.
func StateDir() string { return ui.DefaultStateDir() }

// WriteStateFile writes b to dir/name in the state directory (directory
// 0700, file 0600) through a temporary file and a rename. It holds no
// secret by contract: never pass one.
func WriteStateFile(dir, name string, b []byte) error { return ui.WriteStateFile(dir, name, b) }

// LoadLastSpec reads dir/last-spec.json the bounded way; an error when
// dir is empty or the file is missing, not a regular file, too large or
// not a valid spec.
func LoadLastSpec(dir string) (*LastSpec, error) { return ui.LoadLastSpec(dir) }

// SaveLastSpec writes ls to dir/last-spec.json (directory 0700, file
// 0600, through a rename). An empty dir stores nothing.
func SaveLastSpec(dir string, ls *LastSpec) error { return ui.SaveLastSpec(dir, ls) }

// IsTerminal reports whether f is a terminal.
func IsTerminal(f *os.File) bool { return ui.IsTerminal(f) }

// NoColorFromEnv reports whether NO_COLOR is set to a non-empty value
// (https://no-color.org).
func NoColorFromEnv() bool { return ui.NoColorFromEnv() }
