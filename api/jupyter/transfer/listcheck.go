package transfer

// Integrity of a remote tree as its listings describe it (issue 18): a
// listing that names an entry twice, or once as a file and once as a
// directory, cannot be copied faithfully, and a directory loop on the
// runtime (a symbolic link to a directory above it, which Jupyter lists
// as a plain directory) would be copied again and again down to the depth
// limit. The recursive download checks each listing here first.

import (
	"crypto/sha256"
	"encoding/binary"
	"sort"
	"strconv"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// listingPrint identifies a listing by what Jupyter says of its entries:
// each one's name, type, size and times, in name order. A directory loop
// shows as a directory whose listing has an ancestor's print: the same
// entries with the same sizes and the same times, down to Jupyter's
// microseconds. (Two real directories share a print only when one holds
// an exact copy of the other's entries, itself included, times kept.)
type listingPrint [sha256.Size]byte

// printOf returns entries' print; ok is false for an empty listing, which
// cannot loop (there is nothing to descend into).
func printOf(entries []proxy.Model) (p listingPrint, ok bool) {
	if len(entries) == 0 {
		return p, false
	}
	idx := make([]int, len(entries))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return entries[idx[a]].Name < entries[idx[b]].Name })
	h := sha256.New()
	var buf [8]byte
	stamp := func(t time.Time) {
		binary.LittleEndian.PutUint64(buf[:], uint64(t.UnixNano()))
		h.Write(buf[:])
	}
	for _, i := range idx {
		e := entries[i]
		h.Write([]byte(strconv.Itoa(len(e.Name))))
		h.Write([]byte{':'})
		h.Write([]byte(e.Name))
		h.Write([]byte(e.Type))
		binary.LittleEndian.PutUint64(buf[:], uint64(e.Size))
		h.Write(buf[:])
		stamp(e.LastModified)
		stamp(e.Created)
	}
	h.Sum(p[:0])
	return p, true
}

// ancestry is the chain of directories a recursive walk is inside, each
// with its listing's print, to catch a loop.
type ancestry struct {
	paths  []string
	prints []listingPrint
}

// enter records that the walk descends into remote, whose listing has
// print p (ok from printOf); it returns the ancestor whose listing p
// repeats ("" when none), and then records nothing.
func (a *ancestry) enter(remote string, p listingPrint, ok bool) string {
	if !ok {
		a.paths, a.prints = append(a.paths, remote), append(a.prints, listingPrint{})
		return ""
	}
	for i, q := range a.prints {
		if q == p {
			return a.paths[i]
		}
	}
	a.paths, a.prints = append(a.paths, remote), append(a.prints, p)
	return ""
}

// leave undoes the last enter that recorded.
func (a *ancestry) leave() {
	a.paths, a.prints = a.paths[:len(a.paths)-1], a.prints[:len(a.prints)-1]
}

// duplicateNames returns the names entries list more than once, with the
// types they were listed as ("file, directory"), or nil when none is.
func duplicateNames(entries []proxy.Model) map[string]string {
	seen := make(map[string]string, len(entries))
	var dups map[string]string
	for _, e := range entries {
		t, ok := seen[e.Name]
		if !ok {
			seen[e.Name] = e.Type
			continue
		}
		if dups == nil {
			dups = map[string]string{}
		}
		if d, ok := dups[e.Name]; ok {
			t = d
		}
		dups[e.Name] = t + ", " + e.Type
	}
	return dups
}

// duplicateText is the warning for a name a listing names twice or more.
func duplicateText(dir, name, types string) string {
	return "skipped /" + proxy.CleanRemote(dir+"/"+name) + ": the runtime's listing names it more than once (as " + types +
		"), so which one it is cannot be told; nothing was written for it"
}

// loopText is the warning for a directory whose listing repeats an
// ancestor's.
func loopText(dir, ancestor string) string {
	return "skipped /" + proxy.CleanRemote(dir) + ": its listing repeats that of /" + proxy.CleanRemote(ancestor) +
		" (a directory loop on the runtime, such as a symbolic link to a directory above it); not copied again"
}

// vet checks remote's listing before the walk copies it. enter is false
// when the listing repeats an ancestor's (a loop: warned once, counted,
// nothing below it is copied); otherwise the walk is inside remote until
// w.anc.leave. dups are the names to skip (each warned once, counted).
func (w *walker) vet(remote string, entries []proxy.Model) (enter bool, dups map[string]string) {
	p, ok := printOf(entries)
	if anc := w.anc.enter(remote, p, ok); anc != "" {
		w.o.warn("%s", loopText(remote, anc))
		w.note(remote, proxy.ErrBadListing)
		return false, nil
	}
	dups = duplicateNames(entries)
	names := make([]string, 0, len(dups))
	for n := range dups {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		w.o.warn("%s", duplicateText(remote, n, dups[n]))
		w.note(remote+"/"+n, proxy.ErrBadListing)
	}
	return true, dups
}
