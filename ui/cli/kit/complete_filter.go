package kit

import (
	"bytes"
	"io"
	"strings"
	"sync"

	"github.com/colabdash/colabdash/ui/termtext"
)

// CompletionWriter is where cobra's __complete command (what the bash,
// zsh, fish and PowerShell completion scripts run on every tab) writes its
// answer: one candidate per line, "VALUE" or "VALUE<TAB>DESCRIPTION", then
// ":DIRECTIVE". Every line passes termtext on its way out, value and
// description each (the one tab between them is kept), so no candidate
// from a server (runtime ids, specs, session ids, remote paths, and any
// ValidArgsFunction or flag completion added later) carries ESC, BEL, C1,
// a bidirectional control or NUL into the shell, which may print it or
// put it on the command line. This is the one place completions leave the
// process; the completion functions need no filter of their own.
type CompletionWriter struct {
	mu   sync.Mutex
	W    io.Writer
	line []byte // the unfinished line
}

// Write passes each complete line of p through completionLine; the rest
// waits for its end (or Flush).
func (c *CompletionWriter) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.line = append(c.line, p...)
	for {
		i := bytes.IndexByte(c.line, '\n')
		if i < 0 {
			break
		}
		if _, err := io.WriteString(c.W, completionLine(string(c.line[:i]))+"\n"); err != nil {
			return len(p), err
		}
		c.line = c.line[i+1:]
	}
	return len(p), nil
}

// Flush writes an unfinished last line.
func (c *CompletionWriter) Flush() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.line) == 0 {
		return nil
	}
	_, err := io.WriteString(c.W, completionLine(string(c.line)))
	c.line = nil
	return err
}

// completionLine is one line of __complete's answer made inert: the value
// and the description (after the first tab) each through termtext.Line.
func completionLine(l string) string {
	value, desc, hasDesc := strings.Cut(l, "\t")
	value = termtext.Line(value)
	if !hasDesc {
		return value
	}
	return value + "\t" + termtext.Line(desc)
}
