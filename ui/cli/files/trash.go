package files

import (
	"context"
	"fmt"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
)

// purgeCommand is the command that empties rf's runtime's trash, for
// jupyter.TrashNote, with the global flags repeated (commandLine); a
// runtime id that is not safe to paste is not put in a command.
func purgeCommand(g *kit.Globals, rf *runtimeFiles) string {
	if id := rf.rt.ID(); kit.PasteID(id) {
		return g.CommandOr("colabdash rm --purge "+rf.id(), "rm", "--purge", id)
	}
	return "colabdash rm --purge with this runtime"
}

// purgeTrash empties the trash of rf's runtime's Jupyter server through
// execute_code (jupyter.PurgeCode), after asking unless
// yes: y or yes confirms. It returns the bytes freed, nil when the user
// said no (then nothing ran).
func (v *verb) purgeTrash(ctx context.Context, rf *runtimeFiles, yes bool) (*int64, error) {
	if !yes {
		ok, err := v.Confirm(ctx, fmt.Sprintf("Empty the trash of runtime %s's Jupyter server? Everything in it is destroyed, "+
			"also files deleted earlier (by colabdash, Colab's file browser or notebooks). [y/N] ", rf.id()), "y", "the trash was not emptied")
		if err != nil {
			return nil, err
		}
		if !ok {
			v.Note("the trash was not emptied")
			return nil, nil
		}
	}
	var n *int64
	err := v.inSession(ctx, rf, "to empty the trash", func(session string) error {
		var err error
		n, err = v.runPurge(ctx, rf, session)
		return err
	})
	return n, err
}

// inSession runs f with a kernel session of colabdash's own on rf's
// runtime, closed again however f ends, as exec --rm does: execute_code
// on a runtime target opened a kernel session and left it open, which
// `colabdash sessions` then listed as not colabdash's. why
// says what the session was opened for ("to empty the trash"), in the
// note about a session that could not be closed. It returns f's error;
// when only the close failed, an *kit.ExitError (ExitAPI) saying so.
func (v *verb) inSession(ctx context.Context, rf *runtimeFiles, why string, f func(session string) error) error {
	se, err := rf.conn.Svc.CreateSession(ctx, rf.rt.Name, state.NewSessionID())
	if err != nil {
		return kit.Classify(err, rf.conn.Creds)
	}
	err = f(se.Name)
	dctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
	defer cancel()
	if derr := rf.conn.Svc.DeleteSession(dctx, se.Name); derr != nil {
		msg := "could not close session " + kit.SessionRef(se.Name) + " (opened " + why + "): " + kit.Classify(derr, rf.conn.Creds).Msg + "; " + v.G.CloseSessionHint(se.Name)
		if err != nil {
			v.Note(msg)
			return err
		}
		return &kit.ExitError{Code: kit.ExitAPI, Msg: msg}
	}
	return err
}

// runPurge runs jupyter.PurgeCode in session and says what it freed.
func (v *verb) runPurge(ctx context.Context, rf *runtimeFiles, session string) (*int64, error) {
	res, err := rf.conn.Svc.ExecuteCode(ctx, api.ExecuteCodeRequest{Session: session, Code: jupyter.PurgeCode})
	if err != nil {
		return nil, kit.Classify(err, rf.conn.Creds)
	}
	if x := res.ExecutionError; x != nil {
		return nil, &kit.ExitError{Code: kit.ExitAPI, Msg: "emptying the runtime's trash failed: " + termtext.Cut(api.OneLine(x.Line(), 0), 200)}
	}
	n, ok := jupyter.ParsePurged(res.Stdout)
	if !ok {
		return nil, &kit.ExitError{Code: kit.ExitAPI, Msg: "emptying the runtime's trash: the code printed no byte count: " + termtext.Cut(api.OneLine(res.Stdout+res.Stderr, 0), 200)}
	}
	if !v.AsJSON {
		v.Say(fmt.Sprintf("emptied the trash of %s's Jupyter server: %s freed", rf.id(), state.FormatBytes(n)))
	}
	return &n, nil
}

// purgeOnly is `rm --purge RUNTIME`: the trash only, nothing removed.
func (v *verb) purgeOnly(ctx context.Context, arg string, yes bool) error {
	rf, err := v.openRuntime(ctx, arg, "")
	if err != nil {
		return err
	}
	defer rf.conn.Close()
	n, err := v.purgeTrash(ctx, rf, yes)
	if v.AsJSON {
		rep := RmReport{Removed: []string{}, Envelope: kit.Envelope{OK: err == nil}, PurgedBytes: n}
		if err != nil {
			rep.Envelope = kit.Failure(FileError(err, rf), v.Red())
		}
		if jerr := v.WriteJSON(rep); jerr != nil && err == nil {
			return jerr
		}
	}
	if err != nil {
		return FileError(err, rf)
	}
	return nil
}
