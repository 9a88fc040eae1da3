package run

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/termtext"
)

// maxNotebook bounds the notebook run reads (64 MiB: outputs included).
const maxNotebook = 64 << 20

// ExitRunTimeout is run's exit code when --timeout ended the run (as
// timeout(1)).
const ExitRunTimeout = kit.ExitTimeout

// runOptions are run's flags.
type runOptions struct {
	spec, runtime string
	keep, reap    bool
	detach        bool // --detach: start the job and return
	// deleteWhenDone (--delete-when-done): the note asks watchers to
	// delete the runtime once the detached job ended.
	deleteWhenDone bool
	yes            bool // --yes: run --reap deletes without asking
	force          bool // --force: a --download replaces local files
	uploads        []string
	downloads      []string
	timeout        time.Duration
	output         string
}

// runJob is what run runs: a script (code) or a notebook (nb), read and
// checked before anything is created.
type runJob struct {
	path string   // FILE as given
	name string   // its base name
	args []string // the script's arguments (after --)
	code string   // a script's source
	nb   *ipynb
	out  string // where the executed notebook goes
}

// runDownload is one --download: the runtime path (absolute) and the local
// destination (dir: into it under the remote name).
type runDownload struct {
	kit.Download
	force bool // --force: replace local files
}

// runHelp is run's Long help: one raw string (its lines as printed),
// then the JSON and exit-code notes every verb ends with.
var runHelp = strings.Join([]string{`run runs a Python script or a Jupyter notebook (.ipynb) on a runtime and brings its output back.
With --spec it creates a runtime for the run (one requestId, waited for until listed) and deletes it
when the run ends: success, failure, ctrl+c, SIGTERM, SIGHUP or --timeout (a cost guard, which
deletes it even with --keep). --keep keeps it and prints how to reach it. With --runtime an existing
runtime is used and never deleted; the session a notebook opens is closed. The deletion after a
signal has its own bounded time; a second signal abandons it. A run that creates a runtime is
recorded in the state directory before create_runtime is sent; if the process dies (kill -9), the
next run, status or dashboard says the runtime is still there, and run --reap deletes it: it names
each runtime and asks (y or yes deletes); --yes deletes without asking, and without a terminal --yes
is needed (else exit 2). Records are read only from a state directory that is the user's own and not
writable by others.

--upload PATH files go to /content first. A script runs as a job: python FILE ARGS as a process of
its own on the runtime, in /content (FILE goes there as given when it is a relative path without
"..", else under its base name; __file__ and sys.argv[0] say so), its output followed while it runs:
its stdout and stderr become ours, in the order written (sanitized on a terminal). stdin is
/dev/null on the runtime: input() fails at once (EOFError). exit(n), quit(n) and an exception
(traceback on stderr, exit 1) end it as python does. ctrl+c, SIGTERM, SIGHUP and --timeout stop the
job (its process group) before the runtime is deleted. --detach starts the job and returns at once:
it prints the job's id on stdout and how to follow it (colabdash logs JOB -f, colabdash wait JOB) on
stderr, and notes the job in the state directory. A detached run never deletes the runtime, also
with --spec: colabdash wait JOB --delete does once the job ended. --delete-when-done notes that
intent for whichever colabdash process watches the job (the dashboard, wait, jobs --watch); while
none runs, nothing deletes the runtime and it keeps billing until Colab reclaims it. A notebook runs
cell by cell in one session, one progress line per cell on stderr; the executed notebook with every
cell's outputs (nbformat 4; images and other rich outputs fetched from the runtime) is written to
NAME.out.ipynb or --notebook-out, also when a cell fails, which stops the run and is named. A
notebook whose kernel is not Python is refused before anything is created. --download
RUNTIME_PATH[:LOCAL] (relative paths are under /content; LOCAL defaults to the current directory)
runs after the run, before the runtime is deleted, also after a failure, not after a signal or
--timeout; a missing path exits 7 after a run that succeeded, and a runtime the run created is kept
when a download did not come back.
The exit code is the script's own (0, 1 for an exception, n for sys.exit(n): n may then be any
number, as with python; 128+n when signal n killed it) or 1 for a failed cell; otherwise the table
below (4 also when the runtime could not be deleted). run --detach exits 0 once the job started.`, kit.JSONHelp, kit.ExitCodesHelp}, "\n")

// Command is `colabdash run`: a script or notebook on a runtime, its output brought back.
func Command(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "run")
	var o runOptions
	cmd := &cobra.Command{
		Use:   "run (--spec SPEC | --runtime RUNTIME) [--detach] [flags] FILE [-- ARGS…] | run --reap",
		Short: "Run a script or notebook on a fresh runtime, bring its outputs back, delete the runtime",
		Long:  runHelp,
		Example: "  colabdash run --spec GPU/T4 train.py -- --epochs 3\n" +
			"  colabdash run --spec CPU --upload data.csv --download model.pt --timeout 2h train.py\n" +
			"  colabdash run --runtime rt-abc analysis.ipynb --notebook-out done.ipynb\n" +
			"  colabdash run --spec GPU/T4 --detach train.py   # prints the job id; colabdash logs JOB -f follows it\n" +
			"  colabdash run --reap                 # delete runtimes left by runs that were killed (asks)\n" +
			"  colabdash run --reap --yes --json    # the same in a script",
		Args: func(cmd *cobra.Command, args []string) error {
			dash := cmd.ArgsLenAtDash()
			if o.reap && len(args) > 0 {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "run --reap takes no FILE"}
			}
			if o.reap {
				return nil
			}
			if o.yes {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "--yes goes with --reap (run --reap --yes deletes without asking)"}
			}
			if len(args) == 0 || dash == 0 {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "run needs the FILE to run (a .py script or an .ipynb notebook)"}
			}
			if dash < 0 && len(args) > 1 || dash > 1 {
				return &kit.ExitError{Code: kit.ExitUsage, Msg: "run takes one FILE; put the script's arguments after --, e.g. colabdash run --spec CPU train.py -- --epochs 3"}
			}
			return nil
		},
		ValidArgsFunction: func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
			return nil, cobra.ShellCompDirectiveDefault
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := v.deprecatedOutput(cmd); err != nil {
				return err
			}
			if o.reap {
				return v.reap(cmd, o.yes)
			}
			return v.run(cmd, args, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.spec, "spec", "", "create a runtime of this runtimeSpec for the run, e.g. GPU/T4/STANDARD (see colabdash specs)")
	f.StringVar(&o.runtime, "runtime", "", "run on this existing runtime (never deleted)")
	f.BoolVar(&o.keep, "keep", false, "keep the runtime --spec created (except after --timeout)")
	f.BoolVarP(&o.detach, "detach", "d", false, "start the script as a job, print its id and return (the runtime stays; see colabdash logs, wait, stop)")
	f.BoolVar(&o.deleteWhenDone, "delete-when-done", false, "with --detach: note that the runtime is to be deleted when the job ends (by a colabdash that watches it)")
	f.StringArrayVar(&o.uploads, "upload", nil, "copy this local file or directory to /content before the run (repeatable)")
	f.StringArrayVar(&o.downloads, "download", nil, "RUNTIME_PATH[:LOCAL]: copy back after the run (repeatable)")
	f.BoolVarP(&o.force, "force", "f", false, "with --download: replace local files that exist (else refused before the run starts)")
	kit.DurationVar(f, &o.timeout, "timeout", 0, false, "end the run after this long (from the start, creation included) and delete the runtime; 0: no limit")
	f.StringVar(&o.output, "notebook-out", "", "where the executed notebook goes (default NAME.out.ipynb beside it)")
	// The old name, before -o/--output came to mean a format as in kubectl.
	f.StringVar(&o.output, "output", "", "deprecated: use --notebook-out")
	_ = f.MarkHidden("output")
	f.BoolVar(&o.reap, "reap", false, "delete the runtimes left by runs that did not finish (asking for each on a terminal), then exit")
	f.BoolVarP(&o.yes, "yes", "y", false, "with --reap: delete without asking (needed without a terminal)")
	v.JSONFlags(cmd, "print one JSON summary on stdout (schema: docs/reference/schemas/run.schema.json)")
	_ = cmd.RegisterFlagCompletionFunc("spec", v.CompleteSpecs)
	_ = cmd.RegisterFlagCompletionFunc("runtime", v.CompleteRuntimes)
	return cmd
}

// deprecatedOutput accepts the old --output (now --notebook-out) with one
// warning on stderr, and refuses it beside the new name (exit 2).
func (v *verb) deprecatedOutput(cmd *cobra.Command) error {
	if !cmd.Flags().Changed("output") {
		return nil
	}
	if cmd.Flags().Changed("notebook-out") {
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--output is the old name of --notebook-out: give --notebook-out only"}
	}
	v.Note("--output is deprecated and will be removed; use --notebook-out FILE")
	return nil
}

// demo reports whether the profile is the embedded emulator, whose
// runtimes end with the process (nothing to record or reap).
func (v *verb) demo() bool { return v.G.Profile.Credentials == config.CredentialsDemo }

// loadJob reads and checks FILE and the flags before anything is created.
func loadJob(cmd *cobra.Command, args []string, o runOptions) (*runJob, []runDownload, error) {
	if (o.spec == "") == (o.runtime == "") {
		return nil, nil, &kit.ExitError{Code: kit.ExitUsage, Msg: "give exactly one of --spec SPEC (a new runtime for the run) or --runtime RUNTIME (an existing one)"}
	}
	if o.keep && o.spec == "" {
		return nil, nil, &kit.ExitError{Code: kit.ExitUsage, Msg: "--keep needs --spec: a runtime given with --runtime is never deleted"}
	}
	if err := checkDetach(o); err != nil {
		return nil, nil, err
	}
	j := &runJob{path: args[0], name: filepath.Base(args[0])}
	if cmd.ArgsLenAtDash() == 1 {
		j.args = args[1:]
	}
	p := kit.ExpandHome(j.path)
	if strings.EqualFold(filepath.Ext(p), ".ipynb") {
		b, err := safefile.Read(p, maxNotebook, 0)
		if err != nil {
			return nil, nil, &kit.ExitError{Code: kit.ExitUsage, Msg: "FILE: " + err.Error()}
		}
		if j.nb, err = parseNotebook(b); err != nil {
			return nil, nil, &kit.ExitError{Code: kit.ExitUsage, Msg: fmt.Sprintf("%s: %v", termtext.Cut(j.path, 200), err)}
		}
		if len(j.args) > 0 {
			return nil, nil, &kit.ExitError{Code: kit.ExitUsage, Msg: "a notebook takes no arguments after --"}
		}
		if o.detach {
			return nil, nil, &kit.ExitError{Code: kit.ExitUsage, Msg: "--detach is for scripts: a notebook runs cell by cell in a session run follows"}
		}
		j.out = o.output
		if j.out == "" {
			j.out = strings.TrimSuffix(p, filepath.Ext(p)) + ".out.ipynb"
		}
		if err := checkOutputPath(j.out); err != nil {
			return nil, nil, err
		}
	} else {
		if o.output != "" {
			return nil, nil, &kit.ExitError{Code: kit.ExitUsage, Msg: "--notebook-out is for notebooks (.ipynb); a script's output is its stdout"}
		}
		b, err := safefile.Read(p, kit.MaxCode, 0)
		if err != nil {
			return nil, nil, &kit.ExitError{Code: kit.ExitUsage, Msg: "FILE: " + err.Error()}
		}
		j.code = string(b)
		if strings.TrimSpace(j.code) == "" {
			return nil, nil, &kit.ExitError{Code: kit.ExitUsage, Msg: "FILE is empty: nothing to run"}
		}
	}
	for _, u := range o.uploads {
		if _, err := os.Stat(kit.ExpandHome(u)); err != nil {
			return nil, nil, &kit.ExitError{Code: kit.ExitUsage, Msg: "--upload " + termtext.Cut(u, 200) + ": " + err.Error()}
		}
	}
	var dls []runDownload
	for _, d := range o.downloads {
		dl, err := kit.ParseDownload(d)
		if err != nil {
			return nil, nil, err
		}
		if err := dl.CheckLocal(o.force, "nothing started"); err != nil {
			return nil, nil, err
		}
		dls = append(dls, runDownload{Download: dl, force: o.force})
	}
	return j, dls, nil
}

// checkDetach refuses the flags a detached run cannot honour: it returns
// once the job started, so nothing is downloaded or timed by it, and the
// runtime it leaves to the job is never kept or deleted by it.
func checkDetach(o runOptions) error {
	if o.deleteWhenDone && !o.detach {
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--delete-when-done goes with --detach (a run followed to its end deletes the runtime --spec created)"}
	}
	if !o.detach {
		return nil
	}
	switch {
	case len(o.downloads) > 0:
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--download is not for --detach: fetch the files once the job ended with colabdash wait JOB --download PATH"}
	case o.timeout > 0:
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--timeout is not for --detach: stop the job with colabdash stop JOB"}
	case o.keep:
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--keep is not for --detach: a detached run never deletes the runtime"}
	}
	return nil
}

// checkOutputPath refuses an executed-notebook destination that is a
// symlink or a directory, or whose directory does not exist, before the
// run: the notebook is written there at its end.
func checkOutputPath(p string) error {
	if st, err := os.Lstat(p); err == nil && (st.Mode()&os.ModeSymlink != 0 || st.IsDir()) {
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--notebook-out " + termtext.Cut(p, 200) + " is a symlink or a directory; name a file"}
	}
	if st, err := os.Stat(filepath.Dir(p)); err != nil || !st.IsDir() {
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--notebook-out " + termtext.Cut(p, 200) + ": its directory does not exist"}
	}
	return nil
}
