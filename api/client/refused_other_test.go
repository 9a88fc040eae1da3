//go:build !unix

package client

import (
	"net"
	"testing"
)

// refusedAddr returns a loopback address ("127.0.0.1:PORT") where nothing
// listens. Without the Unix socket calls the port is found by listening
// and closing, so another program could take it meanwhile (rare); on Unix
// refused_unix_test.go holds the port for the whole test.
func refusedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}
