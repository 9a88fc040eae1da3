// Package kernel is a client of one Jupyter kernel's channels WebSocket
// (api/kernels/KERNEL/channels on a runtime's Jupyter server), reached
// through the runtime proxy: the socket is opened by a Dialer, normally
// the runtime's *proxy.Client, whose DialWebSocket carries the proxy
// token and the client agent header and renews the token as every other
// request does. This package never dials on its own.
//
// # The protocol
//
// Messages are Jupyter's messaging protocol, version 5.3, as JSON text
// frames: {"header", "parent_header", "metadata", "content", "channel",
// "buffers"}. jupyter_server relays the kernel's shell, iopub, stdin and
// control channels over one socket and names each message's channel.
// Execute sends an execute_request on the shell channel and collects
// what the kernel publishes on iopub for it (the messages whose
// parent_header.msg_id is the request's): stream output (stdout and
// stderr apart), execute_result and display_data text/plain, error
// (ename, evalue, traceback), until the kernel's status for the request
// is idle and its execute_reply has come. Iopub is broadcast to every
// socket open on the kernel, so Options.OnIOPub and Watch see what cells
// run by any other client (a browser, another colabdash) print, from the
// moment the socket opened: nothing from before is replayed.
//
// A message with binary buffers (widgets) comes as a binary frame
// (jupyter_server's layout: a count, offsets, then the parts); its JSON
// part is read and its buffers dropped.
//
// # Bounds
//
// Everything the server sends is untrusted. One message is read up to
// Options.MaxMessage bytes (DefaultMaxMessage, 4 MiB); a larger one is
// read to its end without being kept and counted as skipped (an
// Execute running then reports Truncated). One Execute keeps at most
// Options.MaxOutput bytes of output in all (DefaultMaxOutput, 16 MiB:
// stdout, stderr, result, display text and traceback together); past it
// the rest is dropped and Result.Truncated is set. Dial is bounded by
// Options.DialTimeout (DefaultDialTimeout, 60 s: the proxy's handshake
// timeout plus a token renewal). Text returned (stream output, results,
// tracebacks with their ANSI colours, execute_input code) is the
// kernel's raw text: it reaches a terminal only through the one
// sanitizing path.
package kernel
