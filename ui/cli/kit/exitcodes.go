package kit

import (
	"fmt"
	"strings"
)

// Exit codes of every command: one table (ExitCodes), documented once in
// docs/scripting.md#exit-codes and named by every command's --help
// (ExitCodesHelp). A failure's code word (CodeWord) is the "code" of the
// "error" object every --json document carries on failure.
const (
	ExitOK = 0
	// ExitFailure: what was asked ran and failed: the code raised (exec,
	// run; run passes sys.exit(n) on as n), a failed cell, a local file
	// that could not be written, a corrupt copy, a confirmation answered
	// with anything but yes, a port that is busy, the dashboard could not
	// run.
	ExitFailure = 1
	// ExitUsage: wrong flags or arguments, a bad --jq expression, an
	// ambiguous prefix, a spec Colab does not offer, a confirmation
	// needed without a terminal (--yes), a notebook session without
	// --force, a token to a terminal without --show-tokens.
	ExitUsage = 2
	// ExitCredential: credentials or permission.
	ExitCredential = 3
	// ExitAPI: network or server: unreachable, server errors, an outcome
	// unknown after a lost connection.
	ExitAPI = 4
	// ExitQuota: a usage quota, a rate limit, too many active runtimes,
	// an account refused runtimes, or a runtimeSpec the account is not
	// eligible for.
	ExitQuota = 5
	// ExitNotFound: no such runtime, session, kernel or file (local or
	// on the runtime).
	ExitNotFound = 6
	// ExitPartial: some of several targets (delete, session close, rm)
	// failed while others succeeded.
	ExitPartial = 7
	// ExitLost: a job was lost (logs -f, wait, stop): its supervisor
	// stopped writing its status without recording an end, so the job
	// has no exit status to pass on.
	ExitLost = 8
	// ExitTimeout: --timeout was reached (create --wait, exec, run).
	ExitTimeout = 124
	// ExitInterrupted: ctrl+c, SIGTERM or SIGHUP ended the command. The
	// process exits 128 + the signal's number (SignalState.ExitCode): 130
	// for SIGINT, as here, 143 for SIGTERM, 129 for SIGHUP.
	ExitInterrupted = 130
)

// ExitCodeRow is one row of the exit-code table: the code, its stable
// word (the "code" of a --json error) and what it means.
type ExitCodeRow struct {
	Code    int
	Word    string
	Meaning string
}

// ExitCodes is the exit-code table of every command, in code order; the
// row of 130 stands for every 128 + signal.
var ExitCodes = []ExitCodeRow{
	{ExitOK, "ok", "ok"},
	{ExitFailure, "failed", "what was asked ran and failed: the code raised (exec, run), a failed cell, a local file error, a corrupt copy, a confirmation not given, a busy port, a doctor check that failed or warned"},
	{ExitUsage, "usage", "wrong flags or arguments, a bad --jq expression, an ambiguous prefix, a confirmation needed without a terminal"},
	{ExitCredential, "credentials", "credentials or permission"},
	{ExitAPI, "network", "network or server: unreachable, server errors, an outcome unknown after a lost connection"},
	{ExitQuota, "quota", "quota, rate limit, too many runtimes, or a spec your tier may not create"},
	{ExitNotFound, "not_found", "no such runtime, session or file"},
	{ExitPartial, "partial", "some of several targets failed while others succeeded"},
	{ExitLost, "lost", "a job lost: its supervisor stopped without recording an end, so it has no exit status (logs -f, wait, stop)"},
	{ExitTimeout, "timeout", "--timeout reached"},
	{ExitInterrupted, "interrupted", "ended by a signal: 128 + its number (130 ctrl+c, 143 SIGTERM, 129 SIGHUP)"},
}

// CodeWord is the stable word of exit code code ("usage", "not_found",
// ...); any 128 + signal is "interrupted", an unknown code "failed".
func CodeWord(code int) string {
	if code > 128 && code < 160 {
		return "interrupted"
	}
	for _, r := range ExitCodes {
		if r.Code == code {
			return r.Word
		}
	}
	return "failed"
}

// ExitCodesRef is the anchor of the table in the documentation, which
// every command's --help names.
const ExitCodesRef = "docs/scripting.md#exit-codes"

// ExitCodesHelp ends the Long help of every command: the table in short,
// and where it is written out.
var ExitCodesHelp = exitCodesHelp()

func exitCodesHelp() string {
	var b strings.Builder
	b.WriteString("Exit codes (one table for every command, " + ExitCodesRef + "): ")
	for i, r := range ExitCodes {
		if i > 0 {
			b.WriteString(", ")
		}
		if r.Code == ExitInterrupted {
			b.WriteString("128+n a signal (130 ctrl+c)")
			continue
		}
		fmt.Fprintf(&b, "%d %s", r.Code, r.Word)
	}
	b.WriteString(".")
	return wrap(b.String(), 100)
}

// JSONHelp is the --json paragraph of every verb that has --json.
const JSONHelp = "With --json stdout holds one JSON document whatever the outcome: \"ok\", and on failure\n" +
	"\"error\": {\"code\": WORD, \"message\": …}, WORD the exit code's word (below); with --jq EXPR, only\n" +
	"what EXPR makes of it (nothing when EXPR does not compile)."

// wrap breaks s at spaces into lines of at most width bytes.
func wrap(s string, width int) string {
	var b strings.Builder
	n := 0
	for i, w := range strings.Fields(s) {
		if i > 0 {
			if n+1+len(w) > width {
				b.WriteByte('\n')
				n = 0
			} else {
				b.WriteByte(' ')
				n++
			}
		}
		b.WriteString(w)
		n += len(w)
	}
	return b.String()
}
