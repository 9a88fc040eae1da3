package state

import (
	"iter"
	"slices"
	"strings"
)

// SortKey orders the runtimes table.
type SortKey int

// Sort keys. Gone runtimes always sort after listed ones; ties break by name.
const (
	// SortByName orders by runtime name.
	SortByName SortKey = iota
	// SortByExpiry orders by expireTime, soonest first, unknown last.
	SortByExpiry
	// SortByAccelerator orders by variant/accelerator/shape.
	SortByAccelerator
	numSortKeys
)

// String names the key: "name", "expiry" or "accelerator".
func (k SortKey) String() string {
	switch k {
	case SortByExpiry:
		return "expiry"
	case SortByAccelerator:
		return "accelerator"
	}
	return "name"
}

// Next returns the following sort key, wrapping around.
func (k SortKey) Next() SortKey { return (k + 1) % numSortKeys }

// Rows returns the runtimes matching filter, sorted by key. filter is a
// case-insensitive substring matched against the runtime id, its spec
// ("GPU/T4/STANDARD" and the full variant name) and its displayed version
// (DisplayVersion, so "latest" matches an empty version); "" matches
// all. Runtimes the user deleted (Runtime.Deleted) are left out. The slice
// is new; the entries are the snapshot's own.
func (s *Snapshot) Rows(key SortKey, filter string) []*Runtime {
	filter = strings.ToLower(strings.TrimSpace(filter))
	rows := make([]*Runtime, 0, len(s.runtimes))
	for _, r := range s.runtimes {
		if !r.Deleted() && (filter == "" || strings.Contains(r.search, filter)) {
			rows = append(rows, r)
		}
	}
	slices.SortFunc(rows, func(a, b *Runtime) int {
		if ag, bg := a.Gone(), b.Gone(); ag != bg {
			if ag {
				return 1
			}
			return -1
		}
		c := 0
		switch key {
		case SortByExpiry:
			ae, be := a.ExpireTime(), b.ExpireTime()
			switch {
			case ae.IsZero() && !be.IsZero():
				c = 1
			case !ae.IsZero() && be.IsZero():
				c = -1
			default:
				c = ae.Compare(be)
			}
		case SortByAccelerator:
			c = strings.Compare(a.RuntimeSpec.String(), b.RuntimeSpec.String())
		}
		if c == 0 {
			c = strings.Compare(a.Name, b.Name)
		}
		return c
	})
	return rows
}

// All iterates over every runtime known, gone ones included, in no
// particular order.
func (s *Snapshot) All() iter.Seq[*Runtime] {
	return func(yield func(*Runtime) bool) {
		for _, r := range s.runtimes {
			if !yield(r) {
				return
			}
		}
	}
}
