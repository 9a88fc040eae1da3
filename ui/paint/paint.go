// Package paint draws a Bubble Tea program's frames on its terminal as
// soon as each frame is ready, instead of on the next tick of a fixed
// frame rate.
//
// Bubble Tea v1's own renderer writes the latest frame on a ticker (the
// dashboard ran it at 20 frames a second), so a key's redraw waited for
// the next tick: 25 ms at the median, up to 50. A Painter has no ticker: a
// frame wakes its goroutine, which writes the lines that changed at once;
// frames that come faster than one per MinGap are merged (the last one
// wins), so a burst of messages still costs one write per MinGap. Idle,
// nothing wakes it.
//
// The program then runs without Bubble Tea's renderer (tea.WithoutRenderer),
// which also leaves the terminal alone, so the Painter does what that
// renderer did: raw mode, the alternate screen, the hidden cursor,
// bracketed paste, the window's size (Start), giving the terminal back to
// another program and taking it again (Release, Restore, Around, Suspend),
// and restoring it at the end (Stop). Wrap puts a model behind it.
//
// A nil *Painter is valid: its commands are Bubble Tea's own and its other
// methods do nothing, for programs that keep Bubble Tea's renderer (tests,
// and Windows, where the Painter does not run: see Supported).
package paint

import (
	"io"
	"os"
	"sync"
	"time"

	tea "github.com/charmbracelet/bubbletea"
	"github.com/charmbracelet/x/term"
)

// MinGap is the least time between two writes of the screen: frames that
// come faster are merged. 8 ms is 120 frames a second, Bubble Tea's own
// ceiling.
const MinGap = 8 * time.Millisecond

// Modes the Painter turns on at Start and Restore and off at Release and
// Stop.
const (
	altScreenOn   = "\x1b[?1049h"
	altScreenOff  = "\x1b[?1049l"
	cursorHide    = "\x1b[?25l"
	cursorShow    = "\x1b[?25h"
	pasteOn       = "\x1b[?2004h"
	pasteOff      = "\x1b[?2004l"
	takeTerminal  = altScreenOn + cursorHide + pasteOn
	leaveTerminal = pasteOff + cursorShow + altScreenOff
)

// Painter draws frames on one terminal. Frame and Resize may be called
// from any goroutine; Start, Release, Restore and Stop from one at a time.
type Painter struct {
	in  *os.File  // the terminal's input: raw mode (nil: left as it is)
	out io.Writer // where frames are written
	fd  uintptr   // out's descriptor when out is a terminal, for its size
	tty bool      // out is a terminal

	mu      sync.Mutex
	frame   string // the newest frame
	pending bool   // frame is not on screen yet
	full    bool   // the next write repaints the whole screen
	w, h    int    // the screen's size in cells (0: unknown)
	held    bool   // released: nothing is written until Restore
	oob     []byte // out-of-band bytes waiting for the terminal (Aside)

	wmu    sync.Mutex  // held while writing to out
	last   []string    // the lines on screen
	orig   *term.State // the input's mode before Start, put back by Release
	raw    bool        // the input is in raw mode
	closed bool        // Stop ran: Restore takes nothing back
	at     time.Time   // the last write

	kick    chan struct{} // a frame is pending (buffered, 1)
	quit    chan struct{}
	stopped chan struct{}
	send    func(tea.Msg)
	unwatch func()
	started bool // Start succeeded: the loop runs
	once    sync.Once
}

// New returns a Painter that reads keys from in (put in raw mode while the
// Painter holds the terminal; nil leaves the input's mode alone) and
// draws on out. Nothing is written before Start.
func New(in *os.File, out io.Writer) *Painter {
	p := &Painter{in: in, out: out, kick: make(chan struct{}, 1), quit: make(chan struct{}), stopped: make(chan struct{})}
	if f, ok := out.(term.File); ok && term.IsTerminal(f.Fd()) {
		p.fd, p.tty = f.Fd(), true
	}
	return p
}

// Start takes the terminal (raw mode, alternate screen, hidden cursor,
// bracketed paste), starts drawing, and sends send the window's size now
// and on every change (as tea.WindowSizeMsg; send is the program's Send,
// which blocks until the program runs, so Start calls it from a goroutine
// of its own). Errors: entering raw mode failed (the terminal is left as
// it was).
func (p *Painter) Start(send func(tea.Msg)) error {
	if p == nil {
		return nil
	}
	p.send = send
	if err := p.take(); err != nil {
		return err
	}
	p.started = true
	go p.loop()
	p.unwatch = watchSignals(p)
	go p.resized()
	return nil
}

// Frame makes frame (lines separated by "\n") the one to draw; it returns
// at once.
func (p *Painter) Frame(frame string) {
	if p == nil {
		return
	}
	p.mu.Lock()
	if frame == p.frame && !p.pending && !p.full {
		p.mu.Unlock()
		return
	}
	p.frame, p.pending = frame, true
	p.mu.Unlock()
	p.wake()
}

// MaxAside bounds the out-of-band bytes kept while the terminal is
// released (4 KiB): beyond it, the newest are dropped.
const MaxAside = 4 << 10

// Aside writes b to the terminal between two frames, never inside one:
// bytes that neither move the cursor nor draw (the bell, an OSC 9 or 777
// notification), which the diff of the next frame does not account for.
// While the terminal is released (a shell or plugin has it) they wait
// for Restore, so nothing reaches the program in the foreground; after
// Stop they are dropped. The caller passes sanitized bytes. A nil
// Painter drops them (see Supported).
func (p *Painter) Aside(b []byte) {
	if p == nil || len(b) == 0 {
		return
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.closed {
		return
	}
	p.mu.Lock()
	held := p.held || !p.started
	if held {
		if len(p.oob)+len(b) <= MaxAside {
			p.oob = append(p.oob, b...)
		}
		p.mu.Unlock()
		return
	}
	p.mu.Unlock()
	_, _ = p.out.Write(b)
}

// resized reads the terminal's size, repaints in full at it and tells the
// program.
func (p *Painter) resized() {
	if !p.tty {
		return
	}
	w, h, err := term.GetSize(p.fd)
	if err != nil {
		return
	}
	p.mu.Lock()
	p.w, p.h, p.full, p.pending = w, h, true, true
	p.mu.Unlock()
	p.wake()
	if p.send != nil {
		p.send(tea.WindowSizeMsg{Width: w, Height: h})
	}
}

// wake tells the loop a frame is pending.
func (p *Painter) wake() {
	select {
	case p.kick <- struct{}{}:
	default:
	}
}

// loop writes each pending frame, at most one write per MinGap, until Stop.
func (p *Painter) loop() {
	defer close(p.stopped)
	for {
		select {
		case <-p.kick:
		case <-p.quit:
			return
		}
		p.wmu.Lock()
		wait := MinGap - time.Since(p.at)
		p.wmu.Unlock()
		if wait > 0 {
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-p.quit:
				t.Stop()
				return
			}
		}
		p.flush()
	}
}

// flush writes the pending frame, unless the terminal is released.
func (p *Painter) flush() {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.mu.Lock()
	if p.held || !p.pending {
		p.mu.Unlock()
		return
	}
	frame, full, w, h := p.frame, p.full, p.w, p.h
	p.pending, p.full = false, false
	p.mu.Unlock()
	next := frameLines(frame, w, h)
	if b := diff(p.last, next, w, full); b != nil {
		_, _ = p.out.Write(b)
		p.at = time.Now()
	}
	p.last = next
}

// take puts the terminal in the Painter's modes and marks the next frame
// a full repaint; after Stop it does nothing. The input's mode before the
// first take is the one Release puts back every time, whatever a program
// that had the terminal meanwhile (a plugin running stty) left. The
// caller holds no lock.
func (p *Painter) take() error {
	p.wmu.Lock()
	defer p.wmu.Unlock()
	if p.closed {
		return nil
	}
	if p.in != nil && term.IsTerminal(p.in.Fd()) {
		st, err := term.MakeRaw(p.in.Fd())
		if err != nil {
			return err
		}
		if p.orig == nil {
			p.orig = st
		}
		p.raw = true
	}
	_, _ = io.WriteString(p.out, takeTerminal+clearAll)
	p.last = nil
	p.mu.Lock()
	if len(p.oob) > 0 { // told while a shell had the terminal
		_, _ = p.out.Write(p.oob)
		p.oob = nil
	}
	p.held, p.full, p.pending = false, true, true
	p.mu.Unlock()
	p.wake()
	return nil
}

// Release gives the terminal back as it was before Start (main screen,
// cursor shown, bracketed paste off, the input's own mode), after any
// write under way; nothing is drawn until Restore. For another program
// that takes the terminal (Around and Suspend call it).
func (p *Painter) Release() {
	if p == nil {
		return
	}
	p.wmu.Lock()
	defer p.wmu.Unlock()
	p.mu.Lock()
	already := p.held
	p.held = true
	p.mu.Unlock()
	if already {
		return
	}
	_, _ = io.WriteString(p.out, leaveTerminal)
	if p.raw {
		_ = term.Restore(p.in.Fd(), p.orig)
		p.raw = false
	}
}

// Restore takes the terminal again after Release and repaints the last
// frame in full at the window's size now (it may have changed meanwhile).
// Errors: as Start's.
func (p *Painter) Restore() error {
	if p == nil {
		return nil
	}
	if err := p.take(); err != nil {
		return err
	}
	go p.resized()
	return nil
}

// Stop ends drawing and restores the terminal (Release); safe to call more
// than once and after a failed Start.
func (p *Painter) Stop() {
	if p == nil {
		return
	}
	p.once.Do(func() {
		if p.unwatch != nil {
			p.unwatch()
		}
		close(p.quit)
		p.wmu.Lock()
		p.closed = true
		p.wmu.Unlock()
		if p.started {
			<-p.stopped
			p.Release()
		}
	})
}
