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
	if o.runtimeID != "" {
		if err := api.ValidateID(o.runtimeID); err != nil {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: "--id: " + kit.AsAPIError(err).Message}
		}
	}
	requestID, resend := o.requestID, cmd.Flags().Changed("request-id")
	if resend && strings.TrimSpace(requestID) == "" {
		// A script whose id generator failed ($(uuidgen) with no uuidgen)
		// would otherwise create a new runtime on every run.
		return &kit.ExitError{Code: kit.ExitUsage, Msg: "--request-id is empty (did the command that makes the id fail?): give the requestId an earlier create printed, or leave the flag out for a new one"}
	}
	if resend {
		u, err := uuid.Parse(requestID)
		if err != nil || u.Version() != 4 || u.String() != strings.ToLower(requestID) {
			return &kit.ExitError{Code: kit.ExitUsage, Msg: "--request-id must be a UUID4 like 3f1c2b9e-8d4a-4c1e-9b7a-2e5f6a7b8c9d (the one an earlier create printed)"}
		}
		requestID = u.String()
	} else {
		requestID = uuid.NewString()
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
		if specs, tier, err = LoadSpecs(ctx, conn); err != nil {
			return err
		}
		var se *state.SpecError
		if err := state.CheckSpec(specs, spec, tier); errors.As(err, &se) {
			code := kit.ExitQuota
			if se.Problem == state.SpecNotOffered {
				code = kit.ExitUsage
			}
			return &kit.ExitError{Code: code, Msg: termtext.Line(se.Error())}
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

	req := api.CreateRuntimeRequest{Spec: spec, Version: version, RuntimeID: o.runtimeID, RequestID: requestID}
	var rt api.Runtime
	for attempt := 1; ; attempt++ {
		rt, err = conn.Svc.CreateRuntime(ctx, req)
		if err == nil {
			break
		}
		ae := kit.AsAPIError(err)
		switch {
		case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
			return &kit.ExitError{Code: kit.ExitTimeout, Msg: fmt.Sprintf("gave up after --timeout %s; Colab may still create the runtime; %s", o.timeout, rerun)}
		case ctx.Err() != nil:
			return &kit.ExitError{Code: kit.ExitInterrupted, Msg: "interrupted; Colab may still create the runtime; " + rerun}
		case ae == nil:
			return kit.Classify(err, conn.Creds)
		case ae.OutcomeUnknown:
			return &kit.ExitError{Code: kit.ExitAPI, Msg: "outcome unknown: the connection was lost after create_runtime was sent, so a runtime " +
				"may have been created (the same requestId never creates a second); " + rerun}

		}
		if again, wait := state.CreateRetry(ae, attempt); again {
			if wait > 0 {
				v.Note(fmt.Sprintf("%s; retrying %d/%d in %s with the same requestId", termtext.Cut(ae.Error(), 160), attempt+1, state.MaxCreateAttempts, wait.Round(time.Second)))
				select {
				case <-ctx.Done():
					continue // reported above on the next turn
				case <-time.After(wait):
				}
			}
			continue
		}
		return v.createFailed(ae, spec, specs, tier, attempt, conn)
	}
	if o.wait {
		if rt, err = v.waitListed(ctx, conn, rt, o.timeout); err != nil {
			return err
		}
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

// createFailed explains a refused create on stderr, as the dashboard's
// dialog does, and returns the exit code: 5 for a quota, a limit or no
// capacity; else by class.
func (v *verb) createFailed(ae *api.Error, spec api.RuntimeSpecKey, specs []api.RuntimeSpec, tier api.SubscriptionTier, attempts int, conn *kit.Connection) error {
	f := state.ExplainCreateFailure(ae, spec, specs, tier, attempts)
	if f.Kind == state.CreateFailedOther {
		return kit.Classify(ae, conn.Creds)
	}
	v.Note(f.Title + ": " + termtext.Cut(ae.Error(), 200))
	for _, line := range f.Body {
		v.Note(line)
	}
	if f.Kind == state.CreateTooManyRuntimes {
		v.Note("delete one (" + v.G.CommandOr("colabdash status", "status") + " lists them; " +
			v.G.CommandOr("colabdash delete RUNTIME", "delete", "RUNTIME") + "), or wait and create again")
	}
	for _, k := range f.Alternatives {
		if arg, ok := specArg(k); ok {
			if line, ok := v.G.CommandLine("create", "--spec", arg); ok {
				v.Note("try: " + line)
				continue
			}
		}
		v.Note("try the runtimeSpec " + termtext.Cut(k.String(), 60) + " (unusual: no command to paste is printed)")
	}
	code := kit.ExitAPI
	if f.Kind.QuotaOrIneligible() || kit.QuotaOrIneligible(ae) {
		code = kit.ExitQuota
	}
	return &kit.ExitError{Code: code, Msg: ""}
}

// waitListed polls list_runtimes until rt is listed with a connection URL
// (1 s, doubling to 10 s between polls) and returns it as listed.
func (v *verb) waitListed(ctx context.Context, conn *kit.Connection, rt api.Runtime, timeout time.Duration) (api.Runtime, error) {
	delay := time.Second
	for {
		rts, err := conn.Svc.ListRuntimes(ctx)
		if err == nil {
			for _, r := range rts {
				if r.Name == rt.Name && r.ConnectionInfo != nil && r.ConnectionInfo.URL != "" {
					return r, nil
				}
			}
		} else if ae := kit.AsAPIError(err); ae == nil || !ae.Retryable() {
			if ctx.Err() == nil {
				return api.Runtime{}, kit.Classify(err, conn.Creds)
			}
		}
		if v.S.ErrTTY {
			v.Note("waiting for " + termtext.Cut(rt.ID(), 63) + " to be listed with a connection…")
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				status := v.G.CommandOr("colabdash status", "status")
				return api.Runtime{}, &kit.ExitError{Code: kit.ExitTimeout, Msg: fmt.Sprintf("%s was created but is not listed with a connection after --timeout %s; "+
					"%s shows it when it is", termtext.Cut(rt.ID(), 63), timeout, status)}

			}
			return api.Runtime{}, &kit.ExitError{Code: kit.ExitInterrupted, Msg: "interrupted while waiting for " + termtext.Cut(rt.ID(), 63) + " (it was created)"}
		case <-time.After(delay):
		}
		delay = min(2*delay, 10*time.Second)
	}
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
	arg, ok := specArg(spec)
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

// specArg is runtimeSpec k written for --spec ("GPU/T4/STANDARD"); ok is
// false when that text would not parse back to k (an accelerator from a
// server holding a "/", say), so no command may be built from it.
func specArg(k api.RuntimeSpecKey) (string, bool) {
	s := k.String()
	back, err := state.ParseSpec(s)
	return s, err == nil && back == k
}
