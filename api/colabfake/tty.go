package colabfake

import (
	"context"
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/coder/websocket"

	"github.com/colabdash/colabdash/api"
)

// ttyPath is Colab's terminal route below a runtime's proxy URL.
const ttyPath = "colab/tty"

// TTYPrompt is the emulated shell's prompt.
const TTYPrompt = "/content# "

// ttyExpiryPoll is how often an open terminal compares the emulator's
// clock with the expireTime of the token that opened it
// (Options.TTYCloseOnExpiry).
const ttyExpiryPoll = 50 * time.Millisecond

// ttyFrame is a client frame of Colab's terminal protocol: {"data": …}
// or {"cols": N, "rows": M}.
type ttyFrame struct {
	Data *string `json:"data"`
	Cols *int    `json:"cols"`
	Rows *int    `json:"rows"`
}

// ttyBackend is what runs behind one terminal socket: the emulated line
// discipline, or a real shell in a pty (Options.TTYShell).
type ttyBackend interface {
	input(s string)
	resize(cols, rows int)
	// run sends output through out until the shell ends (then it
	// returns) or ctx does.
	run(ctx context.Context, out func(string) error)
	close()
}

// serveTTY is /proxy/{id}/colab/tty, already token-checked: Colab's
// terminal WebSocket (JSON text frames, monitor-and-shell.md §2, §5). By
// default the shell is emulated (fakeShell); with Options.TTYShell it is
// a real one in a pty. With Options.TTYCloseOnExpiry the socket is closed
// with 1008 when the token that opened it (expiring at exp) expires;
// otherwise it stays open, as nobody has measured what Colab does. The
// socket closes with 1000 when the shell exits.
func (s *Server) serveTTY(w http.ResponseWriter, r *http.Request, id string, exp time.Time) {
	var be ttyBackend
	if s.opts.TTYShell {
		b, err := s.startPTYShell(id)
		if err != nil {
			jsonError(w, http.StatusInternalServerError, "starting a shell: %v", err)
			return
		}
		be = b
	} else {
		be = newFakeShell()
	}
	defer be.close()
	c, err := websocket.Accept(w, r, nil)
	if err != nil {
		return
	}
	defer c.CloseNow()
	c.SetReadLimit(1 << 20)
	s.mu.Lock()
	s.ttyOpen++
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.ttyOpen--
		s.mu.Unlock()
	}()
	ctx, cancel := context.WithCancel(s.ctx)
	defer cancel()
	var wmu sync.Mutex
	out := func(data string) error {
		b, _ := json.Marshal(struct {
			Data string `json:"data"`
		}{data})
		wmu.Lock()
		defer wmu.Unlock()
		wctx, wcancel := context.WithTimeout(ctx, 10*time.Second)
		defer wcancel()
		return c.Write(wctx, websocket.MessageText, b)
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		be.run(ctx, out)
	}()
	go func() {
		// A reclaimed runtime takes its shell with it (the socket is cut,
		// no close frame); with TTYCloseOnExpiry, the token's expiry
		// closes it with 1008.
		t := time.NewTicker(ttyExpiryPoll)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			s.mu.Lock()
			gone := s.lookupRuntime(api.RuntimeName(id)) == nil
			s.mu.Unlock()
			if gone {
				_ = c.CloseNow()
				cancel()
				return
			}
			if s.opts.TTYCloseOnExpiry && !s.clock().Before(exp) {
				_ = c.Close(websocket.StatusPolicyViolation, "proxy token expired")
				cancel()
				return
			}
		}
	}()
	go func() {
		select {
		case <-ended:
			_ = c.Close(websocket.StatusNormalClosure, "exit")
		case <-ctx.Done():
		}
		cancel()
	}()
	for {
		_, b, err := c.Read(ctx)
		if err != nil {
			return
		}
		s.mu.Lock()
		s.ttyFrames++
		s.mu.Unlock()
		var f ttyFrame
		if json.Unmarshal(b, &f) != nil {
			continue // not JSON: dropped, as Colab's client drops them
		}
		if f.Cols != nil && f.Rows != nil {
			s.mu.Lock()
			s.ttySizes = append(s.ttySizes, [2]int{*f.Cols, *f.Rows})
			s.mu.Unlock()
			be.resize(*f.Cols, *f.Rows)
		}
		if f.Data != nil {
			be.input(*f.Data)
		}
	}
}

// TTYStats returns how many terminal sockets are open now, how many
// client frames they received in all, and every size ({cols, rows}) the
// clients sent, in order.
func (s *Server) TTYStats() (open, frames int, sizes [][2]int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ttyOpen, s.ttyFrames, append([][2]int(nil), s.ttySizes...)
}

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
			out.WriteString("^C\r\n" + TTYPrompt)
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
	if out(TTYPrompt) != nil {
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
				s = res + TTYPrompt
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
	return EmulatedPrefix + "would run: " + line + "\r\n", false
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

// utf8Chunks turns a byte stream into valid UTF-8 strings for JSON
// frames: a sequence split between two reads is held for the next one.
type utf8Chunks struct{ held []byte }

func (u *utf8Chunks) next(p []byte) string {
	b := append(u.held, p...)
	u.held = nil
	end := len(b)
	for i := len(b) - 1; i >= 0 && i >= len(b)-utf8.UTFMax; i-- {
		if utf8.RuneStart(b[i]) {
			if !utf8.FullRune(b[i:]) {
				end = i
			}
			break
		}
	}
	u.held = append([]byte(nil), b[end:]...)
	return strings.ToValidUTF8(string(b[:end]), "\uFFFD")
}
