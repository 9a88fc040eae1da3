package cli

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/colabdash/colabdash/api/safehttp"
	"github.com/colabdash/colabdash/keymap"
	"github.com/colabdash/colabdash/state/config"
	"github.com/colabdash/colabdash/ui/termtext"
)

// configPath returns the config file to read and whether the user named
// it (--config, then COLABDASH_CONFIG) rather than it being the default
// location.
func configPath(g *globalFlags, getenv func(string) string) (string, bool) {
	if g.config != "" {
		return g.config, true
	}
	if p := getenv("COLABDASH_CONFIG"); p != "" {
		return p, true
	}
	return config.DefaultConfigPath(getenv), false
}

// loadConfig reads the config file, builds the key map and resolves the
// profile; precedence is flags > environment > profile > file > defaults.
// Any problem is one line and exit code 2.
func loadConfig(cmd *cobra.Command, g *globalFlags, getenv func(string) string) error {
	path, explicit := configPath(g, getenv)
	if _, err := os.Stat(path); explicit && errors.Is(err, fs.ErrNotExist) {
		by := "--config"
		if g.config == "" {
			by = "COLABDASH_CONFIG"
		}
		return &exitError{exitUsage, by + " names " + path + ", which does not exist"}
	}
	s, err := config.LoadSettings(path, explicit, config.SettingsOptions{Actions: keymap.Actions(), CheckKey: keymap.CheckBinding})
	if err != nil {
		return &exitError{exitUsage, err.Error()}
	}
	if g.keys, err = buildKeymap(s); err != nil {
		return &exitError{exitUsage, err.Error()}
	}
	g.settings = s
	g.changed = func(name string) bool { f := cmd.Flags().Lookup(name); return f != nil && f.Changed }
	name, from := s.Profile, "the config file"
	if s.Line("profile") == 0 {
		from = "the default"
	}
	if v := getenv("COLABDASH_PROFILE"); v != "" {
		name, from = v, "COLABDASH_PROFILE"
	}
	if g.profileName != "" {
		name, from = g.profileName, "--profile"
	}
	if g.demo {
		// --demo is the built-in demo profile: a profile or endpoint given
		// with it would be ignored, so it is an error to give them.
		if g.profileName != "" && g.profileName != config.ProfileDemo {
			if _, ok := s.Profiles[g.profileName]; !ok {
				return &exitError{exitUsage, fmt.Sprintf("--profile %q is not defined (defined: %s), and --demo uses the built-in demo profile anyway: drop one of them",
					g.profileName, strings.Join(s.ProfileNames(), ", "))}
			}
			return &exitError{exitUsage, fmt.Sprintf("--demo and --profile %q both choose the profile: drop one of them", g.profileName)}
		}
		if g.changed("endpoint") {
			return &exitError{exitUsage, "--demo uses the embedded emulator, so --endpoint does not apply: drop one of them " +
				"(to use a running `colabdash emulator`, give --endpoint with --access-token-file)"}
		}
		name, from = config.ProfileDemo, "--demo"
	}
	if g.changed("endpoint") {
		if err := checkEndpoint(g.endpoint); err != nil {
			return err
		}
	}
	p, ok := s.Profiles[name]
	if !ok {
		return &exitError{exitUsage, fmt.Sprintf("profile %q (from %s) is not defined (defined: %s)", name, from, strings.Join(s.ProfileNames(), ", "))}
	}
	g.origin = profileAuthOrigin(s, p)
	if g.changed("endpoint") {
		p.Endpoint = g.endpoint
	}
	if g.changed("quota-project") {
		p.QuotaProject, g.origin.quota = g.quotaProject, "--quota-project"
	}
	if g.changed("credentials") {
		p.Credentials, p.CredentialsFile, p.AccessTokenFile = config.CredentialsFile, g.credentials, ""
		g.origin.creds = "--credentials"
	}
	if g.changed("access-token-file") {
		p.Credentials, p.AccessTokenFile = config.CredentialsAccessToken, g.accessTokenFile
		g.origin.creds = "--access-token-file"
	}
	g.profile = p
	g.demo = p.Credentials == config.CredentialsDemo
	switch strings.ToLower(g.theme) {
	case "", config.ThemeAuto, config.ThemeDark, config.ThemeLight:
		g.theme = strings.ToLower(g.theme)
	default:
		return &exitError{exitUsage, fmt.Sprintf("--theme %q is not accepted (accepted: auto, dark, light)", g.theme)}
	}
	return nil
}

// themeName is --theme, else the config's theme: "auto", "dark" or
// "light".
func (g globalFlags) themeName() string {
	if g.theme != "" {
		return g.theme
	}
	return g.settings.Theme
}

// buildKeymap applies the config's key bindings over the defaults and
// reports a key bound to two actions, naming the config line.
func buildKeymap(s *config.Settings) (*keymap.KeyMap, error) {
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
	return k, nil
}

// expandHome turns a leading "~/" into the home directory.
func expandHome(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		if home, err := os.UserHomeDir(); err == nil {
			return filepath.Join(home, rest)
		}
	}
	return p
}

func configCmd(g *globalFlags, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "config",
		Short: "Print the effective configuration and the file it came from",
		Long: "config prints the settings in effect as a YAML config file, after flags, environment and profile:\n" +
			"a value that is not a default ends in a comment saying where it came from (# from --theme,\n" +
			"# from COLABDASH_PROFILE, # from config.yaml:12). The file is --config, else $COLABDASH_CONFIG, else\n" +
			"$XDG_CONFIG_HOME/colabdash/config.yaml (~/.config/colabdash/config.yaml).\n" +
			"A broken file is reported as one line naming the file and line (exit code 2).",
		Example: "  colabdash config                       # what is in effect, and from where\n" +
			"  colabdash config > ~/.config/colabdash/config.yaml   # start a config file from the defaults\n" +
			"  colabdash --config ./test.yaml config  # check a file before using it",
		Args: cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			s := g.settings
			if s.Source == "" {
				path, _ := configPath(g, os.Getenv)
				fmt.Fprintf(stdout, "# defaults: no config file at %s\n", termtext.Line(path))
			}
			// Config values come from a file and the environment; an
			// endpoint may carry a secret in its URL (?key=, user:password@).
			fmt.Fprint(stdout, termtext.Block(g.logs.red.Redact(effectiveSettings(*g, os.Getenv).EffectiveAnnotated())))
			fmt.Fprintf(stdout, "# profile in effect: %s\n", termtext.Line(g.profile.Name))
			return nil
		},
	}
}

// effectiveSettings is the config file's settings with the flags and
// environment variables applied, each override recorded (SetOrigin) so
// `colabdash config` can say where it came from.
func effectiveSettings(g globalFlags, getenv func(string) string) *config.Settings {
	eff := g.settings.Clone()
	if g.theme != "" {
		eff.Theme = g.theme
		eff.SetOrigin("theme", "--theme")
	}
	name := g.profile.Name
	eff.Profile = name
	switch {
	case g.changed("demo"):
		eff.SetOrigin("profile", "--demo")
	case g.changed("profile"):
		eff.SetOrigin("profile", "--profile")
	case getenv("COLABDASH_PROFILE") != "":
		eff.SetOrigin("profile", "COLABDASH_PROFILE")
	}
	if name == config.ProfileDemo {
		return eff // built in: the flags below do not apply to it
	}
	eff.Profiles[name] = g.profile
	path := "profiles." + name + "."
	for _, f := range []struct{ flag, field string }{
		{"endpoint", "endpoint"}, {"quota-project", "quotaProject"},
		{"credentials", "credentials"}, {"credentials", "credentialsFile"},
		{"access-token-file", "credentials"}, {"access-token-file", "accessTokenFile"},
	} {
		if g.changed(f.flag) {
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
			return &exitError{exitUsage, fmt.Sprintf("--endpoint %s: %v", safehttp.Redact(u), perr)}
		}
		return nil
	}
	msg := fmt.Sprintf("--endpoint %q is not an http or https URL", ep)
	if hint := schemeHint(ep); hint != "" {
		msg += "; did you mean " + hint + "?"
	}
	return &exitError{exitUsage, msg}
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
