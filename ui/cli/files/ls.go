package files

import (
	"errors"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api/jupyter"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/spf13/cobra"
)

func lsCmd(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "ls")
	// got is what a failure's --json says of the target: the path once
	// read, the runtime once resolved.
	var got LsJSON
	cmd := &cobra.Command{
		Use:   "ls RUNTIME[:PATH]",
		Short: "List a directory (or show a file) on a runtime",
		Long: "ls lists a directory on a runtime through its Jupyter server (the runtime proxy): size, time\n" +
			"modified and name, directories ending in \"/\". RUNTIME is the id (rt-abc), runtimes/rt-abc or a unique prefix;\n" +
			"PATH is absolute on the runtime when it starts with / (/ is its root, holding content/), else relative\n" +
			"to /content (rt-abc:sample_data is /content/sample_data), and is /content when RUNTIME: has none.\n" +
			"--json names paths absolute (\"/content/x\").\n" +
			"Hidden names (starting with \".\") are not listed by Jupyter.\n" +
			"--json writes the document as the listing arrives, \"ok\" last (a listing that fails midway\n" +
			"ends it with \"ok\": false, \"error\" and the entries that arrived); --jq needs the whole document\n" +
			"and holds the listing in memory first (at most 1,000,000 entries, and --jq's own limits).\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash ls rt-abc\n  colabdash ls rt-abc:sample_data\n  colabdash ls rt-abc:/etc --json",
		Args:    cobra.ExactArgs(1),
		ValidArgsFunction: func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
			if len(args) > 0 {
				return nil, cobra.ShellCompDirectiveNoFileComp
			}
			return v.completeRuntimeColon(cmd, toComplete, true)
		},
		RunE: v.jsonOnFailure(func(cmd *cobra.Command, args []string) error {
			// A bare RUNTIME (no colon) is its default directory,
			// /content; it is resolved like every verb's RUNTIME, so "rt-"
			// and "RT-C" get the same errors as "rt".
			loc := jupyter.Location{Runtime: strings.TrimPrefix(strings.TrimSpace(args[0]), "runtimes/"), Path: "content", Dir: true}
			if strings.Contains(args[0], ":") {
				var err error
				if loc, err = jupyter.ParseLocation(args[0], true); err != nil {
					return &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error()}
				}
			}
			got.Path = absRemote(loc.Path)
			ctx := cmd.Context()
			rf, err := v.openRuntime(ctx, loc.Runtime, "")
			if err != nil {
				return err
			}
			defer rf.conn.Close()
			loc.Runtime = rf.rt.ID()
			got.Runtime = kit.NameOf(loc.Runtime)
			// A directory is listed at once (the listing refuses a
			// file before the server reads it); a file, then, is
			// stat'ed for its one line.
			var m jupyter.Model
			streamed := true
			switch {
			case v.AsJSON && v.S.JSON().Jq != nil:
				// --jq filters the whole document: collected first.
				m, err = rf.jc.List(ctx, loc.Path)
				streamed = false
			case v.AsJSON:
				// Written as it arrives (ls_json.go).
				err = v.lsJSONStream(ctx, rf.jc, loc.Path, LsJSON{Runtime: got.Runtime, Path: absRemote(loc.Path)})
			default:
				// Printed as it arrives (ls_stream.go).
				err = v.lsStream(ctx, rf.jc, loc.Path)
			}
			if errors.Is(err, jupyter.ErrNotDir) {
				if m, err = rf.jc.Stat(ctx, loc.Path); err == nil {
					m.Entries = []jupyter.Model{m}
				}
			} else if err == nil && streamed {
				return nil
			}
			if err != nil {
				return FileError(err, rf)
			}
			if v.AsJSON && streamed {
				return v.lsJSONFile(LsJSON{Runtime: got.Runtime, Path: absRemote(loc.Path)}, m)
			}
			if v.AsJSON {
				return v.WriteJSON(lsReport(loc, m))
			}
			v.Say(listingLine(v.Red(), m))
			return nil
		}, func(env kit.Envelope) any {
			return LsJSON{Envelope: env, Runtime: got.Runtime, Path: got.Path, Entries: []lsEntry{}}
		}),
	}
	v.JSONFlags(cmd, "print JSON: {ok, error, runtime, path, type, entries:[{name, path, type, size, lastModified}]}")
	return cmd
}

// lsEntry is one entry of `ls --json`. Size is -1 for directories;
// LastModified is RFC 3339 UTC ("" when unknown).
type lsEntry struct {
	Name         string `json:"name"`
	Path         string `json:"path"`
	Type         string `json:"type"`
	Size         int64  `json:"size"`
	LastModified string `json:"lastModified"`
}

func lsReport(loc jupyter.Location, m jupyter.Model) any {
	entries := make([]lsEntry, 0, len(m.Entries))
	for _, e := range m.Entries {
		lm := ""
		if !e.LastModified.IsZero() {
			lm = e.LastModified.UTC().Format(time.RFC3339)
		}
		entries = append(entries, lsEntry{Name: e.Name, Path: absRemote(e.Path), Type: e.Type, Size: e.Size, LastModified: lm})
	}
	return LsJSON{Envelope: kit.Envelope{OK: true}, Runtime: kit.NameOf(loc.Runtime), Path: absRemote(loc.Path), Type: m.Type, Entries: entries}
}

// LsJSON is `ls --json`'s output, written as the listing arrives: "ok"
// (and "error") come last, after the entries. On failure OK is false,
// Error says why (redacted), Runtime is the runtime's name (runtimes/ID)
// once resolved and Path the absolute path once read ("" before); Type is
// "" and Entries is [] when the listing failed before its first entry,
// and "directory" and the entries that arrived when it failed midway
// (they were printed already).
type LsJSON struct {
	Runtime kit.RuntimeName `json:"runtime"`
	Path    string          `json:"path"`
	Type    string          `json:"type"`
	Entries []lsEntry       `json:"entries"`
	kit.Envelope
}

// absRemote is kit.AbsRemote; AbsRemoteArg is kit.AbsRemoteArg.
func absRemote(p string) string { return kit.AbsRemote(p) }

// AbsRemoteArg rewrites RUNTIME:PATH with PATH absolute (kit.AbsRemoteArg).
func AbsRemoteArg(s string) string { return kit.AbsRemoteArg(s) }
