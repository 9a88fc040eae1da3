package kit

// JSON documents that more than one verb prints.

// DeleteReport is the JSON of `colabdash delete --json`: one entry per
// distinct argument (a runtime named twice, however written, is one
// entry), in argument order.
type DeleteReport struct {
	Envelope
	Runtimes []DeleteEntry `json:"runtimes"`
}

// DeleteEntry is one runtime argument's outcome. Name is the runtime's
// name ("runtimes/rt-abc"), or the argument as given when no runtime
// matched it; Missing is true when none did; Error is the one-line reason
// it was not deleted ("" when Deleted, or when Missing with
// --ignore-missing).
type DeleteEntry struct {
	Name    string `json:"name"`
	Deleted bool   `json:"deleted"`
	Missing bool   `json:"missing,omitempty"`
	Error   string `json:"error,omitempty"`
}
