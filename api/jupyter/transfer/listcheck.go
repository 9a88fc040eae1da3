package transfer

// Integrity of a remote tree as its listings describe it: a
// listing that names an entry twice, or once as a file and once as a
// directory, cannot be copied faithfully, and a directory loop on the
// runtime (a symbolic link to a directory above it, which Jupyter lists
// as a plain directory) would be copied again and again down to the depth
// limit. The recursive download checks each listing here first.

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/colabdash/colabdash/api/jupyter/proxy"
)

// listingPrint identifies a listing by what Jupyter says of its entries:
// each one's name, type, size and times, in a canonical order (that of
// their encodings), so that the order the runtime lists them in does not
// matter, even for a name listed twice. A directory loop shows as a
// directory whose listing has an ancestor's print: the same entries with
// the same sizes and the same times, down to Jupyter's microseconds. (Two
// real directories share a print only when one holds an exact copy of the
// other's entries, itself included, times kept.)
type listingPrint [sha256.Size]byte

// printOf returns entries' print; ok is false for an empty listing, which
// cannot loop (there is nothing to descend into).
func printOf(entries []proxy.Model) (p listingPrint, ok bool) {
	if len(entries) == 0 {
		return p, false
	}
	// Entry i's encoding is buf[at[i]:at[i+1]].
	var buf []byte
	at := make([]int, len(entries)+1)
	stamp := func(t time.Time) { buf = binary.LittleEndian.AppendUint64(buf, uint64(t.UnixNano())) }
	for i, e := range entries {
		buf = strconv.AppendInt(buf, int64(len(e.Name)), 10)
		buf = append(buf, ':')
		buf = append(buf, e.Name...)
		buf = append(buf, e.Type...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(e.Size))
		stamp(e.LastModified)
		stamp(e.Created)
		at[i+1] = len(buf)
	}
	recs := make([][]byte, len(entries))
	for i := range recs {
		recs[i] = buf[at[i]:at[i+1]]
	}
	slices.SortFunc(recs, bytes.Compare)
	h := sha256.New()
	for _, r := range recs {
		h.Write(r)
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
	if w.noLoops {
		ok = false // recorded, never compared: no listing can loop
	}
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

// What a recursive download did not copy, and the error it ends with.

// skip is one entry a recursive download did not copy: its remote path
// and why, as the error kind the download ends with (proxy.ErrLocal: refused
// for what is in its place locally; proxy.ErrSkipped: the server would not
// serve it; proxy.ErrBadListing: the listing named it twice or looped).
type skip struct {
	remote string
	kind   error
}

// note records an entry that was not copied, after its warning: the
// walk goes on, and incomplete makes the download fail at the end.
func (w *walker) note(remote string, kind error) {
	w.skipped = append(w.skipped, skip{remote, kind})
}

// refuse warns that an entry was refused locally (e names it: a link or
// something else in its place below the destination) and records it.
func (w *walker) refuse(e *proxy.Error) {
	w.o.warn("not copied: %s", e.Error())
	w.note(e.Path, proxy.ErrLocal)
}

// skip reports whether a failure to copy the listed entry remote is one
// the rest of a recursive download goes on after: Jupyter itself
// answered that the entry it had just listed does not exist (deleted
// meanwhile, a dangling or unreadable link; a 404 fingerprinted as
// Jupyter's) or that it may not read it.
// Such an entry gets one warning naming it and is recorded for the error
// the download ends with. Any other failure (network, runtime gone, a
// local error) stops the walk.
func (w *walker) skip(remote string, err error) bool {
	var je *proxy.Error
	if !errors.As(err, &je) || (je.Kind != proxy.ErrNotFound && je.Kind != proxy.ErrHidden && je.Kind != proxy.ErrPermission) {
		return false
	}
	why := "the runtime's Jupyter server listed it but answers that it does not exist (deleted meanwhile, or a link it cannot follow)"
	if je.Kind == proxy.ErrPermission {
		why = "the runtime's Jupyter server listed it but may not read it (permission denied)"
	}
	w.o.warn("skipped %s:%s: %s", w.c.id, proxy.DisplayName("/"+proxy.CleanRemote(remote)), why)
	w.note(remote, proxy.ErrSkipped)
	return true
}

// incomplete is the error a recursive download of src ends with when
// entries were not copied (nil when none were): one line counting them
// and naming the first few, of the first one's kind (each was warned
// about as it happened).
func (w *walker) incomplete(src string) error {
	if len(w.skipped) == 0 {
		return nil
	}
	remotes := make([]string, 0, len(w.skipped))
	for _, s := range w.skipped {
		remotes = append(remotes, s.remote)
	}
	return &proxy.Error{Op: "download", Runtime: w.c.id, Path: src, Kind: w.skipped[0].kind, Message: notCopiedText(w.c.id, len(w.skipped), remotes)}
}
