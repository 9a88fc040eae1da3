package jupyter

// The names below are those of the packages the client is made of
// (proxy, transfer), kept here so importers name one package.

import (
	"net/http"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
	"github.com/colabdash/colabdash/api/jupyter/transfer"
)

// Header and query names of the Colab runtime proxy (colab-api.md §4).
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
// the proxy package's value itself, documented there.
var (
	ErrNotFound      = proxy.ErrNotFound
	ErrHidden        = proxy.ErrHidden
	ErrNoParent      = proxy.ErrNoParent
	ErrIsDir         = proxy.ErrIsDir
	ErrNotDir        = proxy.ErrNotDir
	ErrExists        = proxy.ErrExists
	ErrPermission    = proxy.ErrPermission
	ErrRuntimeGone   = proxy.ErrRuntimeGone
	ErrRefused       = proxy.ErrRefused
	ErrNoConnection  = proxy.ErrNoConnection
	ErrCorrupt       = proxy.ErrCorrupt
	ErrTooLarge      = proxy.ErrTooLarge
	ErrRedirect      = proxy.ErrRedirect
	ErrTransport     = proxy.ErrTransport
	ErrServer        = proxy.ErrServer
	ErrLocal         = proxy.ErrLocal
	ErrLocalNotFound = proxy.ErrLocalNotFound
	ErrInterrupted   = proxy.ErrInterrupted
	ErrUnsafeName    = proxy.ErrUnsafeName
	ErrProtected     = proxy.ErrProtected
	ErrTopLevel      = proxy.ErrTopLevel
	ErrSkipped       = proxy.ErrSkipped
	ErrBadListing    = proxy.ErrBadListing
	ErrListTooLarge  = proxy.ErrListTooLarge
	ErrNoKernel      = proxy.ErrNoKernel
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

// TrashNote is the one line said after colabdash deleted a file on a
// runtime; purge is the command that empties the trash
// (transfer.TrashNote).
func TrashNote(purge string) string { return transfer.TrashNote(purge) }

// ParsePurged reads PurgeCode's output: the bytes freed, and false when
// stdout is not one number (transfer.ParsePurged).
func ParsePurged(stdout string) (int64, bool) { return transfer.ParsePurged(stdout) }
