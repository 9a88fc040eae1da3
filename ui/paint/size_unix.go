//go:build unix

package paint

import (
	"os"
	"os/signal"
	"syscall"
)

// Supported reports whether the Painter runs on this system: on Unix it
// learns the window's size from SIGWINCH.
const Supported = true

// watchSignals has p follow the window's size (SIGWINCH) and a stop from
// outside (SIGTSTP: kill -TSTP; the dashboard's own ctrl+z is a key, its
// terminal being raw) until the returned stop is called.
func watchSignals(p *Painter) (stop func()) {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGWINCH, syscall.SIGTSTP)
	done := make(chan struct{})
	go func() {
		for {
			select {
			case sig := <-ch:
				if sig == syscall.SIGTSTP {
					p.stopSelf()
				} else {
					p.resized()
				}
			case <-done:
				return
			}
		}
	}()
	return func() { signal.Stop(ch); close(done) }
}

// stopSelf gives the terminal back, stops the process as SIGTSTP would
// have (the shell's job control takes over), and once it is continued
// (SIGCONT: the stop itself takes effect a moment after the signal is
// sent, so nothing is taken back before) takes the terminal again, unless
// another program had it when the signal came (Bubble Tea's own ctrl+z
// sends SIGTSTP too, after the terminal was released).
func (p *Painter) stopSelf() {
	p.mu.Lock()
	held := p.held
	p.mu.Unlock()
	p.Release()
	cont := make(chan os.Signal, 1)
	signal.Notify(cont, syscall.SIGCONT)
	defer signal.Stop(cont)
	_ = syscall.Kill(syscall.Getpid(), syscall.SIGSTOP)
	<-cont
	if !held {
		_ = p.Restore()
	}
}
