package cli

// Why this file is over 400 lines: create's flags, eligibility, request-id and --wait paths belong together.

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/google/uuid"
	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui"
	"github.com/colabdash/colabdash/ui/termtext"
)

// verbCommands are the scriptable verbs: specs, create, delete, sessions,
// session open/close, exec, url, token and run.
func verbCommands(g *globalFlags, s *streams) []*cobra.Command {
	return []*cobra.Command{specsCmd(g, s), createCmd(g, s), deleteCmd(g, s), sessionsCmd(g, s), sessionCmd(g, s),
		execCmd(g, s), urlCmd(g, s), tokenCmd(g, s), runCmd(g, s)}
}

// exitCodesHelp ends the Long help of every verb.
const exitCodesHelp = "Exit codes: 0 ok, 1 the code failed (exec) or some targets failed, 2 usage, 3 credentials or\n" +
	"permission, 4 network or server, 5 quota, limit or ineligible spec, 128 + the signal that ended it\n" +
	"(130 ctrl+c, 143 SIGTERM, 129 SIGHUP)."

// specsReport is the JSON of `colabdash specs --json`.
type specsReport struct {
	Subscription ui.StatusSubscription `json:"subscription"`
	RuntimeSpecs []specEntry           `json:"runtimeSpecs"`
}

// specEntry is one runtimeSpec: Spec is the short form --spec takes
// ("GPU/T4/STANDARD").
type specEntry struct {
	Spec        string             `json:"spec"`
	RuntimeSpec api.RuntimeSpecKey `json:"runtimeSpec"`
	Eligible    bool               `json:"eligible"`
}

// loadSpecs calls list_runtime_specs and get_subscription together. A
// failed get_subscription leaves the tier unknown; a failed
// list_runtime_specs is the error.
func loadSpecs(ctx context.Context, conn *connection) ([]api.RuntimeSpec, api.SubscriptionTier, error) {
	var (
		wg  sync.WaitGroup
		sub api.Subscription
	)
	wg.Add(1)
	go func() {
		defer wg.Done()
		sub, _ = conn.svc.GetSubscription(ctx)
	}()
	specs, err := conn.svc.ListRuntimeSpecs(ctx)
	wg.Wait()
	if err != nil {
		return nil, "", classify(err, conn.creds)
	}
	return specs, sub.Tier, nil
}

func specsCmd(g *globalFlags, s *streams) *cobra.Command {
	v := newVerb(g, s, "specs")
	cmd := &cobra.Command{
		Use:   "specs",
		Short: "List the runtime specs and whether you may create each",
		Long: "specs calls list_runtime_specs and prints every runtimeSpec (variant/accelerator/shape) with\n" +
			"whether your tier is eligible for it, as the dashboard's picker does. The SPEC column is what\n" +
			"create --spec takes.\n" + exitCodesHelp,
		Example: "  colabdash specs\n  colabdash specs --json | jq -r '.runtimeSpecs[] | select(.eligible) | .spec'",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			conn, err := v.connect(cmd.Context())
			if err != nil {
				return err
			}
			defer conn.close()
			specs, tier, err := loadSpecs(cmd.Context(), conn)
			if err != nil {
				return err
			}
			rep := specsReport{Subscription: ui.StatusSubscription{Tier: tier}, RuntimeSpecs: make([]specEntry, 0, len(specs))}
			for _, sp := range specs {
				rep.RuntimeSpecs = append(rep.RuntimeSpecs, specEntry{Spec: sp.Key.String(), RuntimeSpec: sp.Key, Eligible: sp.Eligible})
			}
			if v.asJSON {
				return v.writeJSON(rep)
			}
			st := v.style(s.out, s.outTTY)
			dim := st.NewStyle().Faint(true)
			v.say(fmt.Sprintf("Colab %s · %d runtime spec(s)", termtext.Cut(tier.Label(), 40), len(specs)))
			if len(specs) == 0 {
				return nil
			}
			var buf bytes.Buffer
			tw := tabwriter.NewWriter(&buf, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "\nSPEC\tELIGIBLE")
			for _, sp := range specs {
				fmt.Fprintf(tw, "%s\t%s\n", termtext.Cut(sp.Key.String(), 60), eligibleCell(sp.Eligible, tier))
			}
			tw.Flush()
			for _, line := range strings.Split(strings.TrimRight(buf.String(), "\n"), "\n") {
				line = strings.TrimRight(line, " ")
				if strings.HasSuffix(line, eligibleCell(false, tier)) {
					v.sayStyled(&dim, line)
					continue
				}
				v.say(line)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&v.asJSON, "json", false, "print JSON (schema in README, Scripting)")
	return cmd
}

func eligibleCell(eligible bool, tier api.SubscriptionTier) string {
	if eligible {
		return "yes"
	}
	return "no, " + termtext.Cut(state.IneligibleNote(tier), 60)
}

// createReport is the JSON of `colabdash create --json`: the runtime as
// `status --json` shows it, and the requestId the create was sent with.
type createReport struct {
	ui.StatusRuntime
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

func createCmd(g *globalFlags, s *streams) *cobra.Command {
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
			"limit exits 5 with the reason and what to try instead.\n" + exitCodesHelp,
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
	durationVar(f, &o.timeout, "timeout", 15*time.Minute, false, "give up waiting after this long; 0: no limit (the runtime may still be created: re-run with --request-id)")
	f.BoolVar(&v.asJSON, "json", false, "print JSON (schema in README, Scripting)")
	_ = cmd.RegisterFlagCompletionFunc("spec", v.completeSpecs)
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
		return api.RuntimeSpecKey{}, "", &exitError{exitUsage, "give exactly one of --spec SPEC, --variant V [--accelerator A] [--shape S], or --last (colabdash specs lists the specs)"}
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
			return api.RuntimeSpecKey{}, "", &exitError{exitUsage, "--accelerator and --shape need --variant"}
		}
		k, err = state.SpecFromFields(o.variant, o.accelerator, o.shape)
	default:
		ls, lerr := ui.LoadLastSpec(ui.DefaultStateDir())
		if lerr != nil {
			return api.RuntimeSpecKey{}, "", &exitError{exitUsage, "--last: no last spec remembered yet (create one with --spec first): " + lerr.Error()}
		}
		k = ls.Spec
		if version == "" {
			version = ls.Version
		}
	}
	if err != nil {
		return api.RuntimeSpecKey{}, "", &exitError{exitUsage, err.Error()}
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
			return &exitError{exitUsage, "--id: " + asAPIError(err).Message}
		}
	}
	requestID, resend := o.requestID, cmd.Flags().Changed("request-id")
	if resend && strings.TrimSpace(requestID) == "" {
		// A script whose id generator failed ($(uuidgen) with no uuidgen)
		// would otherwise create a new runtime on every run.
		return &exitError{exitUsage, "--request-id is empty (did the command that makes the id fail?): give the requestId an earlier create printed, or leave the flag out for a new one"}
	}
	if resend {
		u, err := uuid.Parse(requestID)
		if err != nil || u.Version() != 4 || u.String() != strings.ToLower(requestID) {
			return &exitError{exitUsage, "--request-id must be a UUID4 like 3f1c2b9e-8d4a-4c1e-9b7a-2e5f6a7b8c9d (the one an earlier create printed)"}
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
	conn, err := v.connect(ctx)
	if err != nil {
		return err
	}
	defer conn.close()

	rerun := v.g.rerunCreate(cmd, spec, version, o, requestID)
	// A re-sent request skips the eligibility check: the first send may
	// itself have used up the quota the check would now see.
	var (
		specs []api.RuntimeSpec
		tier  api.SubscriptionTier
	)
	if !resend {
		if specs, tier, err = loadSpecs(ctx, conn); err != nil {
			return err
		}
		var se *state.SpecError
		if err := state.CheckSpec(specs, spec, tier); errors.As(err, &se) {
			code := exitQuota
			if se.Problem == state.SpecNotOffered {
				code = exitUsage
			}
			return &exitError{code, termtext.Line(se.Error())}
		}
	}
	v.note("requestId " + requestID + ": if this command dies or is cut off, the same requestId gets the same runtime, never a second; " + rerun)
	if v.g.profile.Credentials != config.CredentialsDemo && !resend {
		// As the dashboard: remembered for --last and the dashboard's quick
		// create, but never a demo spec for the real account.
		if err := ui.SaveLastSpec(ui.DefaultStateDir(), &ui.LastSpec{Spec: spec, Version: version}); err != nil {
			v.note("could not remember the spec for --last: " + err.Error())
		}
	}

	req := api.CreateRuntimeRequest{Spec: spec, Version: version, RuntimeID: o.runtimeID, RequestID: requestID}
	var rt api.Runtime
	for attempt := 1; ; attempt++ {
		rt, err = conn.svc.CreateRuntime(ctx, req)
		if err == nil {
			break
		}
		ae := asAPIError(err)
		switch {
		case ctx.Err() != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
			return &exitError{exitAPI, fmt.Sprintf("gave up after --timeout %s; Colab may still create the runtime; %s", o.timeout, rerun)}
		case ctx.Err() != nil:
			return &exitError{exitInterrupted, "interrupted; Colab may still create the runtime; " + rerun}
		case ae == nil:
			return classify(err, conn.creds)
		case ae.OutcomeUnknown:
			return &exitError{exitAPI, "outcome unknown: the connection was lost after create_runtime was sent, so a runtime " +
				"may have been created (the same requestId never creates a second); " + rerun}
		}
		if again, wait := state.CreateRetry(ae, attempt); again {
			if wait > 0 {
				v.note(fmt.Sprintf("%s; retrying %d/%d in %s with the same requestId", termtext.Cut(ae.Error(), 160), attempt+1, state.MaxCreateAttempts, wait.Round(time.Second)))
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
	if v.asJSON {
		return v.writeJSON(createReport{StatusRuntime: ui.NewStatusRuntime(rt, nil, nil, time.Now(), false), RequestID: requestID})
	}
	v.say(fmt.Sprintf("created %s (%s, version %s)", termtext.Cut(rt.ID(), 63), termtext.Cut(rt.RuntimeSpec.String(), 60), termtext.Cut(orLatest(rt.Version), 40)))
	if ci := rt.ConnectionInfo; ci != nil && ci.URL != "" {
		v.say("url " + termtext.Line(ci.URL))
	}
	return nil
}

// createFailed explains a refused create on stderr, as the dashboard's
// dialog does, and returns the exit code: 5 for a quota, a limit or no
// capacity; else by class.
func (v *verb) createFailed(ae *api.Error, spec api.RuntimeSpecKey, specs []api.RuntimeSpec, tier api.SubscriptionTier, attempts int, conn *connection) error {
	f := state.ExplainCreateFailure(ae, spec, specs, tier, attempts)
	if f.Kind == state.CreateFailedOther {
		return classify(ae, conn.creds)
	}
	v.note(f.Title + ": " + termtext.Cut(ae.Error(), 200))
	for _, line := range f.Body {
		v.note(line)
	}
	if f.Kind == state.CreateTooManyRuntimes {
		v.note("delete one (" + v.g.commandOr("colabdash status", "status") + " lists them; " +
			v.g.commandOr("colabdash delete RUNTIME", "delete", "RUNTIME") + "), or wait and create again")
	}
	for _, k := range f.Alternatives {
		if arg, ok := specArg(k); ok {
			if line, ok := v.g.commandLine("create", "--spec", arg); ok {
				v.note("try: " + line)
				continue
			}
		}
		v.note("try the runtimeSpec " + termtext.Cut(k.String(), 60) + " (unusual: no command to paste is printed)")
	}
	code := exitAPI
	if f.Kind.QuotaOrIneligible() || quotaOrIneligible(ae) {
		code = exitQuota
	}
	return &exitError{code, ""}
}

// waitListed polls list_runtimes until rt is listed with a connection URL
// (1 s, doubling to 10 s between polls) and returns it as listed.
func (v *verb) waitListed(ctx context.Context, conn *connection, rt api.Runtime, timeout time.Duration) (api.Runtime, error) {
	delay := time.Second
	for {
		rts, err := conn.svc.ListRuntimes(ctx)
		if err == nil {
			for _, r := range rts {
				if r.Name == rt.Name && r.ConnectionInfo != nil && r.ConnectionInfo.URL != "" {
					return r, nil
				}
			}
		} else if ae := asAPIError(err); ae == nil || !ae.Retryable() {
			if ctx.Err() == nil {
				return api.Runtime{}, classify(err, conn.creds)
			}
		}
		if v.s.errTTY {
			v.note("waiting for " + termtext.Cut(rt.ID(), 63) + " to be listed with a connection…")
		}
		select {
		case <-ctx.Done():
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				status := v.g.commandOr("colabdash status", "status")
				return api.Runtime{}, &exitError{exitAPI, fmt.Sprintf("%s was created but is not listed with a connection after --timeout %s; "+
					"%s shows it when it is", termtext.Cut(rt.ID(), 63), timeout, status)}
			}
			return api.Runtime{}, &exitError{exitInterrupted, "interrupted while waiting for " + termtext.Cut(rt.ID(), 63) + " (it was created)"}
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

// completeSpecs completes --spec with the specs the account is eligible
// for, under the completion time limit.
func (v *verb) completeSpecs(cmd *cobra.Command, _ []string, toComplete string) ([]string, cobra.ShellCompDirective) {
	var out []string
	specs, _ := completing(v, cmd, func(ctx context.Context, conn *connection) ([]api.RuntimeSpec, error) {
		return conn.svc.ListRuntimeSpecs(ctx)
	})
	for _, sp := range specs {
		if sp.Eligible && strings.HasPrefix(strings.ToLower(sp.Key.String()), strings.ToLower(toComplete)) {
			out = append(out, sp.Key.String())
		}
	}
	return out, cobra.ShellCompDirectiveNoFileComp
}
