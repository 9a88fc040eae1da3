package proxy

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Kinds of failure; every *Error wraps exactly one (errors.Is).
var (
	// ErrNotFound: Jupyter answered 404 with a fresh token: the remote
	// path does not exist.
	ErrNotFound = errors.New("no such file or directory")
	// ErrHidden: a 404 for a path with a segment starting with ".": the
	// runtime's Jupyter server neither lists nor serves hidden files.
	ErrHidden = errors.New("no such file, or a hidden file the runtime's Jupyter server does not serve (names starting with \".\"; copy them with exec and tar)")
	// ErrNoParent: the remote parent directory does not exist.
	ErrNoParent = errors.New("the remote directory does not exist")
	// ErrIsDir: a file operation named a directory.
	ErrIsDir = errors.New("is a directory (use -r)")
	// ErrNotDir: a directory operation named a file.
	ErrNotDir = errors.New("is not a directory")
	// ErrExists: the target exists (409 from rename).
	ErrExists = errors.New("already exists")
	// ErrPermission: Jupyter refused the operation (403).
	ErrPermission = errors.New("permission denied")
	// ErrRuntimeGone: get_runtime answered NOT_FOUND: the runtime was
	// deleted or reclaimed, and its files with it.
	ErrRuntimeGone = errors.New("the runtime no longer exists (deleted or reclaimed)")
	// ErrRefused: the proxy kept refusing (bare 404) even after the token
	// was renewed, or the token could not be renewed.
	ErrRefused = errors.New("the runtime proxy refused the request")
	// ErrNoConnection: the runtime has no usable connectionInfo.
	ErrNoConnection = errors.New("the runtime has no proxy connection")
	// ErrCorrupt: a transfer ended with a size other than expected.
	ErrCorrupt = errors.New("size mismatch: the copy is incomplete or corrupt")
	// ErrTooLarge: a download whose size the runtime did not report grew
	// past Options.MaxUnknownSize.
	ErrTooLarge = errors.New("larger than the limit for a file of unknown size")
	// ErrRedirect: the server redirected to another scheme, host or port.
	ErrRedirect = errors.New("redirect to another origin refused")
	// ErrTransport: the connection failed (reset, timeout, DNS…).
	ErrTransport = errors.New("connection failed")
	// ErrServer: any other error status or an unreadable reply.
	ErrServer = errors.New("the Jupyter server failed")
	// ErrLocal: a local file problem (unwritable, disk full, a directory
	// in the way).
	ErrLocal = errors.New("local error")
	// ErrLocalNotFound: a local file or directory does not exist.
	ErrLocalNotFound = errors.New("no such local file or directory")
	// ErrLocalExists: a download would replace a local file the user did
	// not ask to replace (package transfer, without
	// CopyOptions.Overwrite): nothing was written.
	ErrLocalExists = errors.New("would replace a local file")
	// ErrInterrupted: the context ended (Ctrl+C) during a transfer.
	ErrInterrupted = errors.New("interrupted")
	// ErrUnsafeName: a remote name that cannot be written locally safely
	// (empty, ".", "..", a separator, NUL, absolute).
	ErrUnsafeName = errors.New("unsafe remote name")
	// ErrProtected: a remove of the runtime's root, /content itself or
	// another top-level directory (/usr, /etc…), which colabdash refuses
	// (see Removable).
	ErrProtected = errors.New("refusing to remove the root, /content itself or a top-level directory")
	// ErrTopLevel: an upload that would create a file or directory
	// directly in the runtime's root ("/data.csv"), which colabdash
	// refuses since it could not remove it either (see Creatable).
	ErrTopLevel = errors.New("refusing to create a top-level file or directory (colabdash could not remove it); copy into /content/")
	// ErrSkipped: a recursive download (package transfer) copied
	// everything it could but skipped entries the listing named and the
	// server then would not serve; the command fails (exit 1) after the
	// rest is copied.
	ErrSkipped = errors.New("some listed entries were not copied")
	// ErrBadListing: a recursive download (package transfer) skipped
	// entries whose listing cannot be trusted (a name listed twice, a
	// directory loop); each was named in a warning, the rest was copied.
	ErrBadListing = errors.New("the runtime's listings are inconsistent")
	// ErrNotRemoved: a recursive remove the runtime's Jupyter server
	// would not do in one request (it deletes a directory only when it is
	// empty: its trash is off, or the directory or what a link there
	// points to is on another disk than its trash). Removing the entries
	// one by one would go through any symbolic link on the way, which the
	// contents API does not tell from a directory, so nothing is removed
	// (RemoveAll).
	ErrNotRemoved = errors.New("not removed: the runtime's Jupyter server deletes this directory only when empty, and colabdash never deletes entry by entry (it cannot tell a link from a directory there)")
	// ErrLinks: a recursive download (package transfer) of a directory
	// that is itself a symbolic link, or whose links could not be listed
	// on the runtime (the contents API lists a link to a directory as a
	// directory): nothing is copied; -L (CopyOptions.FollowLinks) copies
	// anyway, following them.
	ErrLinks = errors.New("refusing to walk the directory: it is a symbolic link or its links could not be checked")
)

// Error is a failure of one operation on a runtime's files. Its text is
// one line: "OP RUNTIME:/PATH: KIND[: MESSAGE]" ("download
// rt-abc:/content/x.csv: no such file or directory"), the path absolute
// as every dialog and listing writes it, where MESSAGE is the server's
// own (sanitized, secrets redacted).
type Error struct {
	// Op is what was being done: list, stat, download, upload, mkdir,
	// delete, rename, sessions, interrupt, renew, connect.
	Op string
	// Runtime is the runtime id; Path the remote path ("" when none).
	Runtime, Path string
	// Status is the HTTP status, 0 when there was none.
	Status int
	// Kind is one of the Err* values above.
	Kind error
	// Message is extra detail, one line.
	Message string
}

// Error is the one-line text: "OP RUNTIME:/PATH: KIND[: MESSAGE]", the
// path Go-quoted when it holds anything but plain printable text (see
// Text).
func (e *Error) Error() string { return e.Text(quoteIfOdd) }

// Text is Error's line with the remote path rendered by show instead of
// Go-quoted: the dashboard passes ui/termtext's Line, so a name reads as
// it does in its listing. show must make the path safe where the text
// goes; MESSAGE is as in Error.
func (e *Error) Text(show func(string) string) string {
	var b strings.Builder
	b.WriteString(e.Op)
	if e.Runtime != "" || e.Path != "" {
		b.WriteString(" ")
		b.WriteString(e.Runtime)
		if e.Path != "" {
			b.WriteString(":")
			b.WriteString(show("/" + CleanRemote(e.Path))) // absolute, as every path is shown
		}
	}
	b.WriteString(": ")
	if e.Kind != nil {
		b.WriteString(e.Kind.Error())
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	} else if e.Kind == ErrServer && e.Status != 0 {
		fmt.Fprintf(&b, ": HTTP %d", e.Status)
	}
	return b.String()
}

// Where writes a remote path as every message, dialog and listing shows
// it: RUNTIME:/PATH, absolute ("rt-abc:/content/x.csv"; the root is
// "rt-abc:/"), whether p had its leading slash or not. It does not
// sanitize: the caller shows it through its terminal sanitizer.
func Where(runtime, p string) string { return runtime + ":/" + CleanRemote(p) }

// Unwrap returns Kind.
func (e *Error) Unwrap() error { return e.Kind }

// classes are Class's words, by Kind.
var classes = map[error]string{
	ErrNotFound: "not found", ErrHidden: "not found", ErrNoParent: "no parent dir", ErrIsDir: "is a directory",
	ErrNotDir: "not a directory", ErrExists: "exists", ErrPermission: "permission denied",
	ErrRuntimeGone: "runtime gone", ErrRefused: "proxy refused", ErrNoConnection: "no connection",
	ErrCorrupt: "corrupt", ErrTooLarge: "too large", ErrRedirect: "redirect refused", ErrTransport: "network error",
	ErrServer: "server error", ErrLocal: "local error", ErrLocalNotFound: "no local file",
	ErrInterrupted: "interrupted", ErrUnsafeName: "unsafe name", ErrProtected: "refused", ErrTopLevel: "refused", ErrNoKernel: "no kernel",
	ErrSkipped: "incomplete", ErrBadListing: "bad listing", ErrNotRemoved: "refused",
}

// Class is a few words naming the kind of failure, for an event log's
// outcome column: "not found", "local error", "network error",
// "server error", "interrupted"… (one per Kind; "error" for an unknown
// one).
func (e *Error) Class() string {
	if c, ok := classes[e.Kind]; ok {
		return c
	}
	return "error"
}

// quoteIfOdd Go-quotes a name holding anything but printable characters
// and plain spaces (controls, bidirectional overrides, invalid UTF-8), a
// quote, or spaces at its ends, so it reaches a terminal escaped and
// unambiguous.
func quoteIfOdd(s string) string {
	if strings.TrimSpace(s) != s {
		return strconv.Quote(s)
	}
	for i := 0; i < len(s); {
		// ASCII, the common case, is decided without decoding runes
		// (ls prints one name per entry).
		if c := s[i]; c < utf8.RuneSelf {
			if c < ' ' || c == 0x7f || c == '"' {
				return strconv.Quote(s)
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && n == 1 || !unicode.IsPrint(r) {
			return strconv.Quote(s)
		}
		i += n
	}
	return s
}

// DisplayName returns a remote name fit for a terminal: as is when it is
// plain, else Go-quoted with control characters escaped.
func DisplayName(s string) string { return quoteIfOdd(s) }
