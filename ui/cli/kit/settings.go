package kit

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/api/safehttp"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/theme"
)

// ConfigPath returns the config file to read and whether the user named
// it (--config, then COLABDASH_CONFIG) rather than it being the default
// location.
func ConfigPath(g *Globals, getenv func(string) string) (string, bool) {
	if g.Config != "" {
		return g.Config, true
	}
	if p := getenv("COLABDASH_CONFIG"); p != "" {
		return p, true
	}
	return config.DefaultConfigPath(getenv), false
}

// LoadConfig reads the config file, builds the key map and resolves the
// profile; precedence is flags > environment > profile > file > defaults.
// Any problem is one line and exit code 2.
func LoadConfig(cmd *cobra.Command, g *Globals, getenv func(string) string) error {
	path, explicit := ConfigPath(g, getenv)
	if _, err := os.Stat(path); explicit && errors.Is(err, fs.ErrNotExist) {
		by := "--config"
		if g.Config == "" {
			by = "COLABDASH_CONFIG"
		}
		return &ExitError{Code: ExitUsage, Msg: by + " names " + path + ", which does not exist"}
	}
	s, err := config.LoadSettings(path, explicit, config.SettingsOptions{Actions: keymap.Actions(), CheckKey: keymap.CheckBinding})
	if err != nil {
		return &ExitError{Code: ExitUsage, Msg: err.Error()}
	}
	if g.Keys, err = BuildKeymap(s); err != nil {
		return &ExitError{Code: ExitUsage, Msg: err.Error()}
	}
	g.Settings = s
	g.Changed = func(name string) bool { f := cmd.Flags().Lookup(name); return f != nil && f.Changed }
	name, from := s.Profile, "the config file"
	if s.Line("profile") == 0 {
		from = "the default"
	}
	if v := getenv("COLABDASH_PROFILE"); v != "" {
		name, from = v, "COLABDASH_PROFILE"
	}
	if g.ProfileName != "" {
		name, from = g.ProfileName, "--profile"
	}
	if g.Demo {
		// --demo is the built-in demo profile: a profile or endpoint given
		// with it would be ignored, so it is an error to give them.
		if g.ProfileName != "" && g.ProfileName != config.ProfileDemo {
			if _, ok := s.Profiles[g.ProfileName]; !ok {
				return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("--profile %q is not defined (defined: %s), and --demo uses the built-in demo profile anyway: drop one of them",
					g.ProfileName, strings.Join(s.ProfileNames(), ", "))}

			}
			return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("--demo and --profile %q both choose the profile: drop one of them", g.ProfileName)}
		}
		if g.Changed("endpoint") {
			return &ExitError{Code: ExitUsage, Msg: "--demo uses the embedded emulator, so --endpoint does not apply: drop one of them " +
				"(to use a running `colabdash emulator`, give --endpoint with --access-token-file)"}

		}
		name, from = config.ProfileDemo, "--demo"
	}
	if g.Changed("endpoint") {
		if err := checkEndpoint(g.Endpoint); err != nil {
			return err
		}
	}
	p, ok := s.Profiles[name]
	if !ok {
		return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("profile %q (from %s) is not defined (defined: %s)", name, from, strings.Join(s.ProfileNames(), ", "))}
	}
	g.Origin = ProfileAuthOrigin(s, p)
	if g.Changed("endpoint") {
		p.Endpoint = g.Endpoint
	}
	if g.Changed("quota-project") {
		p.QuotaProject, g.Origin.quota = g.QuotaProject, "--quota-project"
	}
	if g.Changed("credentials") {
		p.Credentials, p.CredentialsFile, p.AccessTokenFile = config.CredentialsFile, g.Credentials, ""
		g.Origin.creds = "--credentials"
	}
	if g.Changed("access-token-file") {
		p.Credentials, p.AccessTokenFile = config.CredentialsAccessToken, g.AccessTokenFile
		g.Origin.creds = "--access-token-file"
	}
	g.Profile = p
	g.Demo = p.Credentials == config.CredentialsDemo
	switch strings.ToLower(g.Theme) {
	case "", config.ThemeAuto, config.ThemeDark, config.ThemeLight:
		g.Theme = strings.ToLower(g.Theme)
	default:
		return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("--theme %q is not accepted (accepted: auto, dark, light)", g.Theme)}
	}
	if err := theme.CheckColorMode(g.Color); err != nil {
		return &ExitError{Code: ExitUsage, Msg: err.Error()}
	}
	return nil
}

// CheckConfigFile validates the config file at path as LoadConfig would
// use it (every value, the key bindings and their conflicts): nil when it
// is good, else an *ExitError (exit 2) with a line for each bad line of
// the file, naming the file, the line and what is accepted ("config
// FILE:LINE: MSG").
func CheckConfigFile(path string) error {
	if path == "" {
		return &ExitError{Code: ExitUsage, Msg: "config --check needs a file"}
	}
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		return &ExitError{Code: ExitUsage, Msg: "config --check names " + path + ", which does not exist"}
	}
	s, err := config.LoadSettings(path, true, config.SettingsOptions{Actions: keymap.Actions(), CheckKey: keymap.CheckBinding})
	var ce *config.ConfigError
	if errors.As(err, &ce) {
		// Every bad line, each on a line of its own as the first is
		// printed ("colabdash: config FILE:LINE: MSG").
		lines := make([]string, 0, 1+len(ce.More))
		for _, e := range ce.All() {
			lines = append(lines, e.Error())
		}
		return &ExitError{Code: ExitUsage, Msg: strings.Join(lines, "\ncolabdash: ")}
	}
	if err != nil {
		return &ExitError{Code: ExitUsage, Msg: err.Error()}
	}
	if _, err := BuildKeymap(s); err != nil {
		return &ExitError{Code: ExitUsage, Msg: err.Error()}
	}
	return nil
}

// ThemeName is --theme, else the config's theme: "auto", "dark" or
// "light".
func (g Globals) ThemeName() string {
	if g.Theme != "" {
		return g.Theme
	}
	return g.Settings.Theme
}

// BuildKeymap applies the config's key bindings over the defaults, then
// binds the plugins' keys, and reports a key bound to two actions or a
// plugin key that a built-in action has, naming the config line.
func BuildKeymap(s *config.Settings) (*keymap.KeyMap, error) {
	k := keymap.Default()
	for _, a := range keymap.Actions() {
		if keys, ok := s.Keys[a]; ok {
			if err := k.Rebind(a, keys...); err != nil {
				return nil, s.ErrorAt("keys."+a, err.Error())
			}
		}
	}
	for _, c := range k.Conflicts() {
		if c.Key == keymap.AlwaysQuit && slices.Contains(c.Actions, keymap.ActionQuit) {
			// ctrl+c stays on quit whatever the file says.
			for _, a := range c.Actions {
				if a != keymap.ActionQuit {
					return nil, s.ErrorAt("keys."+a, fmt.Sprintf("conflict: key %q always quits; bind %s to another key", c.Key, a))
				}
			}
		}
		for _, a := range c.Actions {
			if _, ok := s.Keys[a]; ok {
				return nil, s.ErrorAt("keys."+a, "conflict: "+c.String()+"; bind one of them to another key")
			}
		}
	}
	// Plugins last: their keys may not shadow the built-in keys in effect.
	for _, p := range s.Plugins {
		if err := k.AddPlugin(p.Name, p.Scope, p.Key, p.Description, p.Dangerous); err != nil {
			return nil, s.ErrorAt("plugins."+p.Name+".key", "plugins."+p.Name+".key: "+err.Error())
		}
	}
	return k, nil
}

// ExpandHome turns a leading "~/" into the home directory.
func ExpandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

// EffectiveSettings is the config file's settings with the flags and
// environment variables applied, each override recorded (SetOrigin) so
// `colabdash config` can say where it came from.
func EffectiveSettings(g Globals, getenv func(string) string) *config.Settings {
	eff := g.Settings.Clone()
	if g.Theme != "" {
		eff.Theme = g.Theme
		eff.SetOrigin("theme", "--theme")
	}
	name := g.Profile.Name
	eff.Profile = name
	switch {
	case g.Changed("demo"):
		eff.SetOrigin("profile", "--demo")
	case g.Changed("profile"):
		eff.SetOrigin("profile", "--profile")
	case getenv("COLABDASH_PROFILE") != "":
		eff.SetOrigin("profile", "COLABDASH_PROFILE")
	}
	if name == config.ProfileDemo {
		return eff // built in: the flags below do not apply to it
	}
	eff.Profiles[name] = g.Profile
	path := "profiles." + name + "."
	for _, f := range []struct{ flag, field string }{
		{"endpoint", "endpoint"}, {"quota-project", "quotaProject"},
		{"credentials", "credentials"}, {"credentials", "credentialsFile"},
		{"access-token-file", "credentials"}, {"access-token-file", "accessTokenFile"},
	} {
		if g.Changed(f.flag) {
			eff.SetOrigin(path+f.field, "--"+f.flag)
		}
	}
	return eff
}

// checkEndpoint accepts an https URL with a host, or an http one to a
// loopback host (safehttp.CheckCredentialURL: the bearer token must not
// cross a network in clear); an endpoint without a scheme gets a hint:
// the http:// form for a loopback host, else the https:// form.
func checkEndpoint(ep string) error {
	u, err := url.Parse(ep)
	if err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" {
		if perr := safehttp.CheckCredentialURL(u); perr != nil {
			return &ExitError{Code: ExitUsage, Msg: fmt.Sprintf("--endpoint %s: %v", safehttp.Redact(u), perr)}
		}
		return nil
	}
	msg := fmt.Sprintf("--endpoint %q is not an http or https URL", ep)
	if hint := schemeHint(ep); hint != "" {
		msg += "; did you mean " + hint + "?"
	}
	return &ExitError{Code: ExitUsage, Msg: msg}
}

// schemeHint returns ep with the scheme it lacks ("example.com/mcp",
// "127.0.0.1:8089/mcp", "localhost:8089/mcp"), http:// when the loopback
// rule lets the token go in clear to its host, else https://; "" when ep
// has a scheme or is no host[:port][/path]. url.Parse alone reads
// "localhost:8089/mcp" as the scheme "localhost" and refuses
// "127.0.0.1:8089/mcp", so host:port forms got no hint.
func schemeHint(ep string) string {
	lower := strings.ToLower(ep)
	if ep == "" || strings.HasPrefix(ep, "/") || strings.Contains(ep, "://") ||
		strings.HasPrefix(lower, "http:") || strings.HasPrefix(lower, "https:") {
		return ""
	}
	u, err := url.Parse("http://" + ep)
	if err != nil || u.Hostname() == "" || u.User != nil {
		return ""
	}
	if safehttp.CheckCredentialURL(u) == nil {
		return "http://" + ep
	}
	return "https://" + ep
}

// CheckPrivateDirs refuses, before anything is read or written there, a
// state directory (StateDir), a config directory (the default config
// file's: config.DefaultConfigPath) or a cache directory (CacheDir) that
// exists but is not the user's own, or that others may write to: whoever
// can write there can plant a run record naming any runtime (which run
// --reap would delete), a config naming another endpoint or completion
// candidates; the run records' directory below the state directory
// likewise. One line naming the directory and the fix,
// exit code 2; a missing directory is fine (created 0700).
func CheckPrivateDirs(getenv func(string) string) error {
	state := StateDir()
	dirs := []struct{ what, dir string }{
		{"config directory", filepath.Dir(config.DefaultConfigPath(getenv))},
		{"state directory", state},
		{"run record directory", filepath.Join(state, RunRecordDir)},
		{"cache directory", CacheDir()},
	}
	for _, d := range dirs {
		if d.dir == "" || d.dir == RunRecordDir {
			continue
		}
		if err := safefile.PrivateDir(d.what, d.dir); err != nil {
			return &ExitError{Code: ExitUsage, Msg: err.Error()}
		}
	}
	return nil
}

// RunRecordDir is the state directory's subdirectory of run records
// (run's, checked by CheckPrivateDirs for every command).
const RunRecordDir = "runs"
