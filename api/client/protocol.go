package client

import (
	"encoding/json"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/colabdash/colabdash/api/safefile"
)

// ProtocolFile is the file, in Options.StateDir, where the client
// remembers which MCP protocol each endpoint answered with, so the next
// start skips a round trip: against a classic (2025-11-25) server the
// server/discover probe known to fail, against a stateless (2026-07-28)
// server server/discover itself, whose answer (the version, the server's
// name, version and capabilities) is remembered instead. It holds
// endpoint URLs (without user info, query or fragment), protocol versions,
// what the server said about itself, and times; no secret.
const ProtocolFile = "protocols.json"

// ProtocolMemoryTTL is how long a remembered protocol is trusted; after it
// the endpoint is probed again (24 h). A version error probes at once.
const ProtocolMemoryTTL = 24 * time.Hour

// statelessProtocol is the first MCP version without the initialize
// handshake (server/discover instead).
const statelessProtocol = "2026-07-28"

// maxProtocolFile bounds the read of ProtocolFile (64 KiB); maxEndpoints
// bounds how many endpoints it keeps (the oldest go first).
const (
	maxProtocolFile = 64 << 10
	maxEndpoints    = 32
)

// protocolRecord is what is remembered about one endpoint. ServerName
// and ServerVersion are what a stateless server's server/discover said
// about it (at most maxServerInfo bytes each, else not kept), so a later
// start need not ask again. Its capabilities are not kept: nothing in
// colabdash reads them, and go-sdk only to subscribe to list changes,
// which colabdash does not.
type protocolRecord struct {
	ProtocolVersion string    `json:"protocolVersion"`
	Stateful        bool      `json:"stateful,omitempty"`
	ServerName      string    `json:"serverName,omitempty"`
	ServerVersion   string    `json:"serverVersion,omitempty"`
	CheckedAt       time.Time `json:"checkedAt"`
}

// maxServerInfo bounds a remembered server name or version (bytes), so a
// server cannot fill ProtocolFile past maxProtocolFile.
const maxServerInfo = 256

// stateless reports whether the record is of a server without the
// initialize handshake.
func (r protocolRecord) stateless() bool { return r.ProtocolVersion >= statelessProtocol }

// withServerInfo returns r with the server's name and version, each kept
// when it is at most maxServerInfo bytes.
func (r protocolRecord) withServerInfo(name, version string) protocolRecord {
	if len(name) <= maxServerInfo {
		r.ServerName = name
	}
	if len(version) <= maxServerInfo {
		r.ServerVersion = version
	}
	return r
}

// discoverResult is the server/discover answer the record stands for.
func (r protocolRecord) discoverResult() *mcp.DiscoverResult {
	res := &mcp.DiscoverResult{SupportedVersions: []string{r.ProtocolVersion}, Capabilities: &mcp.ServerCapabilities{}}
	if r.ServerName != "" || r.ServerVersion != "" {
		res.Meta = mcp.Meta{mcp.MetaKeyServerInfo: &mcp.Implementation{Name: r.ServerName, Version: r.ServerVersion}}
	}
	return res
}

type protocolFile struct {
	Endpoints map[string]protocolRecord `json:"endpoints"`
}

// protocolMemory reads and writes ProtocolFile. A nil *protocolMemory
// remembers nothing. Failures to read or write are not errors: the client
// then probes as if it had never connected.
type protocolMemory struct {
	path string
	now  func() time.Time
	mu   sync.Mutex // serialises read-modify-write of the file
}

func newProtocolMemory(dir string, now func() time.Time) *protocolMemory {
	if dir == "" {
		return nil
	}
	return &protocolMemory{path: filepath.Join(dir, ProtocolFile), now: now}
}

// endpointKey is the endpoint as stored: scheme, host and path only, so
// an API key in a query or a password in the URL never reaches the file.
func endpointKey(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return ""
	}
	return u.Scheme + "://" + u.Host + u.Path
}

func (m *protocolMemory) read() protocolFile {
	pf := protocolFile{Endpoints: map[string]protocolRecord{}}
	// A regular file, bounded in size and time (a FIFO in its place must
	// not hang the connect).
	b, err := safefile.Read(m.path, maxProtocolFile, 0)
	if err != nil {
		return pf
	}
	var got protocolFile
	if json.Unmarshal(b, &got) == nil && got.Endpoints != nil {
		pf = got
	}
	return pf
}

// lookup returns what endpoint answered with, if it was recorded less
// than ProtocolMemoryTTL ago.
func (m *protocolMemory) lookup(endpoint string) (protocolRecord, bool) {
	if m == nil {
		return protocolRecord{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	rec, ok := m.read().Endpoints[endpointKey(endpoint)]
	if !ok || rec.ProtocolVersion == "" {
		return protocolRecord{}, false
	}
	if age := m.now().Sub(rec.CheckedAt); age < 0 || age >= ProtocolMemoryTTL {
		return protocolRecord{}, false
	}
	return rec, true
}

// remember records what endpoint answered with (rec, CheckedAt aside),
// now.
func (m *protocolMemory) remember(endpoint string, rec protocolRecord) {
	m.update(endpoint, &rec)
}

// forget drops what is remembered about endpoint.
func (m *protocolMemory) forget(endpoint string) { m.update(endpoint, nil) }

func (m *protocolMemory) update(endpoint string, rec *protocolRecord) {
	if m == nil {
		return
	}
	key := endpointKey(endpoint)
	if key == "" {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	pf := m.read()
	if rec == nil {
		if _, ok := pf.Endpoints[key]; !ok {
			return
		}
		delete(pf.Endpoints, key)
	} else {
		rec.CheckedAt = m.now().UTC()
		pf.Endpoints[key] = *rec
	}
	for len(pf.Endpoints) > maxEndpoints {
		oldest := ""
		for k, r := range pf.Endpoints {
			if oldest == "" || r.CheckedAt.Before(pf.Endpoints[oldest].CheckedAt) {
				oldest = k
			}
		}
		delete(pf.Endpoints, oldest)
	}
	_ = writeFileAtomic(m.path, pf)
}

// writeFileAtomic writes v as JSON to path (directory 0700, file 0600,
// through a temporary file and a rename).
func writeFileAtomic(path string, v any) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return safefile.WriteAtomic(path, append(b, '\n'), 0o600)
}

// codeUnsupportedProtocolVersion is MCP's UnsupportedProtocolVersionError
// (SEP-2575).
const codeUnsupportedProtocolVersion = -32022

// isVersionError reports whether err says the server does not speak the
// protocol version the client used: a JSON-RPC -32022, or any error (an
// HTTP 400 body, the go-sdk's own check) that says so in words.
func isVersionError(err error) bool {
	if err == nil {
		return false
	}
	var we *jsonrpc.Error
	if errors.As(err, &we) && we.Code == codeUnsupportedProtocolVersion {
		return true
	}
	var he *httpStatusError
	if errors.As(err, &he) && (he.RPC != nil && he.RPC.Code == codeUnsupportedProtocolVersion ||
		strings.Contains(strings.ToLower(string(he.Body)), "protocol version")) {
		return true
	}
	return strings.Contains(strings.ToLower(err.Error()), "protocol version")
}
