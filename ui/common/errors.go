package common

import (
	"errors"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/termtext"
)

// ErrLine is err on one line of at most 300 characters, made safe to
// show (termtext.Line); "" for nil.
func ErrLine(err error) string {
	if err == nil {
		return ""
	}
	return termtext.Line(api.OneLine(ErrText(err), 300))
}

// ErrText is err's text; a runtime file's error names its path as the
// files pane shows names (through termtext), not Go-quoted.
func ErrText(err error) string {
	if je := (*jupyter.Error)(nil); errors.As(err, &je) { // wrapped too
		return je.Text(termtext.Line)
	}
	return err.Error()
}
