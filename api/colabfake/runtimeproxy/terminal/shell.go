package terminal

import (
	"context"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/colabdash/colabdash/api/colabfake/pyemu"
)

// fakeShell is the emulated terminal: a line discipline that echoes what
// is typed, answers a line with its command's output and a new prompt,
// and knows a few built-ins (stty size, echo, printf, sleep N, exit).
// Anything else prints what a real shell would have run.
type fakeShell struct {
	mu         sync.Mutex
	line       []rune
	cols, rows int
	outq       chan string
	exit       chan struct{}
	exited     bool
	esc        int // 1: after ESC, 2: inside a CSI sequence
}

func newFakeShell() *fakeShell {
	return &fakeShell{outq: make(chan string, 256), exit: make(chan struct{})}
}

func (f *fakeShell) resize(cols, rows int) {
	f.mu.Lock()
	f.cols, f.rows = cols, rows
	f.mu.Unlock()
}

func (f *fakeShell) emit(s string) {
	select {
	case f.outq <- s:
	case <-f.exit:
	}
}

func (f *fakeShell) input(s string) {
	var out strings.Builder
	var cmds []string
	f.mu.Lock()
	for _, r := range s {
		switch {
		case f.esc == 1:
			f.esc = 0
			if r == '[' || r == 'O' {
				f.esc = 2
			}
			continue
		case f.esc == 2:
			if r >= 0x40 && r <= 0x7e {
				f.esc = 0
			}
			continue
		}
		switch r {
		case 0x1b:
			f.esc = 1
		case '\r', '\n':
			out.WriteString("\r\n")
			cmds = append(cmds, string(f.line))
			f.line = f.line[:0]
		case 0x7f, 0x08:
			if n := len(f.line); n > 0 {
				f.line = f.line[:n-1]
				out.WriteString("\b \b")
			}
		case 0x03: // ctrl+c
			f.line = f.line[:0]
			out.WriteString("^C\r\n" + Prompt)
		case 0x04: // ctrl+d on an empty line
			if len(f.line) == 0 {
				cmds = append(cmds, "exit")
			}
		default:
			if r >= 0x20 {
				f.line = append(f.line, r)
				out.WriteRune(r)
			}
		}
	}
	f.mu.Unlock()
	if out.Len() > 0 {
		f.emit(out.String())
	}
	for _, c := range cmds {
		f.emit("\x00cmd:" + c) // run in order by run's goroutine
	}
}

func (f *fakeShell) run(ctx context.Context, out func(string) error) {
	if out(Prompt) != nil {
		return
	}
	for {
		select {
		case <-ctx.Done():
			return
		case s := <-f.outq:
			if cmd, ok := strings.CutPrefix(s, "\x00cmd:"); ok {
				res, exit := f.command(ctx, cmd)
				if exit {
					return
				}
				s = res + Prompt
			}
			if out(s) != nil {
				return
			}
		}
	}
}

// command runs one line: its output (with CRLF line ends) and whether it
// was exit.
func (f *fakeShell) command(ctx context.Context, line string) (string, bool) {
	fields := strings.Fields(line)
	if len(fields) == 0 {
		return "", false
	}
	arg := strings.TrimSpace(strings.TrimPrefix(strings.TrimSpace(line), fields[0]))
	switch fields[0] {
	case "exit", "logout":
		return "", true
	case "stty":
		if arg == "size" {
			f.mu.Lock()
			rows, cols := f.rows, f.cols
			f.mu.Unlock()
			return strconv.Itoa(rows) + " " + strconv.Itoa(cols) + "\r\n", false
		}
	case "echo":
		return shellUnquote(arg) + "\r\n", false
	case "printf":
		return strings.ReplaceAll(printfEscapes(shellUnquote(arg)), "\n", "\r\n"), false
	case "sleep":
		if n, err := strconv.ParseFloat(arg, 64); err == nil && n >= 0 && n <= 600 {
			t := time.NewTimer(time.Duration(n * float64(time.Second)))
			defer t.Stop()
			select {
			case <-t.C:
			case <-ctx.Done():
			}
			return "", false
		}
	}
	return pyemu.Prefix + "would run: " + line + "\r\n", false
}

func (f *fakeShell) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if !f.exited {
		f.exited = true
		close(f.exit)
	}
}

// shellUnquote drops one pair of surrounding quotes, as a shell would.
func shellUnquote(s string) string {
	if len(s) >= 2 && (s[0] == '\'' || s[0] == '"') && s[len(s)-1] == s[0] {
		return s[1 : len(s)-1]
	}
	return s
}

// printfEscapes interprets printf's backslash escapes \n \r \t \\ \e and
// \033 (no % conversions).
func printfEscapes(s string) string {
	r := strings.NewReplacer(`\n`, "\n", `\r`, "\r", `\t`, "\t", `\\`, `\`, `\e`, "\x1b", `\033`, "\x1b", `\a`, "\a")
	return r.Replace(s)
}
