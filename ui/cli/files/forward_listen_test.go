package files

import (
	"errors"
	"net"
	"strings"
	"syscall"
	"testing"
)

// fakeListen listens on loopback IPv4 for every request (tcp6 included,
// so no IPv6 is needed), except that tcp6 answers busy6 while it is not
// nil; it records what was asked.
type fakeListen struct {
	busy6 error
	asked []string
	open  []net.Listener
}

func (f *fakeListen) listen(network, address string) (net.Listener, error) {
	f.asked = append(f.asked, network+" "+address)
	if network == "tcp6" && f.busy6 != nil {
		return nil, f.busy6
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err == nil {
		f.open = append(f.open, l)
	}
	return l, err
}

// The localhost forward listens on ::1 too; a port another program holds
// on ::1 is refused (a client resolving localhost to ::1 would give that
// program the URL and its token), except that --port 0 tries another
// port; a machine without IPv6 loopback keeps 127.0.0.1 alone.
func TestForwardRefusesAPortTakenOnIPv6Loopback(t *testing.T) {
	lo := net.ParseIP("127.0.0.1")
	f := &fakeListen{}
	lns, err := listenForward(f.listen, lo, 0, true, nil)
	if err != nil || len(lns) != 2 {
		t.Fatalf("free on both: %d listeners, %v", len(lns), err)
	}
	closeAll(lns)

	f = &fakeListen{busy6: syscall.EADDRINUSE}
	if _, err := listenForward(f.listen, lo, 8888, true, nil); err == nil || !strings.Contains(err.Error(), "in use on ::1 by another program") {
		t.Fatalf("a port taken on ::1: %v", err)
	}
	for _, l := range f.open {
		if _, err := l.Accept(); err == nil || !errors.Is(err, net.ErrClosed) {
			t.Fatalf("the IPv4 listener was left open: %v", err)
		}
	}
	f = &fakeListen{busy6: syscall.EADDRINUSE}
	if _, err := listenForward(f.listen, lo, 0, true, nil); err == nil || len(f.asked) != 10 {
		t.Fatalf("--port 0, taken on ::1 every time: %v after %d listens (want five tries of two)", err, len(f.asked))
	}
	f = &fakeListen{busy6: syscall.EADDRNOTAVAIL}
	if lns, err := listenForward(f.listen, lo, 0, true, nil); err != nil || len(lns) != 1 {
		t.Fatalf("no IPv6 loopback: %d listeners, %v", len(lns), err)
	} else {
		closeAll(lns)
	}
}
