package kit

import (
	"log/slog"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state/config"
)

// Globals are the global flags, accepted before or after any subcommand
// (each field is the flag of its name). Settings, Keys, Profile and
// Origin are filled in before any command runs (LoadConfig); Logs by
// OpenLog.
type Globals struct {
	Endpoint, Credentials, AccessTokenFile, QuotaProject string
	Demo                                                 bool
	Config, ProfileName                                  string
	LogFile, Theme                                       string
	Color                                                string // --color: auto, always, never or "" (auto)
	Debug                                                bool
	ReadOnly                                             bool          // dashboard: --readonly
	RenewLead                                            time.Duration // dashboard: --renew-lead

	Changed  func(name string) bool // whether a flag was given
	Settings *config.Settings
	Keys     *keymap.KeyMap
	Profile  config.Profile
	Origin   AuthOrigin // where profile's files and quota project were set
	Logs     Logs

	Completions *CompletionWriter // set while __complete runs
}

// AuthOrigin says where a profile's credentials file (or access token
// file) and quota project were set, for error messages: a flag such as
// "--credentials", or "profile work, FILE:LINE". "" lets api/auth name
// the flag.
type AuthOrigin struct{ creds, quota string }

// ProfileAuthOrigin is where the config file set profile p's credentials
// file and quota project.
func ProfileAuthOrigin(s *config.Settings, p config.Profile) AuthOrigin {
	o := AuthOrigin{quota: s.ProfileOrigin(p.Name, "quotaProject")}
	switch p.Credentials {
	case config.CredentialsFile:
		o.creds = s.ProfileOrigin(p.Name, "credentialsFile")
	case config.CredentialsAccessToken:
		o.creds = s.ProfileOrigin(p.Name, "accessTokenFile")
	}
	return o
}

// Logs is where structured logs go (--log-file) and the redactor every
// line passes through; without --log-file, log discards.
type Logs struct {
	Log   *slog.Logger  // nil until OpenLog
	Red   *api.Redactor // every secret the process learns is registered here
	Close func()        // closes the log file; nil without one
}

// ExitError carries an exit code and the one line already worth printing.
type ExitError struct {
	Code int    // the process exit code (ExitUsage, ExitAPI, ...)
	Msg  string // printed as "colabdash: MSG" (redacted, through termtext); "" prints nothing
	// Fix, when set, is the one line of what to do, printed after Msg
	// as "colabdash: FIX" (not in --json's error.message, which is Msg).
	Fix string
}

// Error is the line worth printing (may be empty).
func (e *ExitError) Error() string { return e.Msg }
