package state

import (
	"github.com/google/uuid"

	"github.com/colabdash/colabdash/api"
)

// PasteID is the one rule for an id a server chose (a runtime, session,
// kernel or terminal id, a job's id) before it is printed inside a
// command or a hint the user may type or paste ("reuse it with --session
// ID", "colabdash rm --purge ID"): an RFC 1034 label (1 to 63 lower-case
// letters, digits and hyphens, starting with a letter and not ending with
// a hyphen: api.ValidateID, the rule Colab applies to ids) or a
// lower-case UUID (the form Colab gives the session ids it generates).
// An id that fails it is named as an id only, never offered as
// something to run. The CLI (kit.PasteID) and the dashboard both use it.
func PasteID(id string) bool {
	if api.ValidateID(id) == nil {
		return true
	}
	u, err := uuid.Parse(id)
	return err == nil && u.String() == id
}
