package common

import (
	"errors"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/termtext"
)

// ErrText is err's text for the screen; a runtime file's error
// (*jupyter.Error, wrapped too) names its path as the files pane shows
// names (through termtext), not Go-quoted. It is not yet made safe for
// the terminal nor redacted: the caller does both.
func ErrText(err error) string {
	if je := (*jupyter.Error)(nil); errors.As(err, &je) {
		return je.Text(termtext.Line)
	}
	return err.Error()
}

// ErrLine is err's text on one line of at most 300 runes, safe for the
// terminal (termtext.Line); "" for nil. It is not redacted.
func ErrLine(err error) string {
	if err == nil {
		return ""
	}
	return termtext.Line(api.OneLine(ErrText(err), 300))
}
