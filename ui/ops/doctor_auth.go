package ops

import (
	"context"
	"errors"
	"strings"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth"
)

// credentialsCheck says where the credentials come from, or why none
// could be used (auth.New's failure, with the places tried).
func credentialsCheck(in DoctorInput) Check {
	const name = "credentials"
	switch {
	case in.Demo:
		return Check{Name: name, Status: CheckOK, Detail: "the embedded emulator (--demo): no Google credentials needed"}
	case in.CredsErr != nil:
		return failed(name, in.CredsErr, nil, "run `"+auth.LoginCommand+"`")
	case in.Creds == nil:
		return skipped(name, "no credentials were looked for")
	}
	kind, from := in.Creds.Source()
	d := kind
	if p := in.Creds.Path(); p != "" {
		d += " " + p
	}
	if t := in.Creds.Type(); t != "" && t != "access_token" && t != "gce_metadata" {
		d += " (" + t + ")"
	}
	if from != "" && from != kind {
		d += ", from " + from
	}
	return Check{Name: name, Status: CheckOK, Detail: d}
}

// tokenCheck gets an access token as the first request would and says
// whether it carries the Colab scope and when it expires.
func tokenCheck(ctx context.Context, in DoctorInput) Check {
	const name = "token"
	switch {
	case in.Demo:
		return Check{Name: name, Status: CheckOK, Detail: "the emulator accepts any bearer token"}
	case in.Creds == nil:
		return skipped(name, "no credentials")
	}
	g, err := in.Creds.Grant(ctx)
	if err != nil {
		return failed(name, err, in.Creds, "")
	}
	var parts []string
	switch has, known := g.HasScope(auth.ColabScope); {
	case known && !has:
		// The product's own hint for a server's ACCESS_TOKEN_SCOPE_INSUFFICIENT.
		h, fx := auth.Explain(&api.Error{Code: api.PermissionDenied, Reason: api.ReasonScopeInsufficient}, in.Creds)
		return Check{Name: name, Status: CheckFail, Detail: h + "; granted: " + strings.Join(g.Scopes, " "), Fix: fx}
	case known:
		parts = append(parts, "Colab scope granted")
	default:
		parts = append(parts, "scopes not listed by the token's source (the calls check shows whether the server accepts the token)")
	}
	now := in.Now()
	switch {
	case g.Expiry.IsZero():
		parts = append(parts, "expiry unknown (an access token file does not say; a rejected token means it expired)")
	case !g.Expiry.After(now):
		return Check{Name: name, Status: CheckFail, Detail: "the access token expired " + g.Expiry.UTC().Format(time.RFC3339),
			Fix: "write a fresh access token, e.g. `gcloud auth application-default print-access-token > FILE`"}
	default:
		parts = append(parts, "fresh: expires in "+g.Expiry.Sub(now).Round(time.Minute).String())
	}
	return Check{Name: name, Status: CheckOK, Detail: strings.Join(parts, "; ")}
}

// quotaCheck says which quota project is sent and where it was set. None
// is fine for credentials that bill their own project, or when the read
// call succeeded without one; when it failed for want of one (callsErr
// names a quota project, a disabled service or a denied consumer) it is
// a warning with the login hint, and when it failed for another reason
// the quota project is not what the calls check found wrong.
func quotaCheck(in DoctorInput, calls Check, callsErr error) Check {
	const name = "quota project"
	switch {
	case in.Demo:
		return skipped(name, "the emulator needs none")
	case in.Creds == nil:
		return skipped(name, "no credentials")
	}
	if p, from := in.Creds.QuotaProject(); p != "" {
		return Check{Name: name, Status: CheckOK, Detail: p + " (from " + from + ")"}
	}
	switch {
	case in.Creds.BillsOwnProject():
		return Check{Name: name, Status: CheckOK, Detail: "none set: service-account credentials bill their own project"}
	case calls.Status == CheckOK:
		return Check{Name: name, Status: CheckOK, Detail: "none set, and the server answered without one"}
	case !quotaRelated(callsErr):
		return skipped(name, "none set; list_runtimes failed for another reason (see calls)")
	}
	// The product's own hint for a server's "requires a quota project".
	h, fx := auth.Explain(&api.Error{Code: api.PermissionDenied, Reason: api.ReasonServiceDisabled, Message: "requires a quota project"}, in.Creds)
	return Check{Name: name, Status: CheckWarn, Detail: h + " (Google APIs usually need one with user credentials)", Fix: fx}
}

// quotaRelated reports whether err is Google's answer to a call without
// a usable quota project: the service disabled or not enabled for the
// project, "requires a quota project", a denied or invalid consumer.
func quotaRelated(err error) bool {
	var e *api.Error
	if !errors.As(err, &e) {
		return false
	}
	switch e.Reason {
	case api.ReasonServiceDisabled, api.ReasonUserProjectDenied, "CONSUMER_INVALID":
		return true
	}
	return strings.Contains(strings.ToLower(e.Message), "quota project")
}
