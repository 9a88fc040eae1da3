package config

import (
	"fmt"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"
)

// Effective renders the settings as a YAML config file that reproduces
// them, every setting spelled out, preceded by a comment naming where they
// came from; a value set by SetOrigin ends in "# from FROM". Profiles are
// listed by name; the built-in "demo" profile is a comment.
func (s *Settings) Effective() string { return s.render(false) }

// EffectiveAnnotated is Effective with a trailing comment on every value
// that is not a default: "# from --theme" (SetOrigin) or
// "# from config.yaml:12" (the file's base name and the line).
func (s *Settings) EffectiveAnnotated() string { return s.render(true) }

// from is the trailing comment for the value at path ("" for a default).
func (s *Settings) from(path string, fileLines bool) string {
	if o := s.origins[path]; o != "" {
		return " # from " + o
	}
	if fileLines && s.Source != "" && s.lines[path] > 0 {
		return " # from " + filepath.Base(s.Source) + ":" + strconv.Itoa(s.lines[path])
	}
	return ""
}

func (s *Settings) render(fileLines bool) string {
	var b strings.Builder
	if s.Source != "" {
		b.WriteString("# from " + s.Source + "\n")
	}
	from := func(path string) string { return s.from(path, fileLines) }
	fmt.Fprintf(&b, "refreshInterval: %s%s\n", shortDuration(s.RefreshInterval), from("refreshInterval"))
	fmt.Fprintf(&b, "expiryWarning: %s%s\n", shortDuration(s.ExpiryWarning), from("expiryWarning"))
	fmt.Fprintf(&b, "renewLead: %s%s\n", shortDuration(s.RenewLead), from("renewLead"))
	fmt.Fprintf(&b, "autoRenew: %t%s\n", s.AutoRenew, from("autoRenew"))
	fmt.Fprintf(&b, "callBudget: %d%s\n", s.CallBudget, from("callBudget"))
	fmt.Fprintf(&b, "defaultRuntimeSpec:\n  variant: %s%s\n  accelerator: %s%s\n  shape: %s%s\n",
		s.DefaultRuntimeSpec.Variant.Short(), from("defaultRuntimeSpec.variant"),
		s.DefaultRuntimeSpec.Accelerator, from("defaultRuntimeSpec.accelerator"),
		s.DefaultRuntimeSpec.Shape.Short(), from("defaultRuntimeSpec.shape"))
	fmt.Fprintf(&b, "theme: %s%s\n", s.Theme, from("theme"))
	fmt.Fprintf(&b, "profile: %s%s\n", yamlString(s.Profile), from("profile"))
	if len(s.Keys) == 0 {
		b.WriteString("keys: {} # every action on its default keys\n")
	} else {
		b.WriteString("keys:\n")
		acts := make([]string, 0, len(s.Keys))
		for a := range s.Keys {
			acts = append(acts, a)
		}
		sort.Strings(acts)
		for _, a := range acts {
			q := make([]string, len(s.Keys[a]))
			for i, k := range s.Keys[a] {
				q[i] = yamlString(k)
			}
			fmt.Fprintf(&b, "  %s: [%s]%s\n", a, strings.Join(q, ", "), from("keys."+a))
		}
	}
	b.WriteString("profiles:\n")
	for _, n := range s.ProfileNames() {
		pr := s.Profiles[n]
		if n == ProfileDemo {
			b.WriteString("  # demo: built in (credentials: demo, the embedded emulator)\n")
			continue
		}
		fmt.Fprintf(&b, "  %s:\n    credentials: %s%s\n", n, pr.Credentials, from("profiles."+n+".credentials"))
		for _, kv := range [][2]string{{"credentialsFile", pr.CredentialsFile}, {"accessTokenFile", pr.AccessTokenFile}, {"quotaProject", pr.QuotaProject}, {"endpoint", pr.Endpoint}} {
			if kv[1] != "" {
				fmt.Fprintf(&b, "    %s: %s%s\n", kv[0], yamlString(kv[1]), from("profiles."+n+"."+kv[0]))
			}
		}
		if g, ok := s.profileGuards[n]; ok {
			fmt.Fprintf(&b, "    idleGuard: {after: %s, action: %s}\n", shortDuration(g.After), g.Action)
		}
	}
	renderPlugins(&b, s.Plugins, from)
	renderNotify(&b, s, from)
	return b.String()
}

// renderPlugins writes the plugins: section (nothing without plugins).
func renderPlugins(b *strings.Builder, ps []Plugin, from func(string) string) {
	if len(ps) == 0 {
		return
	}
	b.WriteString("plugins:\n")
	for _, pl := range ps {
		path := "plugins." + pl.Name
		fmt.Fprintf(b, "  %s:\n    key: %s%s\n    scope: %s\n    command: %s\n", pl.Name, yamlString(pl.Key), from(path+".key"), pl.Scope, yamlString(pl.Command))
		if pl.Description != "" {
			fmt.Fprintf(b, "    description: %s\n", yamlString(pl.Description))
		}
		if len(pl.Args) > 0 {
			q := make([]string, len(pl.Args))
			for i, a := range pl.Args {
				q[i] = yamlString(a)
			}
			fmt.Fprintf(b, "    args: [%s]\n", strings.Join(q, ", "))
		}
		for _, f := range []struct {
			name string
			on   bool
		}{{"confirm", pl.Confirm}, {"dangerous", pl.Dangerous}, {"background", pl.Background}, {"token", pl.Token}} {
			if f.on {
				fmt.Fprintf(b, "    %s: true\n", f.name)
			}
		}
		if pl.Background && pl.Timeout != DefaultPluginTimeout {
			fmt.Fprintf(b, "    timeout: %s\n", shortDuration(pl.Timeout))
		}
	}
}

// yamlString quotes s when plain YAML would misread it.
func yamlString(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./+~@", r)) {
			plain = false
			break
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "~":
		plain = false
	}
	if plain && !strings.ContainsAny(s[:1], "-~@.") {
		return s
	}
	return strconv.Quote(s)
}

// shortDuration renders d without zero units: "5m", "1m30s", "30s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = s[:len(s)-2]
	}
	if strings.HasSuffix(s, "h0m") {
		s = s[:len(s)-2]
	}
	return s
}
