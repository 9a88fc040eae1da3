package cli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/colabfake"
)

// run --notebook-out names the executed notebook; --output, its old name,
// still works with one warning on stderr, is hidden from --help, and
// beside the new name is a usage error.
func TestRunNotebookOutAndItsOldName(t *testing.T) {
	e := newVerbEnv(t, colabfake.Options{Seed: colabfake.SeedEmpty})
	dir := t.TempDir()
	nb := writeFile(t, filepath.Join(dir, "nb.ipynb"), `{"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
  {"cell_type": "code", "metadata": {}, "execution_count": null, "outputs": [], "source": "print(6*7)"}]}`)
	for _, flag := range []string{"--notebook-out", "--output"} {
		out := filepath.Join(dir, strings.TrimLeft(flag, "-")+".ipynb")
		code, _, errs := e.runRun("--spec", "CPU", flag, out, nb)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", flag, code, errs)
		}
		if b, err := os.ReadFile(out); err != nil || !strings.Contains(string(b), `"42\n"`) {
			t.Errorf("%s: the executed notebook: %v %s", flag, err, b)
		}
		warned := strings.Count(errs, "--output is deprecated and will be removed; use --notebook-out FILE")
		if want := map[bool]int{true: 1, false: 0}[flag == "--output"]; warned != want {
			t.Errorf("%s: %d deprecation warnings, want %d: %q", flag, warned, want, errs)
		}
	}
	if code, _, errs := e.runRun("--spec", "CPU", "--output", "a.ipynb", "--notebook-out", "b.ipynb", nb); code != 2 || !strings.Contains(errs, "give --notebook-out only") {
		t.Errorf("both names: exit %d, stderr %q", code, errs)
	}
	_, help, _ := runCLI(t, "run", "--help")
	if !strings.Contains(help, "--notebook-out") || strings.Contains(help, "--output") {
		t.Errorf("run --help shows --notebook-out and hides --output:\n%s", help)
	}
}
