// Package api holds the Colab API's data types, the one error type every
// failure becomes, and the Service interface the dashboard talks to.
//
// It deliberately imports no MCP library: the pure domain (package state)
// uses these types without linking the transport. The MCP client lives in
// api/client, Google auth in api/auth and the embedded emulator in
// api/colabfake.
//
// Every type mirrors the JSON (lowerCamelCase) of the Colab MCP server's
// tools, as Colab documents it. Unknown fields are
// ignored; unknown enum values are kept as they came.
package api

import (
	"encoding/json"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jsonnum"
)

// Variant is RuntimeSpec.Key.variant. It is an open
// string type: a value the dashboard does not know is kept and shown as is.
type Variant string

// Known Variant values.
const (
	VariantUnspecified Variant = "VARIANT_UNSPECIFIED"
	VariantCPU         Variant = "VARIANT_CPU"
	VariantGPU         Variant = "VARIANT_GPU"
	VariantTPU         Variant = "VARIANT_TPU"
)

// Short returns the variant without its prefix ("GPU" for VARIANT_GPU), or
// the raw value for an unknown variant.
func (v Variant) Short() string { return strings.TrimPrefix(string(v), "VARIANT_") }

// Shape is RuntimeSpec.Key.shape, an open string type.
type Shape string

// Known Shape values.
const (
	ShapeUnspecified Shape = "SHAPE_UNSPECIFIED"
	ShapeStandard    Shape = "SHAPE_STANDARD"
	ShapeHighMem     Shape = "SHAPE_HIGHMEM"
)

// Short returns the shape without its prefix ("HIGHMEM" for SHAPE_HIGHMEM),
// or the raw value for an unknown shape.
func (s Shape) Short() string { return strings.TrimPrefix(string(s), "SHAPE_") }

// SubscriptionTier is Subscription.tier, an open string
// type.
type SubscriptionTier string

// Known SubscriptionTier values.
const (
	TierUnspecified SubscriptionTier = "SUBSCRIPTION_TIER_UNSPECIFIED"
	TierFree        SubscriptionTier = "SUBSCRIPTION_TIER_FREE"
	TierPro         SubscriptionTier = "SUBSCRIPTION_TIER_PRO"
	TierProPlus     SubscriptionTier = "SUBSCRIPTION_TIER_PRO_PLUS"
)

// Label is the tier as a person says it: "Free", "Pro", "Pro+", or the raw
// value for a tier this version does not know ("unknown" when empty).
func (t SubscriptionTier) Label() string {
	switch t {
	case TierFree:
		return "Free"
	case TierPro:
		return "Pro"
	case TierProPlus:
		return "Pro+"
	case "", TierUnspecified:
		return "unknown"
	}
	return string(t)
}

// AcceleratorNone is the accelerator of CPU runtime specs.
const AcceleratorNone = "NONE"

// RuntimeSpecKey is RuntimeSpec.Key: the variant, accelerator and shape that
// identify a machine configuration. Accelerator is a
// free string ("T4", "A100", "V6E1", "NONE" …).
type RuntimeSpecKey struct {
	Variant     Variant `json:"variant"`
	Accelerator string  `json:"accelerator"`
	Shape       Shape   `json:"shape"`
}

// AcceleratorName is the accelerator as the dashboard names it: NONE
// when Colab left it empty.
func (k RuntimeSpecKey) AcceleratorName() string {
	if k.Accelerator == "" {
		return AcceleratorNone
	}
	return k.Accelerator
}

// String renders the key compactly, e.g. "GPU/T4/STANDARD" or "CPU/HIGHMEM"
// (the accelerator is left out when it is NONE or empty).
func (k RuntimeSpecKey) String() string {
	parts := []string{k.Variant.Short()}
	if k.Accelerator != "" && k.Accelerator != AcceleratorNone {
		parts = append(parts, k.Accelerator)
	}
	parts = append(parts, k.Shape.Short())
	return strings.Join(parts, "/")
}

// RuntimeSpec is one entry of list_runtime_specs. A
// missing eligible field decodes as false (proto3 JSON omits false).
type RuntimeSpec struct {
	Key      RuntimeSpecKey `json:"key"`
	Eligible bool           `json:"eligible,omitempty"`
}

// ConnectionInfo is Runtime.connectionInfo.
//
// URL is the runtime's Jupyter server behind Colab's proxy; Token is the
// short-lived proxy token (a bearer credential: never log or persist it);
// ExpireTime is when Token expires, decoded leniently from RFC 3339 (see
// ParseExpireTime). A zero ExpireTime means "unknown" (absent or invalid on
// the wire), never year 1. Endpoint is Colab-internal and usually absent.
type ConnectionInfo struct {
	URL        string    `json:"url,omitempty"`
	Token      string    `json:"token,omitempty"`
	ExpireTime time.Time `json:"-"`
	Endpoint   string    `json:"endpoint,omitempty"`
}

type connectionInfoWire struct {
	URL        string          `json:"url,omitempty"`
	Token      string          `json:"token,omitempty"`
	ExpireTime json.RawMessage `json:"expireTime,omitempty"`
	Endpoint   string          `json:"endpoint,omitempty"`
}

// UnmarshalJSON decodes connectionInfo, turning an absent, empty or invalid
// expireTime into the zero time ("unknown") instead of failing.
func (c *ConnectionInfo) UnmarshalJSON(b []byte) error {
	var w connectionInfoWire
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	*c = ConnectionInfo{URL: w.URL, Token: w.Token, Endpoint: w.Endpoint}
	var s string
	if len(w.ExpireTime) > 0 && json.Unmarshal(w.ExpireTime, &s) == nil {
		c.ExpireTime, _ = ParseExpireTime(s)
	}
	return nil
}

// MarshalJSON encodes connectionInfo with expireTime in RFC 3339 UTC
// (nanosecond precision, trailing zeros dropped), omitted when unknown.
func (c ConnectionInfo) MarshalJSON() ([]byte, error) {
	w := connectionInfoWire{URL: c.URL, Token: c.Token, Endpoint: c.Endpoint}
	if !c.ExpireTime.IsZero() {
		w.ExpireTime, _ = json.Marshal(c.ExpireTime.UTC().Format(time.RFC3339Nano))
	}
	return json.Marshal(w)
}

// ParseExpireTime parses an RFC 3339 timestamp as Colab sends expireTime:
// any UTC offset ("Z", "+05:45"), 0 to 9 fractional digits, and, leniently,
// a lowercase "t"/"z" or a space instead of "T". More than 9
// fractional digits are truncated to nanoseconds. It returns ok=false (and
// the zero time) for an empty or unparseable value; it never panics.
func ParseExpireTime(s string) (t time.Time, ok bool) {
	s = strings.TrimSpace(s)
	if len(s) < len("2006-01-02T15:04:05Z") {
		return time.Time{}, false
	}
	b := []byte(s)
	if b[10] == 't' || b[10] == ' ' {
		b[10] = 'T'
	}
	if b[len(b)-1] == 'z' {
		b[len(b)-1] = 'Z'
	}
	// (time.Parse truncates a fraction longer than nanoseconds itself.)
	t, err := time.Parse(time.RFC3339Nano, string(b))
	if err != nil || t.Year() < 1970 {
		return time.Time{}, false
	}
	return t, true
}

// Runtime is a Colab managed runtime.
//
// Name is "runtimes/{runtime_id}". ConnectionInfo is nil when the server
// left it out. Version is the runtime image version ("" means latest).
type Runtime struct {
	Name           string          `json:"name"`
	RuntimeSpec    RuntimeSpecKey  `json:"runtimeSpec"`
	ConnectionInfo *ConnectionInfo `json:"connectionInfo,omitempty"`
	Version        string          `json:"version,omitempty"`
}

// ID returns the runtime_id part of Name ("r-abc" for "runtimes/r-abc").
func (r Runtime) ID() string { return LastSegment(r.Name) }

// ExpireTime returns the proxy token's expireTime, or the zero time when it
// is unknown.
func (r Runtime) ExpireTime() time.Time {
	if r.ConnectionInfo == nil {
		return time.Time{}
	}
	return r.ConnectionInfo.ExpireTime
}

// Session is a Jupyter kernel session on a runtime.
// Name is "runtimes/{runtime}/sessions/{session}".
type Session struct {
	Name string `json:"name"`
}

// ID returns the session_id part of Name.
func (s Session) ID() string { return LastSegment(s.Name) }

// Parent returns the runtime name part of Name ("runtimes/r1").
func (s Session) Parent() string {
	if i := strings.Index(s.Name, "/sessions/"); i >= 0 {
		return s.Name[:i]
	}
	return ""
}

// Subscription is the user's Colab subscription. Name
// is always "subscription".
type Subscription struct {
	Name string           `json:"name,omitempty"`
	Tier SubscriptionTier `json:"tier"`
}

// ExecuteCodeResult is execute_code's result.
// ExecutionCount is Jupyter's In[N], informational only.
type ExecuteCodeResult struct {
	ExecutionID        string        `json:"executionId,omitempty"`
	Session            string        `json:"session,omitempty"`
	ExecutionCount     jsonnum.Int   `json:"executionCount,omitempty"`
	Stdout             string        `json:"stdout,omitempty"`
	Stderr             string        `json:"stderr,omitempty"`
	Result             string        `json:"result,omitempty"`
	ExecutionError     *ExecuteError `json:"executionError,omitempty"`
	OutputTruncated    bool          `json:"outputTruncated,omitempty"`
	RichOutputsDropped bool          `json:"richOutputsDropped,omitempty"`
	RichOutputs        []RichOutput  `json:"richOutputs,omitempty"`
}

// ExecuteError is ExecuteCodeResult.ExecutionError: the exception the code
// raised. Traceback frames may contain ANSI colour codes.
type ExecuteError struct {
	Name      string   `json:"name,omitempty"`
	Value     string   `json:"value,omitempty"`
	Traceback []string `json:"traceback,omitempty"`
}

// Line is the exception as Python's last traceback line says it: "Name:
// Value", or Name alone when Value is empty ("KeyboardInterrupt", not
// "KeyboardInterrupt: "). It is unsanitized server text.
func (e *ExecuteError) Line() string {
	if e.Value == "" {
		return e.Name
	}
	return e.Name + ": " + e.Value
}

// RichOutput is one rich output bundle written to the runtime's disk.
// SizeBytes is an int64 carried as a JSON string.
type RichOutput struct {
	Index     jsonnum.Int `json:"index,omitempty"`
	MimeTypes []string    `json:"mimeTypes,omitempty"`
	FilePath  string      `json:"filePath,omitempty"`
	SizeBytes string      `json:"sizeBytes,omitempty"`
	ErrorInfo *ErrorInfo  `json:"errorInfo,omitempty"`
}

// Operation is a google.longrunning.Operation.
// create_runtime may answer with a finished Operation whose Response is the
// Runtime or whose Error is the failure.
type Operation struct {
	Name     string          `json:"name,omitempty"`
	Done     bool            `json:"done,omitempty"`
	Error    *Status         `json:"error,omitempty"`
	Response json.RawMessage `json:"response,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// CreateRuntimeRequest is what create_runtime sends.
//
// Spec is required. Version is optional ("" = latest). RuntimeID is
// optional and must pass ValidateID (RFC 1034). RequestID is a UUID4; the
// client fills one in when empty and keeps it across all retries of the
// call, so a retry can never create a second runtime.
type CreateRuntimeRequest struct {
	Spec      RuntimeSpecKey
	Version   string
	RuntimeID string
	RequestID string
}

// ExecuteCodeRequest is what execute_code sends.
//
// Exactly one of Session ("runtimes/r/sessions/s") and Runtime
// ("runtimes/r", runs in a new session) is set. ExecutionID is a UUID4
// that makes the call resumable; the client fills one in for Session
// targets when empty and re-sends it on DEADLINE_EXCEEDED or UNAVAILABLE.
type ExecuteCodeRequest struct {
	Session     string
	Runtime     string
	Code        string
	ExecutionID string
}

// LastSegment returns what follows the last "/" of a resource name.
func LastSegment(name string) string {
	if i := strings.LastIndexByte(name, '/'); i >= 0 {
		return name[i+1:]
	}
	return name
}

// RuntimeName returns "runtimes/{id}" for an id, or the argument unchanged
// when it already is a runtime name.
func RuntimeName(id string) string {
	if strings.HasPrefix(id, "runtimes/") {
		return id
	}
	return "runtimes/" + id
}
