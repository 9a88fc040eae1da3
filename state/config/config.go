// Package config reads colabdash's YAML config file (settings, profiles, key
// bindings) and renders the settings in effect with where each value came
// from. Precedence (flag > environment > file > default) is resolved by the
// command package; this package holds the parsed values and their origins.
package config

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"time"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/state"
)

// Defaults and limits of Settings (the config file).
const (
	// DefaultRefreshInterval is how often the dashboard lists runtimes and
	// sessions (30 s).
	DefaultRefreshInterval = 30 * time.Second
	// MinRefreshInterval is the smallest refreshInterval a config file may
	// set (5 s).
	MinRefreshInterval = 5 * time.Second
	// minCallBudget is the smallest callBudget other than 0 (no limit).
	minCallBudget = 4
	// ProfileDefault is the profile used when none is chosen: Application
	// Default Credentials on the real Colab MCP endpoint. A config file may
	// redefine it.
	ProfileDefault = "default"
	// ProfileDemo is the built-in profile on the embedded emulator; it
	// always exists and cannot be redefined.
	ProfileDemo = "demo"
)

// Theme names accepted by the theme setting and --theme.
const (
	ThemeAuto  = "auto"
	ThemeDark  = "dark"
	ThemeLight = "light"
)

// Credential kinds of a profile (Profile.Credentials).
const (
	// CredentialsADC uses Application Default Credentials
	// (GOOGLE_APPLICATION_CREDENTIALS, then gcloud's ADC file).
	CredentialsADC = "adc"
	// CredentialsFile uses Profile.CredentialsFile (authorized_user,
	// service_account, … JSON).
	CredentialsFile = "file"
	// CredentialsAccessToken sends the bearer token read from
	// Profile.AccessTokenFile.
	CredentialsAccessToken = "accessToken"
	// CredentialsDemo connects to the embedded emulator (no Google account).
	CredentialsDemo = "demo"
)

// Profile is one named account/endpoint: where colabdash connects and with
// which credentials. Every field is optional except as noted.
type Profile struct {
	// Name is the profile's key in the profiles map.
	Name string `yaml:"-"`
	// Credentials is the kind: "adc", "file", "accessToken" or "demo".
	// When the file leaves it out it is inferred: accessToken when
	// AccessTokenFile is set, file when CredentialsFile is set, else adc.
	Credentials string `yaml:"credentials"`
	// CredentialsFile is the Google credentials JSON file (kind "file").
	// A leading "~/" means the home directory.
	CredentialsFile string `yaml:"credentialsFile,omitempty"`
	// AccessTokenFile holds one OAuth access token (kind "accessToken").
	AccessTokenFile string `yaml:"accessTokenFile,omitempty"`
	// QuotaProject is sent as x-goog-user-project ("" = none).
	QuotaProject string `yaml:"quotaProject,omitempty"`
	// Endpoint is the MCP endpoint URL: https, or http to a loopback host
	// only (safehttp.CheckCredentialURL: the bearer token is sent there).
	// Default api.DefaultEndpoint; ignored by the demo profile.
	Endpoint string `yaml:"endpoint,omitempty"`
}

// Settings is colabdash's configuration as read from its YAML file, with
// every absent setting at its default. Build it with DefaultSettings,
// ParseSettings or LoadSettings.
type Settings struct {
	// RefreshInterval between automatic list_runtimes/list_sessions calls
	// (YAML refreshInterval, a Go duration such as "30s"; ≥ 5 s; default
	// 30 s).
	RefreshInterval time.Duration
	// ExpiryWarning: a proxy token with at most this much left shows
	// EXPIRING (YAML expiryWarning; > 0; default 5 min).
	ExpiryWarning time.Duration
	// RenewLead: a proxy token with at most this much left is renewed with
	// get_runtime (YAML renewLead; > 0; default 5 min).
	RenewLead time.Duration
	// AutoRenew turns automatic proxy-token renewal on (YAML autoRenew,
	// true or false; default true).
	AutoRenew bool
	// CallBudget is how many background calls a minute the dashboard
	// makes at most (YAML callBudget; an integer from 4, or 0 for no
	// limit; default state.DefaultCallBudget, 23): list_runtimes, the
	// selected runtime's sessions and token renewals are always made, the
	// other runtimes' session counts share what is left.
	CallBudget int
	// DefaultRuntimeSpec is the runtimeSpec preselected when creating a
	// runtime (YAML defaultRuntimeSpec {variant, accelerator, shape};
	// default CPU, NONE, STANDARD).
	DefaultRuntimeSpec api.RuntimeSpecKey
	// Theme is "auto" (detect the background), "dark" or "light" (YAML
	// theme; default auto).
	Theme string
	// Profile is the profile used when neither --profile nor
	// COLABDASH_PROFILE picks one (YAML profile; default "default").
	Profile string
	// Keys maps an action name (see keymap.Actions) to the keys that
	// replace its defaults (YAML keys: {action: key or [keys]}).
	Keys map[string][]string
	// Profiles by name, always including "default" and "demo".
	Profiles map[string]Profile
	// Plugins are the user's commands bound to dashboard keys (YAML
	// plugins: {name: {key, scope, command, args, …}}), in file order.
	Plugins []Plugin
	// Notify says how events are told (YAML notify: {terminal, command,
	// args, timeout, mute}).
	Notify Notify
	// IdleGuard is the top-level idle guard (YAML idleGuard: {after,
	// action}; off by default); a profile may set its own (GuardFor).
	IdleGuard IdleGuard
	// Source is the file the settings came from ("" = built-in defaults).
	Source string

	lines         map[string]int       // YAML path ("keys.refresh") → line
	origins       map[string]string    // YAML path → what overrode it ("--theme")
	profileGuards map[string]IdleGuard // profiles.NAME.idleGuard
}

// DefaultSettings returns the settings used without a config file.
func DefaultSettings() *Settings {
	return &Settings{
		RefreshInterval:    DefaultRefreshInterval,
		ExpiryWarning:      state.DefaultExpiringThreshold,
		RenewLead:          state.DefaultExpiringThreshold,
		CallBudget:         state.DefaultCallBudget,
		AutoRenew:          true,
		DefaultRuntimeSpec: api.RuntimeSpecKey{Variant: api.VariantCPU, Accelerator: api.AcceleratorNone, Shape: api.ShapeStandard},
		Theme:              ThemeAuto,
		Profile:            ProfileDefault,
		Keys:               map[string][]string{},
		Profiles: map[string]Profile{
			ProfileDefault: {Name: ProfileDefault, Credentials: CredentialsADC, Endpoint: api.DefaultEndpoint},
			ProfileDemo:    {Name: ProfileDemo, Credentials: CredentialsDemo},
		},
		Notify:        Notify{Terminal: state.NotifyAuto, Timeout: DefaultNotifyTimeout},
		IdleGuard:     IdleGuard{Action: GuardWarn},
		lines:         map[string]int{},
		profileGuards: map[string]IdleGuard{},
	}
}

// ConfigError is a config file that cannot be used: File and Line (1-based,
// 0 when unknown) say where, Msg what is wrong and what is accepted.
type ConfigError struct {
	File string
	Line int
	Msg  string
	// More are the file's further bad lines, in line order, found after
	// this one (the first); Error says this one only, All every one.
	More []*ConfigError
}

// All is e and the further bad lines of its file (More), in line order.
func (e *ConfigError) All() []*ConfigError {
	return append([]*ConfigError{e}, e.More...)
}

// Error renders one line: "config FILE:LINE: MSG".
func (e *ConfigError) Error() string {
	where := e.File
	if where == "" {
		where = "(config)"
	}
	if e.Line > 0 {
		where += ":" + strconv.Itoa(e.Line)
	}
	return "config " + where + ": " + e.Msg
}

// SettingsOptions tell ParseSettings what the key section accepts.
type SettingsOptions struct {
	// Actions are the known action names (keymap.Actions()); a key binding
	// for any other name is an error. Nil accepts none.
	Actions []string
	// CheckKey validates one key string ("ctrl+r") bound to an action
	// (keymap.CheckBinding: a key name Bubble Tea delivers, and none a
	// text field types or edits with for actions read while one has
	// focus); nil accepts any non-empty key.
	CheckKey func(action, key string) error
	// CheckPluginKey validates a plugin's key (keymap.CheckKey); nil
	// accepts any non-empty key. Clashes with built-in keys are the key
	// map's to find (the plugin's line is Line("plugins.NAME.key")).
	CheckPluginKey func(key string) error
}

// Line returns the line of a setting in the file, by YAML path
// ("refreshInterval", "keys.refresh", "profiles.work.endpoint"), or 0 when
// the file did not set it.
func (s *Settings) Line(path string) int { return s.lines[path] }

// Where returns "FILE:LINE" for a setting the file set (path as for
// Line), "" when the file did not set it.
func (s *Settings) Where(path string) string {
	if s.lines[path] == 0 || s.Source == "" {
		return ""
	}
	return s.Source + ":" + strconv.Itoa(s.lines[path])
}

// ProfileOrigin says where a field of a profile was set, for messages:
// "profile work, FILE:LINE" when the file set it, else "profile work".
// field is a YAML key of the profile, e.g. "credentialsFile".
func (s *Settings) ProfileOrigin(name, field string) string {
	if w := s.Where("profiles." + name + "." + field); w != "" {
		return "profile " + name + ", " + w
	}
	return "profile " + name
}

// ErrorAt builds a *ConfigError for the setting at path (see Line).
func (s *Settings) ErrorAt(path, msg string) *ConfigError {
	return &ConfigError{File: s.Source, Line: s.lines[path], Msg: msg}
}

// ProfileNames returns every profile name, sorted, "default" and "demo"
// included.
func (s *Settings) ProfileNames() []string {
	out := make([]string, 0, len(s.Profiles))
	for n := range s.Profiles {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// DefaultConfigPath is where the config file is looked for when neither
// --config nor COLABDASH_CONFIG names one: colabdash/config.yaml below
// $XDG_CONFIG_HOME on every platform when it is set, else below the
// platform's config directory as os.UserConfigDir defines it:
// ~/.config on Linux and the other Unixes, ~/Library/Application Support
// on macOS, %AppData% on Windows. A file kept at ~/.config/colabdash
// (where earlier versions looked on every platform) is still used when
// the platform's directory has none, so moving loses nothing. getenv
// reads the environment.
func DefaultConfigPath(getenv func(string) string) string {
	return defaultConfigPath(runtime.GOOS, getenv, func(p string) bool { _, err := os.Stat(p); return err == nil })
}

// defaultConfigPath is DefaultConfigPath on goos, exists telling whether
// a file is there.
func defaultConfigPath(goos string, getenv func(string) string, exists func(string) bool) string {
	p := filepath.Join(configDir(goos, getenv), "colabdash", "config.yaml")
	if getenv("XDG_CONFIG_HOME") != "" {
		return p
	}
	legacy := filepath.Join(homeDir(getenv), ".config", "colabdash", "config.yaml")
	if legacy != p && !exists(p) && exists(legacy) {
		return legacy
	}
	return p
}

// configDir is the base config directory on the platform goos (a
// GOOS value), read through getenv: XDG_CONFIG_HOME first, as gh does.
func configDir(goos string, getenv func(string) string) string {
	if dir := getenv("XDG_CONFIG_HOME"); dir != "" {
		return dir
	}
	switch goos {
	case "windows":
		if dir := getenv("AppData"); dir != "" {
			return dir
		}
	case "darwin", "ios":
		return filepath.Join(homeDir(getenv), "Library", "Application Support")
	}
	return filepath.Join(homeDir(getenv), ".config")
}

// homeDir is $HOME, else the user's home directory as the system knows
// it ("" when neither is known).
func homeDir(getenv func(string) string) string {
	if home := getenv("HOME"); home != "" {
		return home
	}
	home, _ := os.UserHomeDir()
	return home
}

// LoadSettings reads and parses the config file at path. When the file
// does not exist and explicit is false (the default location), it returns
// the defaults with Source "". A missing explicit file (--config,
// COLABDASH_CONFIG), an unreadable one or a bad one is a *ConfigError.
func LoadSettings(path string, explicit bool, o SettingsOptions) (*Settings, error) {
	data, err := safefile.Read(path, safefile.MaxConfigFile, 0)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) && !explicit {
			return DefaultSettings(), nil
		}
		msg := "cannot read: " + err.Error()
		var se *safefile.Error
		if errors.As(err, &se) {
			msg = "cannot read: " + se.Problem
			if se.Target != "" {
				msg += " (a link to " + se.Target + ")"
			}
		}
		if errors.Is(err, fs.ErrNotExist) {
			msg = "no such file"
		}
		return nil, &ConfigError{File: path, Msg: msg}
	}
	return ParseSettings(path, data, o)
}

// Clone returns a deep copy of s, to apply overrides to (see SetOrigin)
// without changing s.
func (s *Settings) Clone() *Settings {
	c := *s
	c.Keys = maps.Clone(s.Keys)
	c.Profiles = maps.Clone(s.Profiles)
	c.Plugins = slices.Clone(s.Plugins)
	c.lines = maps.Clone(s.lines)
	c.origins = maps.Clone(s.origins)
	c.profileGuards = maps.Clone(s.profileGuards)
	c.Notify.Args = slices.Clone(s.Notify.Args)
	c.Notify.Mute = slices.Clone(s.Notify.Mute)
	return &c
}

// SetOrigin records that the value in effect of the setting at path (a
// YAML path as for Line: "theme", "profile", "profiles.work.endpoint")
// was set by from, outside the file: a flag ("--theme") or an environment
// variable ("COLABDASH_PROFILE"). The caller sets the value itself;
// Effective and EffectiveAnnotated print "# from FROM" after it.
func (s *Settings) SetOrigin(path, from string) {
	if s.origins == nil {
		s.origins = map[string]string{}
	}
	s.origins[path] = from
}
