//go:build unix

package client

import (
	"net"
	"strconv"
	"syscall"
	"testing"
)

// refusedAddr returns a loopback address ("127.0.0.1:PORT") where every
// connection is refused for the whole test. A TCP socket is bound there
// but never listens, so the kernel refuses each connect, and no other
// program can take the port until the test ends: listening on
// 127.0.0.1:0 and closing would free the port for anyone, and a server
// started there meanwhile would turn "refused" into something else.
func refusedAddr(t *testing.T) string {
	t.Helper()
	fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM, 0)
	if err != nil {
		t.Fatalf("socket for a refused port: %v", err)
	}
	t.Cleanup(func() { _ = syscall.Close(fd) })
	if err := syscall.Bind(fd, &syscall.SockaddrInet4{Addr: [4]byte{127, 0, 0, 1}}); err != nil {
		t.Fatalf("bind 127.0.0.1:0 for a refused port: %v", err)
	}
	sa, err := syscall.Getsockname(fd)
	if err != nil {
		t.Fatalf("getsockname of the refused port: %v", err)
	}
	in4, ok := sa.(*syscall.SockaddrInet4)
	if !ok {
		t.Fatalf("getsockname of the refused port gave %T", sa)
	}
	return net.JoinHostPort("127.0.0.1", strconv.Itoa(in4.Port))
}
