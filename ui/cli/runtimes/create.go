package runtimes

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/cli/kit"
	"github.com/colabdash/colabdash/ui/ops"
	"github.com/colabdash/colabdash/ui/report"
	"github.com/colabdash/colabdash/ui/termtext"
)

// CreateReport is the JSON of `colabdash create --json`: the runtime as
// `status --json` shows it, and the requestId the create was sent with.
type CreateReport struct {
	kit.Envelope
	report.Runtime
	RequestID string `json:"requestId"`
}

// createOptions are create's flags.
type createOptions struct {
	spec, variant, accelerator, shape string
	last                              bool
	version, runtimeID, requestID     string
	wait                              bool
	timeout                           time.Duration
}

// CreateCommand is `colabdash create`.
func CreateCommand(g *kit.Globals, s *kit.Streams) *cobra.Command {
	v := newVerb(g, s, "create")
	var o createOptions
	cmd := &cobra.Command{
		Use:   "create (--spec SPEC | --variant V [--accelerator A] [--shape S] | --last)",
		Short: "Create a runtime",
		Long: "create calls create_runtime with one requestId (a UUID4) for every re-send, printed on stderr\n" +
			"before anything is sent: if the command dies or the connection drops, run it again with\n" +
			"--request-id and Colab returns the same runtime instead of making a second.\n" +
			"Without --wait it returns once create_runtime has answered; with --wait, once list_runtimes\n" +
			"shows the runtime with a connection URL. A spec your tier is not eligible for, a quota or a\n" +
			"limit exits 5 with the reason and what to try instead.\n" + kit.JSONHelp + "\n" + kit.ExitCodesHelp,
		Example: "  colabdash create --spec GPU/T4/STANDARD --wait\n" +
			"  colabdash create --variant CPU --shape HIGHMEM --json | jq -r .name\n" +
			"  colabdash create --last                      # like the last runtime created here or in the dashboard\n" +
			"  id=$(cat /proc/sys/kernel/random/uuid) || exit; colabdash create --spec CPU --request-id \"$id\" || colabdash create --spec CPU --request-id \"$id\"",
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return v.create(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.spec, "spec", "", "runtimeSpec as VARIANT/ACCELERATOR/SHAPE, e.g. GPU/T4/STANDARD, CPU/HIGHMEM (see colabdash specs)")
	f.StringVar(&o.variant, "variant", "", "variant: CPU, GPU or TPU")
	f.StringVar(&o.accelerator, "accelerator", "", "accelerator, e.g. T4, A100, V6E1 (NONE for CPU)")
	f.StringVar(&o.shape, "shape", "", "shape: STANDARD (default) or HIGHMEM")
	f.BoolVar(&o.last, "last", false, "the spec and version of the last runtime created (by this command or the dashboard)")
	f.StringVar(&o.version, "version", "", "runtime image version (default: latest)")
	f.StringVar(&o.runtimeID, "id", "", "runtime id to ask for (RFC 1034: 1-63 lower-case letters, digits, hyphens); default: Colab picks")
	f.StringVar(&o.requestID, "request-id", "", "requestId (UUID4) of an earlier create to re-send identically; default: a new one")
	f.BoolVar(&o.wait, "wait", false, "return once the runtime is listed with a connection URL")
	kit.DurationVar(f, &o.timeout, "timeout", 15*time.Minute, false, "give up waiting after this long; 0: no limit (the runtime may still be created: re-run with --request-id)")
	v.JSONFlags(cmd, "print JSON (schema: docs/scripting.md)")
	_ = cmd.RegisterFlagCompletionFunc("spec", v.CompleteSpecs)
	return cmd
}

// createSpec is the runtimeSpec and version the flags ask for.
func (o createOptions) createSpec() (api.RuntimeSpecKey, string, error) {
	fields := o.variant != "" || o.accelerator != "" || o.shape != ""
	given := 0
	for _, b := range []bool{o.spec != "", fields, o.last} {
		if b {
			given++
		}
	}
	if given != 1 {
		return api.RuntimeSpecKey{}, "", &kit.ExitError{Code: kit.ExitUsage, Msg: "give exactly one of --spec SPEC, --variant V [--accelerator A] [--shape S], or --last (colabdash specs lists the specs)"}
	}
	version := o.version
	var (
		k   api.RuntimeSpecKey
		err error
	)
	switch {
	case o.spec != "":
		k, err = state.ParseSpec(o.spec)
	case fields:
		if o.variant == "" {
			return api.RuntimeSpecKey{}, "", &kit.ExitError{Code: kit.ExitUsage, Msg: "--accelerator and --shape need --variant"}
		}
		k, err = state.SpecFromFields(o.variant, o.accelerator, o.shape)
	default:
		ls, lerr := kit.LoadLastSpec(kit.StateDir())
		if lerr != nil {
			return api.RuntimeSpecKey{}, "", &kit.ExitError{Code: kit.ExitUsage, Msg: "--last: no last spec remembered yet (create one with --spec first): " + lerr.Error()}
		}
		k = ls.Spec
		if version == "" {
			version = ls.Version
		}
	}
	if err != nil {
		return api.RuntimeSpecKey{}, "", &kit.ExitError{Code: kit.ExitUsage, Msg: err.Error()}
	}
	return k, version, nil
}

func (v *verb) create(cmd *cobra.Command, o createOptions) error {
	spec, version, err := o.createSpec()
	if err != nil {
		return err
	}
	requestID, resend, err := o.requestIDFor(cmd)
	if err != nil {
		return err
	}
	ctx := cmd.Context()
	if o.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.timeout)
		defer cancel()
	}
	conn, err := v.Connect(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()

	rerun := rerunCreate(v.G, cmd, spec, version, o, requestID)
	// A re-sent request skips the eligibility check: the first send may
	// itself have used up the quota the check would now see.
	var (
		specs []api.RuntimeSpec
		tier  api.SubscriptionTier
	)
	if !resend {
		if specs, tier, err = v.checkSpec(ctx, conn, spec); err != nil {
			return err
		}
	}
	v.Note("requestId " + requestID + ": if this command dies or is cut off, the same requestId gets the same runtime, never a second; " + rerun)
	if v.G.Profile.Credentials != config.CredentialsDemo && !resend {
		// As the dashboard: remembered for --last and the dashboard's quick
		// create, but never a demo spec for the real account.
		if err := kit.SaveLastSpec(kit.StateDir(), &kit.LastSpec{Spec: spec, Version: version}); err != nil {
			v.Note("could not remember the spec for --last: " + err.Error())
		}
	}

	req := ops.CreateRequest{CreateRuntimeRequest: api.CreateRuntimeRequest{Spec: spec, Version: version, RuntimeID: o.runtimeID, RequestID: requestID}}
	if o.runtimeID == "" {
		// What was listed before: after a lost reply, a new runtime of the
		// spec is this create's.
		req.Known = ops.Known(ctx, conn.Svc)
	}
	// The rule is state's; create's presentation: notes on stderr, and a
	// re-send after a lost reply left to the user (exit 4 with the line).
	res, err := ops.Create(ctx, conn.Svc, req, ops.CreateOptions{Progress: v.createProgress})
	if err != nil {
		return v.createError(ctx, err, o, rerun, spec, specs, tier, conn)
	}
	rt, err := v.settle(ctx, conn, req.CreateRuntimeRequest, res.Runtime, o)
	if err != nil {
		return err
	}
	if v.AsJSON {
		return v.WriteJSON(CreateReport{Envelope: kit.Envelope{OK: true}, Runtime: report.NewRuntime(rt, nil, nil, time.Now(), false), RequestID: requestID})
	}
	v.Say(fmt.Sprintf("created %s (%s, version %s)", termtext.Cut(rt.ID(), 63), termtext.Cut(rt.RuntimeSpec.String(), 60), termtext.Cut(orLatest(rt.Version), 40)))
	if ci := rt.ConnectionInfo; ci != nil && ci.URL != "" {
		v.Say("url " + termtext.Line(ci.URL))
	}
	return nil
}

// settle is what create does with the runtime create_runtime answered
// with: refused (exit 4, neither waited for nor reported) when it is not
// the runtime --id asked for (state.CheckCreated), else waited for with
// --wait (kit.Verb.WaitListed).
func (v *verb) settle(ctx context.Context, conn *kit.Connection, req api.CreateRuntimeRequest, rt api.Runtime, o createOptions) (api.Runtime, error) {
	if err := state.CheckCreated(req, rt); err != nil {
		return api.Runtime{}, &kit.ExitError{Code: kit.ExitAPI, Msg: termtext.Line(err.Error())}
	}
	if o.wait {
		return v.WaitListed(ctx, conn, rt, o.timeout)
	}
	return rt, nil
}

// requestIDFor checks --id and --request-id and returns the requestId to
// send: the one given (resend true) or a new UUID4.
func (o createOptions) requestIDFor(cmd *cobra.Command) (requestID string, resend bool, err error) {
	if o.runtimeID != "" {
		if err := api.ValidateID(o.runtimeID); err != nil {
			return "", false, &kit.ExitError{Code: kit.ExitUsage, Msg: "--id: " + kit.AsAPIError(err).Message}
		}
	}
	if !cmd.Flags().Changed("request-id") {
		return uuid.NewString(), false, nil
	}
	if strings.TrimSpace(o.requestID) == "" {
		// A script whose id generator failed ($(uuidgen) with no uuidgen)
		// would otherwise create a new runtime on every run.
		return "", true, &kit.ExitError{Code: kit.ExitUsage, Msg: "--request-id is empty (did the command that makes the id fail?): give the requestId an earlier create printed, or leave the flag out for a new one"}
	}
	u, perr := uuid.Parse(o.requestID)
	if perr != nil || u.Version() != 4 || u.String() != strings.ToLower(o.requestID) {
		return "", true, &kit.ExitError{Code: kit.ExitUsage, Msg: "--request-id must be a UUID4 like 3f1c2b9e-8d4a-4c1e-9b7a-2e5f6a7b8c9d (the one an earlier create printed)"}
	}
	return u.String(), true, nil
}

// checkSpec loads the specs and the tier and refuses a spec the account
// may not create: exit 2 when Colab does not offer it, 5 when the tier is
// not eligible.
func (v *verb) checkSpec(ctx context.Context, conn *kit.Connection, spec api.RuntimeSpecKey) ([]api.RuntimeSpec, api.SubscriptionTier, error) {
	specs, tier, err := LoadSpecs(ctx, conn)
	if err != nil {
		return nil, "", err
	}
	var se *state.SpecError
	if err := state.CheckSpec(specs, spec, tier); errors.As(err, &se) {
		code := kit.ExitQuota
		if se.Problem == state.SpecNotOffered {
			code = kit.ExitUsage
		}
		return nil, "", &kit.ExitError{Code: code, Msg: termtext.Line(se.Error())}
	}
	return specs, tier, nil
}

// createProgress is create's presentation of the rule's steps: a note on
// stderr for every wait before a re-send, the re-list after a lost reply
// and what it found.
func (v *verb) createProgress(ev ops.CreateEvent) {
	switch ev.Kind {
	case ops.CreateResending:
		if ev.Wait > 0 && ev.Err != nil {
			v.Note(fmt.Sprintf("%s; retrying %d/%d in %s with the same requestId", termtext.Cut(ev.Err.Error(), 160), ev.Attempt+1, state.MaxCreateAttempts, state.FormatCountdown(ev.Wait)))
		}
	case ops.CreateRelisting:
		v.Note("the connection was lost after create_runtime was sent: listing the runtimes before anything is sent again")
	case ops.CreateFoundListed:
		v.Note("found " + termtext.Cut(ev.Runtime.ID(), 63) + " listed: the lost create made it (nothing sent again)")
	}
}

// createError is create's exit after ops.Create gave up: 124 for
// --timeout, 130 when interrupted (both: Colab may still create the
// runtime), 4 with the line that re-sends the same requestId when the
// outcome stays unknown, else the explained refusal (kit.Verb.CreateFailed).
func (v *verb) createError(ctx context.Context, err error, o createOptions, rerun string, spec api.RuntimeSpecKey, specs []api.RuntimeSpec, tier api.SubscriptionTier, conn *kit.Connection) error {
	var ce *ops.CreateError
	switch {
	case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &kit.ExitError{Code: kit.ExitTimeout, Msg: fmt.Sprintf("gave up after --timeout %s; Colab may still create the runtime; %s", o.timeout, rerun)}
	case ctx.Err() != nil:
		return &kit.ExitError{Code: kit.ExitInterrupted, Msg: "interrupted; Colab may still create the runtime; " + rerun}
	case !errors.As(err, &ce) || ce.Decision.Err == nil:
		return kit.Classify(err, conn.Creds)
	case ce.Decision.Step == state.CreateUnknown:
		return &kit.ExitError{Code: kit.ExitAPI, Msg: "outcome unknown: the connection was lost after create_runtime was sent, so a runtime " +
			"may have been created (the same requestId never creates a second); " + rerun}
	}
	return v.CreateFailed(ce.Decision.Err, spec, specs, tier, ce.Attempts, conn)
}

func orLatest(version string) string {
	if version == "" {
		return "latest"
	}
	return version
}

// rerunCreate says how to get the runtime a create with requestID makes
// if the command dies: the same create with --request-id (spec, version,
// --id, --wait and --json as given), as a line to paste.
func rerunCreate(g *kit.Globals, cmd *cobra.Command, spec api.RuntimeSpecKey, version string, o createOptions, requestID string) string {
	prose := "re-run the same create with --request-id " + requestID
	arg, ok := kit.SpecArg(spec)
	if !ok {
		return prose
	}
	args := []string{"create", "--spec", arg}
	if version != "" {
		args = append(args, "--version", version)
	}
	if o.runtimeID != "" {
		args = append(args, "--id", o.runtimeID)
	}
	if o.wait {
		args = append(args, "--wait")
	}
	if f := cmd.Flags().Lookup("json"); f != nil && f.Changed && f.Value.String() == "true" {
		args = append(args, "--json")
	}
	line, ok := g.CommandLine(append(args, "--request-id", requestID)...)
	if !ok {
		return prose
	}
	return "to get it, run: " + line
}
