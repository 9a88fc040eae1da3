package logview

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	tea "github.com/charmbracelet/bubbletea"

	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/common"
	"github.com/colabdash/colabdash/ui/overlay/dialog"
	"github.com/colabdash/colabdash/ui/termtext"
)

// Saving (s): the bytes received (the newest MaxRawBytes of them), as
// the log holds them ("\r" and colours included, as `colabdash logs`
// prints them), with every secret the redactor knows masked, to a local
// file the user names. The file is written beside its destination and
// renamed into place without replacing anything there; an existing file
// is replaced only after a y to the question that then opens. No
// symbolic link at the destination is followed (api/safefile).

// SavedMsg is the answer of a save: Path written with Bytes bytes
// (Dropped: bytes received before them that the viewer no longer had), or
// Exists (nothing written: a file is there), or Err.
type SavedMsg struct {
	o       *Overlay
	Path    string
	Bytes   int64
	Dropped int64
	Exists  bool
	Err     error
}

// Owner is the viewer that saved.
func (m SavedMsg) Owner() *Overlay { return m.o }

// saveDialog asks where to save the log (an Input dialog; enter saves).
func (o *Overlay) saveDialog(c *common.Context) *dialog.Dialog {
	d := dialog.New(dialog.Input, c.Now(), "Save the log of "+o.target.Kind+" "+o.target.ID,
		"Writes the "+state.FormatBytes(int64(len(o.buf.raw)))+" received to a local file (secrets masked); "+
			"an existing file is replaced only if you answer y.")
	name := defaultName(o.target)
	d.Hint = "empty: " + name + " in the current directory; ~/ is your home"
	d.OnAnswer = func(c *common.Context, r dialog.Reply) common.Effect {
		if !r.OK {
			return common.Say{Text: "save cancelled: nothing written"}
		}
		path := r.Input
		if path == "" {
			path = name
		}
		return common.Run{Cmd: o.Save(c, path, false)}
	}
	return d
}

// defaultName is the file a save offers: the target's id, made a plain
// file name, with ".log".
func defaultName(t Target) string {
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '-'
	}, t.ID)
	if name == "" || strings.HasPrefix(name, ".") {
		name = "log" + name
	}
	return name + ".log"
}

// Save is a command that writes what the viewer received to path
// (replace: an existing file is replaced) and answers a SavedMsg.
func (o *Overlay) Save(c *common.Context, path string, replace bool) tea.Cmd {
	raw, dropped := o.buf.Raw()
	redact := c.Redact
	return func() tea.Msg {
		data := []byte(redact(string(raw)))
		m := SavedMsg{o: o, Path: path, Bytes: int64(len(data)), Dropped: dropped}
		m.Exists, m.Err = writeFile(path, data, replace)
		return m
	}
}

// writeFile writes data to path through a part file beside it, renamed
// into place: never over an existing file unless replace (exists
// reports the refusal), never through a symbolic link.
func writeFile(path string, data []byte, replace bool) (exists bool, err error) {
	if strings.HasPrefix(path, "~/") {
		home, err := os.UserHomeDir()
		if err != nil {
			return false, err
		}
		path = filepath.Join(home, path[2:])
	}
	dirPath, name := filepath.Split(path)
	if name == "" || name == "." || name == ".." {
		return false, errors.New(termtext.Line(path) + ": name a file, not a directory")
	}
	if dirPath == "" {
		dirPath = "."
	}
	dir, err := safefile.OpenDir(dirPath)
	if err != nil {
		return false, err
	}
	defer dir.Close()
	var rnd [6]byte
	_, _ = rand.Read(rnd[:])
	part := "." + name + "-" + hex.EncodeToString(rnd[:]) + safefile.PartSuffix
	f, err := dir.OpenFile(part, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return false, err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		if replace {
			err = dir.Rename(part, name)
		} else {
			err = dir.RenameNoReplace(part, name)
		}
	}
	if err != nil {
		_ = dir.Remove(part)
		if errors.Is(err, fs.ErrExist) {
			return true, nil
		}
	}
	return false, err
}

// Saved is what a save's answer asks of the app: the status line's words
// or, when a file was in the way, the question whether to replace it
// (opened over the viewer, as an answer brings it).
func (o *Overlay) Saved(m SavedMsg, c *common.Context) common.Effect {
	path := termtext.Line(m.Path)
	switch {
	case m.Err != nil:
		return common.Say{Text: "log not saved: " + common.ErrLine(m.Err), Err: true}
	case m.Exists:
		d := dialog.New(dialog.Confirm, c.Now(), "Replace "+filepath.Base(m.Path)+"?",
			m.Path+" exists: saving the log replaces it.", "Its contents cannot be recovered.")
		d.Guard = true
		d.OnAnswer = func(c *common.Context, r dialog.Reply) common.Effect {
			if !r.OK {
				return common.Say{Text: "log not saved: " + path + " is kept as it was"}
			}
			return common.Run{Cmd: o.Save(c, m.Path, true)}
		}
		return common.Open{Overlay: d}
	}
	text := "saved " + state.FormatBytes(m.Bytes) + " of log to " + path
	if m.Dropped > 0 {
		text += " (the " + state.FormatBytes(m.Dropped) + " received before were no longer kept)"
	}
	return common.Say{Text: text}
}
