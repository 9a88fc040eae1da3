package jupyter

// The names below are those of the packages the client is made of
// (proxy, transfer), kept here so importers name one package.

import (
	"net/http"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/api/jupyter/transfer"
)

// Header and query names of the Colab runtime proxy.
const (
	// TokenHeader carries the proxy token on every HTTP request.
	TokenHeader = proxy.TokenHeader
	// AgentHeader names the client; Colab's proxy WebSocket needs it.
	AgentHeader = proxy.AgentHeader
	// Agent is the value colabdash sends in AgentHeader.
	Agent = proxy.Agent
	// TokenQuery carries the proxy token on WebSocket upgrades.
	TokenQuery = proxy.TokenQuery
)

// Defaults applied by New for zero Options fields (see proxy).
const (
	// DefaultRenewLead: renew the token when less than this is left.
	DefaultRenewLead = proxy.DefaultRenewLead
	// DefaultChunkSize is the raw bytes per upload request.
	DefaultChunkSize = proxy.DefaultChunkSize
	// MaxChunkSize is the largest ChunkSize accepted.
	MaxChunkSize = proxy.MaxChunkSize
	// MinChunkSize is the smallest piece an upload is split into after
	// a proxy's 413.
	MinChunkSize = transfer.MinChunkSize
	// DefaultJobs is how many files a recursive copy moves at once
	// (CopyOptions.Jobs 0).
	DefaultJobs = transfer.DefaultJobs
	// MaxJobs bounds CopyOptions.Jobs.
	MaxJobs = transfer.MaxJobs
	// DefaultCallTimeout bounds each JSON call.
	DefaultCallTimeout = proxy.DefaultCallTimeout
	// DefaultIdleTimeout drops a transfer without progress for this long.
	DefaultIdleTimeout = proxy.DefaultIdleTimeout
	// DefaultMaxReply bounds each JSON reply, in bytes.
	DefaultMaxReply = proxy.DefaultMaxReply
	// DefaultMaxUnknownSize bounds a download of unreported size, in bytes.
	DefaultMaxUnknownSize = proxy.DefaultMaxUnknownSize
	// DefaultMaxRetries is how many failed attempts in a row a transfer makes.
	DefaultMaxRetries = proxy.DefaultMaxRetries
	// DefaultMaxEntries bounds one directory listing's entries.
	DefaultMaxEntries = proxy.DefaultMaxEntries
	// DefaultListTimeout bounds one directory listing in time.
	DefaultListTimeout = proxy.DefaultListTimeout
	// DialTimeout bounds one WebSocket handshake through the proxy.
	DialTimeout = proxy.DialTimeout
)

// Model types of the Jupyter contents API.
const (
	TypeFile      = proxy.TypeFile
	TypeDirectory = proxy.TypeDirectory
	TypeNotebook  = proxy.TypeNotebook
)

// PartSuffix is added to a file's name while it is being transferred
// (on the runtime for an upload, beside the local target for a download).
const PartSuffix = transfer.PartSuffix

// Model is a Jupyter contents-API model: one file, notebook or
// directory (proxy.Model).
type Model = proxy.Model

// Error is a failure of one operation on a runtime's files; its Kind is
// one of the Err* values (proxy.Error).
type Error = proxy.Error

// Kernel is a Jupyter kernel as /api/sessions lists it (proxy.Kernel).
type Kernel = proxy.Kernel

// JupyterSession is an entry of /api/sessions (proxy.JupyterSession).
type JupyterSession = proxy.JupyterSession

// Terminal is an entry of /api/terminals (proxy.Terminal).
type Terminal = proxy.Terminal

// Progress is called as a transfer moves: done bytes of total (-1
// unknown) (transfer.Progress).
type Progress = transfer.Progress

// CopyOptions steer UploadPath and DownloadPath (transfer.CopyOptions).
type CopyOptions = transfer.CopyOptions

// FileResult is one file a copy moved (transfer.FileResult).
type FileResult = transfer.FileResult

// Kinds of failure; every *Error wraps exactly one (errors.Is). Each is
// the proxy package's value itself.
var (
	// ErrNotFound: Jupyter answered 404 with a fresh token: the remote
	// path does not exist.
	ErrNotFound = proxy.ErrNotFound
	// ErrHidden: a 404 for a path with a segment starting with ".": the
	// runtime's Jupyter server neither lists nor serves hidden files.
	ErrHidden = proxy.ErrHidden
	// ErrNoParent: the remote parent directory does not exist.
	ErrNoParent = proxy.ErrNoParent
	// ErrIsDir: a file operation named a directory.
	ErrIsDir = proxy.ErrIsDir
	// ErrNotDir: a directory operation named a file.
	ErrNotDir = proxy.ErrNotDir
	// ErrExists: the target exists (409 from rename).
	ErrExists = proxy.ErrExists
	// ErrPermission: Jupyter refused the operation (403).
	ErrPermission = proxy.ErrPermission
	// ErrRuntimeGone: get_runtime answered NOT_FOUND: the runtime was
	// deleted or reclaimed, and its files with it.
	ErrRuntimeGone = proxy.ErrRuntimeGone
	// ErrRefused: the proxy kept refusing (bare 404) even after the
	// token was renewed, or the token could not be renewed.
	ErrRefused = proxy.ErrRefused
	// ErrNoConnection: the runtime has no usable connectionInfo.
	ErrNoConnection = proxy.ErrNoConnection
	// ErrCorrupt: a transfer ended with a size other than expected.
	ErrCorrupt = proxy.ErrCorrupt
	// ErrTooLarge: a download whose size the runtime did not report grew
	// past Options.MaxUnknownSize.
	ErrTooLarge = proxy.ErrTooLarge
	// ErrRedirect: the server redirected to another scheme, host or
	// port.
	ErrRedirect = proxy.ErrRedirect
	// ErrTransport: the connection failed (reset, timeout, DNS…).
	ErrTransport = proxy.ErrTransport
	// ErrServer: any other error status or an unreadable reply.
	ErrServer = proxy.ErrServer
	// ErrLocal: a local file problem (unwritable, disk full, a directory
	// in the way).
	ErrLocal = proxy.ErrLocal
	// ErrLocalNotFound: a local file or directory does not exist.
	ErrLocalNotFound = proxy.ErrLocalNotFound
	// ErrLocalExists: a download would replace a local file and was not
	// told to (CopyOptions.Overwrite): nothing was written.
	ErrLocalExists = proxy.ErrLocalExists
	// ErrInterrupted: the context ended (Ctrl+C) during a transfer.
	ErrInterrupted = proxy.ErrInterrupted
	// ErrUnsafeName: a remote name that cannot be written locally safely
	// (empty, ".", "..", a separator, NUL, absolute).
	ErrUnsafeName = proxy.ErrUnsafeName
	// ErrProtected: a remove of the runtime's root, /content itself or
	// another top-level directory (/usr, /etc…), which colabdash refuses
	// (see Removable).
	ErrProtected = proxy.ErrProtected
	// ErrTopLevel: an upload that would create a file or directory
	// directly in the runtime's root ("/data.csv"), which colabdash
	// refuses since it could not remove it either (see Creatable).
	ErrTopLevel = proxy.ErrTopLevel
	// ErrSkipped: a recursive download copied everything it could but
	// skipped entries the server would not serve.
	ErrSkipped = proxy.ErrSkipped
	// ErrBadListing: a recursive download skipped entries whose listing
	// cannot be trusted (a name listed twice, a directory loop).
	ErrBadListing = proxy.ErrBadListing
	// ErrNotRemoved: a recursive remove the server would only do entry
	// by entry, which colabdash refuses (see RemoveAll).
	ErrNotRemoved = proxy.ErrNotRemoved
	// ErrLinks: a recursive download refused because the directory is a
	// symbolic link or its links could not be checked (proxy.ErrLinks).
	ErrLinks = proxy.ErrLinks
	// ErrListTooLarge: a directory listing passed Options.MaxEntries
	// entries or did not finish within Options.ListTimeout.
	ErrListTooLarge = proxy.ErrListTooLarge
	// ErrNoKernel: no Jupyter session matches the Colab session, so its
	// kernel cannot be interrupted through the proxy.
	ErrNoKernel = proxy.ErrNoKernel
)

// EscapePath percent-encodes each segment of a remote path
// (proxy.EscapePath).
func EscapePath(p string) string { return proxy.EscapePath(p) }

// CleanRemote writes a remote path as Colab documents it, without
// leading, trailing or doubled slashes (proxy.CleanRemote).
func CleanRemote(p string) string { return proxy.CleanRemote(p) }

// CleanPath is a remote path with "." and ".." resolved, never above the
// root (proxy.CleanPath).
func CleanPath(p string) string { return proxy.CleanPath(p) }

// ResolvePath is the one rule for a remote path a user typed: absolute
// on the runtime's root when it starts with "/", else relative to
// /content; "" is /content (proxy.ResolvePath).
func ResolvePath(p string) string { return proxy.ResolvePath(p) }

// Where writes a remote path as every message shows it: RUNTIME:/PATH
// (proxy.Where).
func Where(runtime, p string) string { return proxy.Where(runtime, p) }

// DisplayName returns a remote name fit for a terminal: as is when
// plain, else Go-quoted (proxy.DisplayName).
func DisplayName(s string) string { return proxy.DisplayName(s) }

// Removable is the one rule for what colabdash may remove on a runtime:
// nil, or an ErrProtected *Error (proxy.Removable).
func Removable(runtime, p string) error { return proxy.Removable(runtime, p) }

// Creatable is the rule for what an upload may create: nil, or an
// ErrTopLevel *Error (proxy.Creatable).
func Creatable(runtime, p string) error { return proxy.Creatable(runtime, p) }

// LocalName checks a name that came from the runtime before it becomes a
// local file name: nil, or what is wrong with it (proxy.LocalName).
func LocalName(n string) error { return proxy.LocalName(n) }

// JupyterNotFound reports whether a 404 reply came from the runtime's
// own server rather than from the proxy (proxy.JupyterNotFound).
func JupyterNotFound(h http.Header, body []byte) bool { return proxy.JupyterNotFound(h, body) }

// PurgeCode is the Python that empties the trash of the user a runtime's
// Jupyter server runs as, run through execute_code (`rm --purge`;
// transfer.PurgeCode). ParsePurged reads what it prints.
const PurgeCode = transfer.PurgeCode

// TrashNote is the fix said when an upload failed on a full disk: the
// server's trash may hold deleted files, and purge empties it
// (transfer.TrashNote).
func TrashNote(purge string) string { return transfer.TrashNote(purge) }

// DiskFull reports whether err is the runtime's server saying its disk
// is full (transfer.DiskFull).
func DiskFull(err error) bool { return transfer.DiskFull(err) }

// ParsePurged reads PurgeCode's output: the bytes freed, and false when
// stdout is not one number (transfer.ParsePurged).
func ParsePurged(stdout string) (int64, bool) { return transfer.ParsePurged(stdout) }

// LinkCode is the Python that lists the symbolic links below a directory
// of the runtime's file system, run through execute_code before a
// recursive download (transfer.LinkCode). ParseLinks reads its output.
func LinkCode(root string) (string, error) { return transfer.LinkCode(root) }

// ParseLinks reads LinkCode's output (transfer.ParseLinks): an error
// when it is unreadable, truncated or says the directory could not be read.
func ParseLinks(stdout string) (Links, error) { return transfer.ParseLinks(stdout) }

// Links is what LinkCode found below a directory (transfer.Links).
type Links = transfer.Links

// LinkCheck lists the symbolic links below a remote directory
// (CopyOptions.Links; transfer.LinkCheck).
type LinkCheck = transfer.LinkCheck
