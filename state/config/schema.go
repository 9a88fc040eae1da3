package config

import (
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/goccy/go-yaml/ast"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/api/safehttp"
)

// The keys the config file accepts: at the top level, under
// defaultRuntimeSpec, and in each profile.
var topKeys = []string{"refreshInterval", "expiryWarning", "renewLead", "autoRenew", "callBudget", "defaultRuntimeSpec", "theme", "profile", "keys", "profiles", "plugins", "notify", "idleGuard"}
var specKeys = []string{"variant", "accelerator", "shape"}
var profileKeys = []string{"credentials", "credentialsFile", "accessTokenFile", "quotaProject", "endpoint", "idleGuard"}

// top reads the top-level mapping of the config file into p.s (a null
// document, which entries reads as no entries, sets nothing).
func (p *cfgParser) top(body ast.Node) error {
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
			err = p.callBudget(e)
		case "autoRenew":
			err = p.autoRenew(e)
		case "theme":
			err = p.theme(e)
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
		case "plugins":
			err = p.plugins(e)
		case "notify":
			err = p.notify(e)
		case "idleGuard":
			err = p.idleGuard(e.val, "idleGuard", &s.IdleGuard)
		}
		p.record(err) // and on with the next entry: every bad line is said
		err = nil
	}
	return nil
}

// callBudget reads callBudget: calls a minute, 0 for no limit, else
// from minCallBudget to 100000.
func (p *cfgParser) callBudget(e entry) error {
	v, err := p.scalar(e.val, e.key)
	if err != nil {
		return err
	}
	n, perr := strconv.Atoi(strings.TrimSpace(v))
	switch {
	case perr != nil || n < 0 || n > 100000:
		return p.errAt(e.val, fmt.Sprintf("callBudget: %q is not accepted (accepted: calls a minute, e.g. 24; 0 for no limit)", v))
	case n > 0 && n < minCallBudget:
		return p.errAt(e.val, fmt.Sprintf("callBudget: %d is too small (at least %d calls a minute: two list_runtimes and the selected runtime's sessions; 0 for no limit)", n, minCallBudget))
	}
	p.s.CallBudget = n
	return nil
}

// autoRenew reads autoRenew: true or false, in any case.
func (p *cfgParser) autoRenew(e entry) error {
	v, err := p.scalar(e.val, e.key)
	if err != nil {
		return err
	}
	switch strings.ToLower(v) {
	case "true":
		p.s.AutoRenew = true
	case "false":
		p.s.AutoRenew = false
	default:
		return p.errAt(e.val, fmt.Sprintf("autoRenew: %q is not accepted (accepted: true or false)", v))
	}
	return nil
}

// theme reads theme: auto, dark or light, in any case.
func (p *cfgParser) theme(e entry) error {
	v, err := p.scalar(e.val, e.key)
	if err != nil {
		return err
	}
	v = strings.ToLower(v)
	p.s.Theme = v
	if v != ThemeAuto && v != ThemeDark && v != ThemeLight {
		return p.errAt(e.val, fmt.Sprintf("theme: %q is not accepted (accepted: auto, dark, light)", v))
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
		p.record(p.key(ke)) // and on with the next action
	}
	return nil
}

// key reads one action's binding of keys: ke, the action and its key or
// list of keys.
func (p *cfgParser) key(ke entry) error {
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
	return nil
}

func (p *cfgParser) profiles(e entry) error {
	es, err := p.entries(e.val, "profiles", nil)
	if err != nil {
		return err
	}
	for _, pe := range es {
		p.record(p.profile(pe)) // and on with the next profile
	}
	return nil
}

// profile reads one profile of profiles: pe, its name and its mapping.
func (p *cfgParser) profile(pe entry) error {
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
		if fe.key == "idleGuard" {
			var g IdleGuard
			if err := p.idleGuard(fe.val, path+".idleGuard", &g); err != nil {
				return err
			}
			p.s.profileGuards[name] = g
			continue
		}
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
