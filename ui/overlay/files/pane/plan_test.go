package pane

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api/jupyter"
)

// wantRefusal fails unless err is a *jupyter.Error of kind whose message
// holds text.
func wantRefusal(t *testing.T, what string, err error, kind error, text string) {
	t.Helper()
	var je *jupyter.Error
	if !errors.As(err, &je) || !errors.Is(err, kind) || !strings.Contains(je.Message, text) {
		t.Errorf("%s: %v, want %v saying %q", what, err, kind, text)
	}
}

// Where a download may not land, PlanDownload says why before anything
// is written: a remote name that cannot be a local one, a path through a
// file, a directory of the remote name in the way.
func TestPlanDownloadRefusals(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "file.txt"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "data.csv"), 0o700); err != nil {
		t.Fatal(err)
	}
	t0 := Target{Runtime: "rt-x", Path: "content/..", Name: ".."}
	_, err := PlanDownload(t0, dir)
	wantRefusal(t, "a name of ..", err, jupyter.ErrUnsafeName, "(download it to a file name you type)")
	csv := Target{Runtime: "rt-x", Path: "content/data.csv", Name: "data.csv"}
	_, err = PlanDownload(csv, filepath.Join(dir, "file.txt", "x"))
	wantRefusal(t, "a path through a file", err, jupyter.ErrLocal, filepath.Join(dir, "file.txt")+" is not a directory")
	_, err = PlanDownload(csv, dir)
	wantRefusal(t, "a directory of its name there", err, jupyter.ErrLocal, filepath.Join(dir, "data.csv")+" is a directory")
}

// CheckUpload refuses a directory (cp -r's) and what is not a regular
// file (a device would never end).
func TestCheckUploadRefusals(t *testing.T) {
	into := Target{Runtime: "rt-x", Path: "content", Dir: true}
	dir := t.TempDir()
	_, err := CheckUpload(into, dir)
	wantRefusal(t, "a directory", err, jupyter.ErrLocal, dir+" is a directory (use colabdash cp -r)")
	_, err = CheckUpload(into, os.DevNull)
	wantRefusal(t, "a device", err, jupyter.ErrLocal, os.DevNull+" is not a regular file (")
}
