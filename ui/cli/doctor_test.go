package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/auth"
	"github.com/colabdash/colabdash/api/colabfake"
	"github.com/colabdash/colabdash/api/colabfake/colabfaketest"
	"github.com/colabdash/colabdash/api/secrettest"
)

// TestDoctorDemoPasses: on the embedded emulator every check passes, one
// line each, and the command is quiet on stderr with exit 0.
func TestDoctorDemoPasses(t *testing.T) {
	isolate(t)
	code, out, errs := runCLI(t, "doctor", "--demo")
	if code != 0 || errs != "" {
		t.Fatalf("exit %d, stderr %q\n%s", code, errs, out)
	}
	for _, want := range []string{"ok    credentials", "ok    endpoint", "protocol ", "ok    tools", "ok    route /api/contents", "ok    route /colab/tty"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "FAIL") || strings.Contains(out, "fix:") {
		t.Errorf("a failure on the demo:\n%s", out)
	}
}

// doctorEmulator starts an emulator whose tools/list lacks execute_code
// and whose delete_session declares a property named after the access
// token (a server echoing a secret), and writes that token to a file.
func doctorEmulator(t *testing.T, home string) (endpoint, tokenFile string) {
	t.Helper()
	const secret = "ya29.doctor-secret-token"
	_, ep := colabfaketest.Start(t, colabfake.Options{Seed: colabfake.SeedDemo,
		OmitTools:     []string{api.ToolExecuteCode},
		RenamedInputs: map[string]string{api.ToolDeleteSession + ".name": secret}})
	return ep, writeFile(t, filepath.Join(home, "token.txt"), secret+"\n")
}

// TestDoctorReportIsRedactedAndReplacesALink: a failing check is exit 1
// with its FAIL and fix lines and one stderr line naming it; --report
// writes the findings and the server's tools/list with the token
// redacted, replacing a link at the path instead of writing through it.
func TestDoctorReportIsRedactedAndReplacesALink(t *testing.T) {
	home := isolate(t)
	ep, tokenFile := doctorEmulator(t, home)
	target := writeFile(t, filepath.Join(home, "precious.txt"), "keep me\n")
	report := filepath.Join(home, "report.json")
	if err := os.Symlink(target, report); err != nil {
		t.Fatal(err)
	}
	// Something at FILE is kept unless -f: refused before any check.
	if code, out, errs := runCLI(t, "doctor", "--endpoint", ep, "--access-token-file", tokenFile, "--report", report); code != 2 || out != "" ||
		!strings.Contains(errs, "exists; nothing checked or written (-f/--force replaces it)") {
		t.Fatalf("a link at FILE without -f: exit %d, stdout %q, stderr %q", code, out, errs)
	}
	if st, err := os.Lstat(report); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("refused, yet the link at FILE changed: %v, %v", st, err)
	}
	code, out, errs := runCLI(t, "doctor", "--endpoint", ep, "--access-token-file", tokenFile, "--report", report, "-f")
	if code != 1 {
		t.Fatalf("exit %d, want 1; stderr %q\n%s", code, errs, out)
	}
	if errs != "colabdash: doctor: 1 check did not pass: tools\n" {
		t.Errorf("stderr %q", errs)
	}
	for _, want := range []string{"FAIL  tools", "not listed: execute_code", "delete_session does not declare name", "fix: colabdash and the server disagree", "ok    calls"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
	secrettest.Check(t, "doctor stdout", out, "ya29.doctor-secret-token")
	if b, _ := os.ReadFile(target); string(b) != "keep me\n" {
		t.Errorf("the link's target was written: %q", b)
	}
	if st, err := os.Lstat(report); err != nil || st.Mode()&os.ModeSymlink != 0 || st.Mode().Perm() != 0o600 {
		t.Fatalf("report: %v, %v; want a regular file of mode 0600", st, err)
	}
	b, _ := os.ReadFile(report)
	secrettest.Check(t, "doctor report", string(b), "ya29.doctor-secret-token")
	// Without -f a new file is written, mode 0600.
	fresh := filepath.Join(home, "fresh.json")
	if code, _, _ := runCLI(t, "doctor", "--endpoint", ep, "--access-token-file", tokenFile, "--report", fresh); code != 1 {
		t.Fatalf("a new report file: exit %d", code)
	}
	if st, err := os.Lstat(fresh); err != nil || !st.Mode().IsRegular() || st.Mode().Perm() != 0o600 || st.Size() < 100 {
		t.Fatalf("a new report file: %v, %v", st, err)
	}
	var rep struct {
		OK        bool             `json:"ok"`
		Checks    []map[string]any `json:"checks"`
		ToolsList []map[string]any `json:"toolsList"`
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatalf("report is not JSON: %v\n%s", err, b)
	}
	if rep.OK || len(rep.Checks) < 8 || len(rep.ToolsList) != 9 {
		t.Errorf("report: ok %v, %d checks, %d tools; want false, ≥8, 9", rep.OK, len(rep.Checks), len(rep.ToolsList))
	}
	if !strings.Contains(string(b), "[redacted]") {
		t.Error("the echoed token is not shown as [redacted] in the report")
	}
}

// TestDoctorJSONAndJq: --json is one document whose error is "failed"
// and whose checks say which failed; --jq filters it.
func TestDoctorJSONAndJq(t *testing.T) {
	home := isolate(t)
	ep, tokenFile := doctorEmulator(t, home)
	code, out, _ := runCLI(t, "doctor", "--endpoint", ep, "--access-token-file", tokenFile, "--json")
	var doc DoctorReport
	if err := json.Unmarshal([]byte(out), &doc); err != nil {
		t.Fatalf("exit %d, not one JSON document: %v\n%s", code, err, out)
	}
	if code != 1 || doc.OK || doc.Error == nil || doc.Error.Code != "failed" || doc.Endpoint != ep || doc.ProtocolVersion == "" {
		t.Errorf("exit %d, doc %+v", code, doc.Envelope)
	}
	secrettest.Check(t, "doctor --json", out, "ya29.doctor-secret-token")
	code, out, _ = runCLI(t, "doctor", "--endpoint", ep, "--access-token-file", tokenFile, "--jq", `.checks[] | select(.status == "fail") | .name`)
	if code != 1 || out != "tools\n" {
		t.Errorf("--jq: exit %d, %q; want 1, \"tools\\n\"", code, out)
	}
}

// TestDoctorWithoutCredentials: no credentials anywhere is the first
// check's failure, with the login command as its fix; the checks of the
// server are skipped and the clock is still compared.
func TestDoctorWithoutCredentials(t *testing.T) {
	isolate(t)
	_, ep := colabfaketest.Start(t, colabfake.Options{})
	code, out, errs := runCLI(t, "doctor", "--endpoint", ep)
	if code != 1 || !strings.Contains(errs, "did not pass: credentials") {
		t.Fatalf("exit %d, stderr %q", code, errs)
	}
	for _, want := range []string{"FAIL  credentials", "fix: run `" + auth.LoginCommand, "skip  endpoint", "ok    clock"} {
		if !strings.Contains(out, want) {
			t.Errorf("stdout lacks %q:\n%s", want, out)
		}
	}
}
