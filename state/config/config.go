// Package config reads colabdash's YAML config file (settings, profiles, key
// bindings) and renders the settings in effect with where each value came
// from. Precedence (flag > environment > file > default) is resolved by the
// command package; this package holds the parsed values and their origins.
package config

// Why this file is over 400 lines: one YAML schema's parser, validator and renderer with origins; split up, the schema would be scattered over files.

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/goccy/go-yaml/ast"
	"github.com/goccy/go-yaml/parser"
	"github.com/goccy/go-yaml/token"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safefile"
	"github.com/colabdash/colabdash/api/safehttp"
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
	// limit; default state.DefaultCallBudget, 24): list_runtimes, the
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
	// Source is the file the settings came from ("" = built-in defaults).
	Source string

	lines   map[string]int    // YAML path ("keys.refresh") → line
	origins map[string]string // YAML path → what overrode it ("--theme")
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
		lines: map[string]int{},
	}
}

// ConfigError is a config file that cannot be used: File and Line (1-based,
// 0 when unknown) say where, Msg what is wrong and what is accepted.
type ConfigError struct {
	File string
	Line int
	Msg  string
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
}

var topKeys = []string{"refreshInterval", "expiryWarning", "renewLead", "autoRenew", "callBudget", "defaultRuntimeSpec", "theme", "profile", "keys", "profiles"}
var specKeys = []string{"variant", "accelerator", "shape"}
var profileKeys = []string{"credentials", "credentialsFile", "accessTokenFile", "quotaProject", "endpoint"}

// ParseSettings parses a config file's bytes. file names it in errors.
// It returns a *ConfigError for a YAML syntax error, an unknown key, a
// duplicate key or a bad value, naming the line and what is accepted;
// nothing is half-applied. Empty input gives the defaults.
func ParseSettings(file string, data []byte, o SettingsOptions) (*Settings, error) {
	s := DefaultSettings()
	s.Source = file
	p := &cfgParser{file: file, s: s, o: o}
	if err := checkYAMLLimits(file, data); err != nil {
		return nil, err
	}
	f, err := parser.ParseBytes(data, 0)
	if err != nil {
		line, msg := 0, err.Error()
		var ye interface {
			GetToken() *token.Token
			GetMessage() string
		}
		if errors.As(err, &ye) {
			msg = "YAML syntax: " + ye.GetMessage()
			if tk := ye.GetToken(); tk != nil && tk.Position != nil {
				line = tk.Position.Line
			}
		}
		if l := tabIndented(data, line); l > 0 {
			line, msg = l, "tabs are not allowed for indentation in YAML; use spaces"
		}
		return nil, &ConfigError{File: file, Line: line, Msg: api.OneLine(msg, 200)}
	}
	if len(f.Docs) > 1 {
		return nil, p.errAt(f.Docs[1], "only one YAML document is accepted")
	}
	if len(f.Docs) == 1 && f.Docs[0].Body != nil {
		if err := p.top(f.Docs[0].Body); err != nil {
			return nil, err
		}
	}
	if err := p.check(); err != nil {
		return nil, err
	}
	return s, nil
}

// tabIndented returns the 1-based number of the first line, at or before
// line (any line when line is 0), whose indentation holds a tab, or 0 when
// none does; a YAML syntax error there is the tab's doing.
func tabIndented(data []byte, line int) int {
	for i, l := range strings.Split(string(data), "\n") {
		if line > 0 && i+1 > line {
			break
		}
		indent := l[:len(l)-len(strings.TrimLeft(l, " \t"))]
		if strings.Contains(indent, "\t") && strings.TrimSpace(l) != "" {
			return i + 1
		}
	}
	return 0
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
// --config nor COLABDASH_CONFIG names one:
// $XDG_CONFIG_HOME/colabdash/config.yaml, else
// ~/.config/colabdash/config.yaml. getenv reads the environment.
func DefaultConfigPath(getenv func(string) string) string {
	dir := getenv("XDG_CONFIG_HOME")
	if dir == "" {
		home := getenv("HOME")
		if home == "" {
			home, _ = os.UserHomeDir()
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "colabdash", "config.yaml")
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

type cfgParser struct {
	file string
	s    *Settings
	o    SettingsOptions
}

func (p *cfgParser) errAt(n ast.Node, msg string) *ConfigError {
	return &ConfigError{File: p.file, Line: nodeLine(n), Msg: msg}
}

// nodeLine returns n's line, or 0. go-yaml's DocumentNode.GetToken
// dereferences a nil start token for a document opened by a bare "---"
// (found by FuzzLoadConfig: "0\n---" panicked), so a document falls back
// to its body and any other panic means "line unknown".
func nodeLine(n ast.Node) (line int) {
	defer func() {
		if recover() != nil {
			line = 0
		}
	}()
	if d, ok := n.(*ast.DocumentNode); ok {
		if d == nil || d.Start == nil {
			if d == nil || d.Body == nil {
				return 0
			}
			n = d.Body
		}
	}
	if n == nil {
		return 0
	}
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		return tk.Position.Line
	}
	return 0
}

type entry struct {
	key   string
	knode ast.Node
	val   ast.Node
}

// entries returns a mapping's key/value pairs in order, rejecting anything
// else, unknown keys (when allowed is non-nil) and duplicates.
func (p *cfgParser) entries(n ast.Node, what string, allowed []string) ([]entry, error) {
	var vals []*ast.MappingValueNode
	switch m := n.(type) {
	case *ast.MappingNode:
		vals = m.Values
	case *ast.MappingValueNode:
		vals = []*ast.MappingValueNode{m}
	case *ast.NullNode:
		return nil, nil
	default:
		hint := ""
		if allowed != nil {
			hint = " with keys " + strings.Join(allowed, ", ")
		}
		return nil, p.errAt(n, what+" must be a mapping"+hint)
	}
	seen := map[string]int{}
	out := make([]entry, 0, len(vals))
	for _, mv := range vals {
		if mv.Key == nil {
			continue
		}
		if mv.Key.IsMergeKey() {
			return nil, p.errAt(mv.Key, "merge keys (<<) are not accepted")
		}
		k := mv.Key.GetToken().Value
		if allowed != nil && !slices.Contains(allowed, k) {
			msg := fmt.Sprintf("unknown key %q in %s (accepted: %s)", k, what, strings.Join(allowed, ", "))
			return nil, p.errAt(mv.Key, msg)
		}
		line := mv.Key.GetToken().Position.Line
		if first, dup := seen[k]; dup {
			return nil, p.errAt(mv.Key, fmt.Sprintf("key %q appears twice in %s (first on line %d)", k, what, first))
		}
		seen[k] = line
		out = append(out, entry{key: k, knode: mv.Key, val: mv.Value})
	}
	return out, nil
}

// scalar returns a scalar value's text; mappings, lists and aliases are
// errors.
func (p *cfgParser) scalar(n ast.Node, what string) (string, error) {
	switch v := n.(type) {
	case *ast.NullNode:
		return "", nil
	case *ast.StringNode:
		return v.Value, nil
	case *ast.IntegerNode, *ast.FloatNode, *ast.BoolNode, *ast.InfinityNode, *ast.NanNode, *ast.LiteralNode:
		return strings.TrimSpace(n.String()), nil
	}
	return "", p.errAt(n, what+" must be a single value, not a "+strings.ToLower(n.Type().String()))
}

func (p *cfgParser) mark(path string, n ast.Node) {
	if tk := n.GetToken(); tk != nil && tk.Position != nil {
		p.s.lines[path] = tk.Position.Line
	}
}

func (p *cfgParser) duration(e entry, positive time.Duration) (time.Duration, error) {
	v, err := p.scalar(e.val, e.key)
	if err != nil {
		return 0, err
	}
	d, perr := time.ParseDuration(v)
	if perr != nil {
		return 0, p.errAt(e.val, fmt.Sprintf("%s: %q is not a duration (accepted: Go durations such as 30s, 5m, 1m30s)", e.key, v))
	}
	if d < positive || d <= 0 {
		if positive > 0 {
			return 0, p.errAt(e.val, fmt.Sprintf("%s: %s is too short (accepted: at least %s)", e.key, v, shortDuration(positive)))
		}
		return 0, p.errAt(e.val, fmt.Sprintf("%s: %s must be greater than 0 (e.g. 5m)", e.key, v))
	}
	return d, nil
}

func (p *cfgParser) top(body ast.Node) error {
	if _, ok := body.(*ast.NullNode); ok {
		return nil
	}
	es, err := p.entries(body, "the config file", topKeys)
	if err != nil {
		return err
	}
	s := p.s
	for _, e := range es {
		p.mark(e.key, e.knode)
		switch e.key {
		case "refreshInterval":
			s.RefreshInterval, err = p.duration(e, MinRefreshInterval)
		case "expiryWarning":
			s.ExpiryWarning, err = p.duration(e, 0)
		case "renewLead":
			s.RenewLead, err = p.duration(e, 0)
		case "callBudget":
			var v string
			if v, err = p.scalar(e.val, e.key); err == nil {
				n, perr := strconv.Atoi(strings.TrimSpace(v))
				switch {
				case perr != nil || n < 0 || n > 100000:
					err = p.errAt(e.val, fmt.Sprintf("callBudget: %q is not accepted (accepted: calls a minute, e.g. 24; 0 for no limit)", v))
				case n > 0 && n < minCallBudget:
					err = p.errAt(e.val, fmt.Sprintf("callBudget: %d is too small (at least %d calls a minute: two list_runtimes and the selected runtime's sessions; 0 for no limit)", n, minCallBudget))
				default:
					s.CallBudget = n
				}
			}
		case "autoRenew":
			var v string
			if v, err = p.scalar(e.val, e.key); err == nil {
				switch strings.ToLower(v) {
				case "true":
					s.AutoRenew = true
				case "false":
					s.AutoRenew = false
				default:
					err = p.errAt(e.val, fmt.Sprintf("autoRenew: %q is not accepted (accepted: true or false)", v))
				}
			}
		case "theme":
			var v string
			if v, err = p.scalar(e.val, e.key); err == nil {
				if v = strings.ToLower(v); v != ThemeAuto && v != ThemeDark && v != ThemeLight {
					err = p.errAt(e.val, fmt.Sprintf("theme: %q is not accepted (accepted: auto, dark, light)", v))
				}
				s.Theme = v
			}
		case "profile":
			var v string
			if v, err = p.scalar(e.val, e.key); err == nil {
				s.Profile = v // checked once every profile is known
			}
		case "defaultRuntimeSpec":
			err = p.spec(e)
		case "keys":
			err = p.keys(e)
		case "profiles":
			err = p.profiles(e)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func (p *cfgParser) spec(e entry) error {
	es, err := p.entries(e.val, "defaultRuntimeSpec", specKeys)
	if err != nil {
		return err
	}
	k := &p.s.DefaultRuntimeSpec
	accSet := false
	for _, se := range es {
		p.mark("defaultRuntimeSpec."+se.key, se.knode)
		v, err := p.scalar(se.val, "defaultRuntimeSpec."+se.key)
		if err != nil {
			return err
		}
		up := strings.ToUpper(strings.TrimSpace(v))
		switch se.key {
		case "variant":
			up = strings.TrimPrefix(up, "VARIANT_")
			if up != "CPU" && up != "GPU" && up != "TPU" {
				return p.errAt(se.val, fmt.Sprintf("defaultRuntimeSpec.variant: %q is not accepted (accepted: CPU, GPU, TPU)", v))
			}
			k.Variant = api.Variant("VARIANT_" + up)
		case "accelerator":
			if up == "" {
				return p.errAt(se.val, "defaultRuntimeSpec.accelerator: empty (accepted: NONE for CPU, or a name from list_runtime_specs such as T4, A100, V6E1)")
			}
			k.Accelerator, accSet = up, true
		case "shape":
			up = strings.TrimPrefix(up, "SHAPE_")
			if up != "STANDARD" && up != "HIGHMEM" {
				return p.errAt(se.val, fmt.Sprintf("defaultRuntimeSpec.shape: %q is not accepted (accepted: STANDARD, HIGHMEM)", v))
			}
			k.Shape = api.Shape("SHAPE_" + up)
		}
	}
	switch {
	case k.Variant == api.VariantCPU && accSet && k.Accelerator != api.AcceleratorNone:
		return p.errAt(e.val, fmt.Sprintf("defaultRuntimeSpec: a CPU runtime has accelerator NONE, not %s", k.Accelerator))
	case k.Variant == api.VariantCPU:
		k.Accelerator = api.AcceleratorNone
	case !accSet || k.Accelerator == api.AcceleratorNone:
		return p.errAt(e.val, fmt.Sprintf("defaultRuntimeSpec: variant %s needs an accelerator (e.g. T4 or A100 for GPU, V6E1 for TPU)", k.Variant.Short()))
	}
	return nil
}

func (p *cfgParser) keys(e entry) error {
	es, err := p.entries(e.val, "keys", nil)
	if err != nil {
		return err
	}
	for _, ke := range es {
		if !slices.Contains(p.o.Actions, ke.key) {
			return p.errAt(ke.knode, fmt.Sprintf("keys: unknown action %q (accepted: %s)", ke.key, strings.Join(p.o.Actions, ", ")))
		}
		p.mark("keys."+ke.key, ke.knode)
		var items []ast.Node
		if seq, ok := ke.val.(*ast.SequenceNode); ok {
			items = seq.Values
		} else {
			items = []ast.Node{ke.val}
		}
		var keys []string
		for _, it := range items {
			v, err := p.scalar(it, "keys."+ke.key)
			if err != nil {
				return err
			}
			if v == "" {
				return p.errAt(it, fmt.Sprintf("keys.%s: empty key (accepted: a key such as r, ctrl+r, f5, or a list [r, f5])", ke.key))
			}
			if p.o.CheckKey != nil {
				if err := p.o.CheckKey(ke.key, v); err != nil {
					return p.errAt(it, fmt.Sprintf("keys.%s: %v", ke.key, err))
				}
			}
			keys = append(keys, v)
		}
		if len(keys) == 0 {
			return p.errAt(ke.val, fmt.Sprintf("keys.%s: no key given (accepted: a key such as r, or a list [r, f5])", ke.key))
		}
		p.s.Keys[ke.key] = keys
	}
	return nil
}

func (p *cfgParser) profiles(e entry) error {
	es, err := p.entries(e.val, "profiles", nil)
	if err != nil {
		return err
	}
	for _, pe := range es {
		name := pe.key
		path := "profiles." + name
		p.mark(path, pe.knode)
		if name == ProfileDemo {
			return p.errAt(pe.knode, `profile "demo" is built in (the embedded emulator) and cannot be redefined; choose another name`)
		}
		if !validProfileName(name) {
			return p.errAt(pe.knode, fmt.Sprintf("profile name %q is not accepted (accepted: letters, digits, - and _)", name))
		}
		fes, err := p.entries(pe.val, path, profileKeys)
		if err != nil {
			return err
		}
		pr := Profile{Name: name}
		var kindNode ast.Node
		for _, fe := range fes {
			p.mark(path+"."+fe.key, fe.knode)
			v, err := p.scalar(fe.val, path+"."+fe.key)
			if err != nil {
				return err
			}
			switch fe.key {
			case "credentials":
				pr.Credentials, kindNode = v, fe.val
			case "credentialsFile":
				pr.CredentialsFile = v
			case "accessTokenFile":
				pr.AccessTokenFile = v
			case "quotaProject":
				pr.QuotaProject = v
			case "endpoint":
				u, perr := url.Parse(v)
				if perr != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
					return p.errAt(fe.val, fmt.Sprintf("%s.endpoint: %q is not accepted (accepted: an http or https URL such as %s)", path, v, api.DefaultEndpoint))
				}
				if err := safehttp.CheckCredentialURL(u); err != nil { // the bearer token goes there
					return p.errAt(fe.val, fmt.Sprintf("%s.endpoint: %s: %v", path, safehttp.Redact(u), err))
				}
				pr.Endpoint = v
			}
		}
		if err := p.checkProfile(&pr, kindNode, pe.val); err != nil {
			return err
		}
		p.s.Profiles[name] = pr
	}
	return nil
}

func (p *cfgParser) checkProfile(pr *Profile, kindNode, at ast.Node) error {
	path := "profiles." + pr.Name
	if pr.Credentials == "" {
		switch {
		case pr.AccessTokenFile != "" && pr.CredentialsFile != "":
			return p.errAt(at, path+": set credentialsFile or accessTokenFile, not both")
		case pr.AccessTokenFile != "":
			pr.Credentials = CredentialsAccessToken
		case pr.CredentialsFile != "":
			pr.Credentials = CredentialsFile
		default:
			pr.Credentials = CredentialsADC
		}
	}
	if kindNode == nil {
		kindNode = at
	}
	switch pr.Credentials {
	case CredentialsADC:
		if pr.CredentialsFile != "" || pr.AccessTokenFile != "" {
			return p.errAt(kindNode, path+": credentials adc takes no credentialsFile or accessTokenFile")
		}
	case CredentialsFile:
		if pr.CredentialsFile == "" || pr.AccessTokenFile != "" {
			return p.errAt(kindNode, path+": credentials file needs credentialsFile (and no accessTokenFile)")
		}
	case CredentialsAccessToken:
		if pr.AccessTokenFile == "" || pr.CredentialsFile != "" {
			return p.errAt(kindNode, path+": credentials accessToken needs accessTokenFile (and no credentialsFile)")
		}
	case CredentialsDemo:
		if pr.CredentialsFile != "" || pr.AccessTokenFile != "" || pr.Endpoint != "" || pr.QuotaProject != "" {
			return p.errAt(kindNode, path+": credentials demo uses the embedded emulator and takes no other setting")
		}
	default:
		return p.errAt(kindNode, fmt.Sprintf("%s.credentials: %q is not accepted (accepted: adc, file, accessToken, demo)", path, pr.Credentials))
	}
	if pr.Endpoint == "" && pr.Credentials != CredentialsDemo {
		pr.Endpoint = api.DefaultEndpoint
	}
	return nil
}

func validProfileName(n string) bool {
	if n == "" || len(n) > 63 {
		return false
	}
	for _, r := range n {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// check validates settings that depend on each other.
func (p *cfgParser) check() error {
	s := p.s
	if _, ok := s.Profiles[s.Profile]; !ok {
		return s.ErrorAt("profile", fmt.Sprintf("profile: %q is not defined (accepted: %s)", s.Profile, strings.Join(s.ProfileNames(), ", ")))
	}
	return nil
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

// Clone returns a deep copy of s, to apply overrides to (see SetOrigin)
// without changing s.
func (s *Settings) Clone() *Settings {
	c := *s
	c.Keys = maps.Clone(s.Keys)
	c.Profiles = maps.Clone(s.Profiles)
	c.lines = maps.Clone(s.lines)
	c.origins = maps.Clone(s.origins)
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
	}
	return b.String()
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
