package runtimes

import (
	"context"
	"errors"
	"fmt"
	"github.com/colabdash/colabdash/api/plural"
	"sort"
	"strings"

	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/ui/cli/kit"
)

// batch is what delete and session close share: the distinct targets
// their arguments name, each acted on and reported once however often
// (and however it is written) it is named, the question before acting,
// the per-target lines, the JSON report and the exit code.
type batch struct {
	v     *verb
	items []*batchItem
	byKey map[string]*batchItem
	res   kit.Outcomes
}

// batchItem is one distinct target.
type batchItem struct {
	pos     int    // the first argument naming it: the report is in argument order
	name    string // its full name ("runtimes/rt-abc", "runtimes/rt-abc/sessions/s"), or the argument when it names none; the key
	ref     string // how lines name it ("rt-abc", "rt-abc/s"), ready for the terminal
	detail  string // the rest of its line in the question
	act     bool   // to be acted on once the question is answered
	done    bool   // acted on successfully
	missing bool   // delete: the argument matched no runtime
	err     string // why it was not acted on, or why acting failed
}

func newBatch(v *verb) *batch { return &batch{v: v, byKey: map[string]*batchItem{}} }

// add returns the item named name, and whether it is new: a target named
// again adds nothing, and the caller reports nothing for it.
func (b *batch) add(pos int, name string) (*batchItem, bool) {
	if it, ok := b.byKey[name]; ok {
		it.pos = min(it.pos, pos)
		return it, false
	}
	it := &batchItem{pos: pos, name: name}
	b.byKey[name] = it
	b.items = append(b.items, it)
	return it, true
}

// fail records that it is not acted on because of e, noted on stderr.
func (b *batch) fail(it *batchItem, e *kit.ExitError) {
	it.err = e.Msg
	b.res.Fail(e)
	if !b.v.AsJSON {
		b.v.Note(e.Msg)
	}
}

// skip records it as a success that needs no call, saying line.
func (b *batch) skip(it *batchItem, line string) {
	b.res.Succeed()
	if !b.v.AsJSON {
		b.v.Say(line)
	}
}

// target marks it to be acted on; ref and detail make its question line.
func (b *batch) target(it *batchItem, ref, detail string) {
	it.act, it.ref, it.detail = true, ref, detail
}

// ordered returns the items in argument order.
func (b *batch) ordered() []*batchItem {
	items := append([]*batchItem(nil), b.items...)
	sort.SliceStable(items, func(i, j int) bool { return items[i].pos < items[j].pos })
	return items
}

// targets returns the items to act on, in argument order.
func (b *batch) targets() []*batchItem {
	var ts []*batchItem
	for _, it := range b.ordered() {
		if it.act {
			ts = append(ts, it)
		}
	}
	return ts
}

// question is what confirm asks: Header (with %d for the number of
// targets), one line per target, then "Type WANT to VERB (anything else
// cancels): ". Undone ends the interrupted error ("nothing was deleted"),
// Cancelled is the whole error for any other answer. Refuse (with %s)
// is the usage error when there is no terminal to ask on. Header and
// refuse get the count of targets with noun, in the right number, for %s.
type question struct {
	header, want, verb, undone, cancelled, refuse, noun string
}

// Why a target was not acted on when the question was not answered yes;
// the JSON report says it per target.
const (
	notConfirmed    = "not confirmed: no terminal to ask on (pass --yes)"
	notConfirmedNo  = "not confirmed: the answer was not yes"
	notConfirmedInt = "not confirmed: interrupted at the question"
)

// confirm asks q about the targets unless yes (or there are none): only
// the answer q.want goes on (exit code 1 otherwise, 130 on ctrl+c).
// Without a terminal it refuses (exit code 2), counting only the
// targets: the arguments that named nothing were already reported. When
// it returns an error, no target is acted on and each one's error says
// why (see stop).
func (b *batch) confirm(ctx context.Context, yes bool, q question) error {
	ts := b.targets()
	if yes || len(ts) == 0 {
		return nil
	}
	unconfirmed := func(why string) {
		for _, it := range ts {
			it.act, it.err = false, why
		}
	}
	if !b.v.CanPrompt() {
		unconfirmed(notConfirmed)
		return &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf(q.refuse, plural.Count(len(ts), q.noun))}
	}
	var s strings.Builder
	fmt.Fprintf(&s, q.header+"\n", plural.Count(len(ts), q.noun))
	for _, it := range ts {
		fmt.Fprintf(&s, "  %s%s\n", it.ref, it.detail)
	}
	s.WriteString("Type " + q.want + " to " + q.verb + " (anything else cancels): ")
	ok, err := b.v.Confirm(ctx, s.String(), q.want, q.undone)
	if err != nil {
		unconfirmed(notConfirmedInt)
		return err
	}
	if !ok {
		unconfirmed(notConfirmedNo)
		return &kit.ExitError{Code: kit.ExitFailure, Msg: q.cancelled}
	}
	return nil
}

// act calls do once for each target, in argument order: a failure is the
// line "REF: why" on stderr, a success "DONE REF" on stdout.
func (b *batch) act(ctx context.Context, do func(ctx context.Context, name string) error, creds *auth.Credentials, done string) {
	for _, it := range b.targets() {
		if err := do(ctx, it.name); err != nil {
			ee := kit.Classify(err, creds)
			it.err = ee.Msg
			b.res.Fail(ee)
			if !b.v.AsJSON {
				b.v.Note(it.ref + ": " + ee.Msg)
			}
			continue
		}
		it.done = true
		b.res.Succeed()
		if !b.v.AsJSON {
			b.v.Say(done + " " + it.ref)
		}
	}
}

// finish prints the JSON report, built by report from the items in
// argument order with their errors redacted, and returns the verb's
// result: 0 when every target succeeded, 7 (partial) when some did and some did
// not, else the first failure's code.
func (b *batch) finish(report func(items []*batchItem, env kit.Envelope) any) error {
	return b.stop(b.res.Err(), report)
}

// stop prints the JSON report as finish does and returns err: the verb
// ends with err (a refused or cancelled confirmation) but, with --json,
// still says what became of each argument.
func (b *batch) stop(err error, report func(items []*batchItem, env kit.Envelope) any) error {
	if b.v.AsJSON {
		items := b.ordered()
		for _, it := range items {
			it.err = b.v.Red().Redact(it.err)
		}
		env := kit.Envelope{OK: err == nil}
		if err != nil {
			env = kit.Failure(err, b.v.Red())
			var ee *kit.ExitError
			if errors.As(err, &ee) && ee.Msg == "" {
				failed := 0
				for _, it := range items {
					if !it.done {
						failed++
					}
				}
				env.Error.Message = fmt.Sprintf("%d of %s failed (see each one's error)", failed, plural.Count(len(items), "target"))
			}
		}
		if werr := b.v.WriteJSON(report(items, env)); werr != nil {
			return werr
		}
	}
	return err
}
