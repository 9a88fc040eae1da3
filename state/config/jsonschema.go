package config

import (
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/colabdash/colabdash/api"
)

// SchemaID is the $id of the config file's JSON Schema: where a
// yaml-language-server comment or an editor's settings may point.
const SchemaID = "https://github.com/colabdash/colabdash/raw/main/docs/reference/config.schema.json"

// durationPattern matches a Go duration with a unit on every number
// ("30s", "1m30s", "1.5h"): a bare number is refused, as the parser does.
const durationPattern = `^([0-9]+(\.[0-9]+)?(ns|us|µs|ms|s|m|h))+$`

// profileNamePattern is validProfileName as a regular expression.
const profileNamePattern = `^[A-Za-z0-9_-]{1,63}$`

// FileSchema returns the JSON Schema (draft 2020-12) of the config file,
// built from the keys the parser accepts (topKeys, specKeys, profileKeys)
// so that editors validate and complete config.yaml as colabdash reads
// it. actions are the names keys: accepts (keymap.Actions()). The schema
// checks each value's shape (types, enums, the duration syntax, limits);
// what depends on several values (a profile's credentials and files, a
// key bound twice) is left to colabdash itself (config --check). An error
// means a key the parser accepts has no description here.
func FileSchema(actions []string) (*jsonschema.Schema, error) {
	props := map[string]*jsonschema.Schema{
		"refreshInterval": duration(fmt.Sprintf("how often the dashboard lists runtimes and sessions; at least %s", shortDuration(MinRefreshInterval)), DefaultRefreshInterval.String()),
		"expiryWarning":   duration("a proxy token with at most this much left shows EXPIRING", "5m0s"),
		"renewLead":       duration("a proxy token with at most this much left is renewed (get_runtime); --renew-lead overrides it", "5m0s"),
		"autoRenew":       {Type: "boolean", Description: "renew proxy tokens before they lapse", Default: []byte("true")},
		"callBudget": {Type: "integer", Description: fmt.Sprintf("background calls a minute the dashboard makes at most; 0 for no limit, else at least %d", minCallBudget),
			AnyOf: []*jsonschema.Schema{{Const: anyp(0)}, {Minimum: floatp(minCallBudget), Maximum: floatp(100000)}}},
		"defaultRuntimeSpec": {Type: "object", Description: "the runtimeSpec preselected when creating a runtime",
			AdditionalProperties: falseSchema(), Properties: specProps()},
		"theme":     caseless("colours for a dark or light terminal background; auto asks the terminal", ThemeAuto, ThemeDark, ThemeLight),
		"profile":   {Type: "string", Description: "the profile used when neither --profile nor COLABDASH_PROFILE picks one", Default: []byte(`"default"`)},
		"keys":      keysSchema(actions),
		"profiles":  profilesSchema(),
		"plugins":   pluginsSchema(),
		"notify":    notifySchema(),
		"idleGuard": guardSchema(),
	}
	profile := props["profiles"].AdditionalProperties
	for _, c := range []struct {
		what  string
		props map[string]*jsonschema.Schema
		keys  []string
	}{{"", props, topKeys}, {"defaultRuntimeSpec.", props["defaultRuntimeSpec"].Properties, specKeys}, {"profiles.NAME.", profile.Properties, profileKeys},
		{"plugins.NAME.", props["plugins"].AdditionalProperties.Properties, pluginKeys},
		{"notify.", props["notify"].Properties, notifyKeys}, {"idleGuard.", props["idleGuard"].Properties, guardKeys}} {
		if err := sameKeys(c.what, c.props, c.keys); err != nil {
			return nil, err
		}
	}
	return &jsonschema.Schema{
		Schema: "https://json-schema.org/draft/2020-12/schema", ID: SchemaID,
		Title:       "colabdash config.yaml",
		Description: "colabdash's configuration file (docs/configuration.md). Every key is optional.",
		Types:       []string{"object", "null"}, AdditionalProperties: falseSchema(), Properties: props,
	}, nil
}

func specProps() map[string]*jsonschema.Schema {
	return map[string]*jsonschema.Schema{
		"variant": caseless("the runtime variant", "CPU", "GPU", "TPU", "VARIANT_CPU", "VARIANT_GPU", "VARIANT_TPU"),
		"accelerator": {Type: "string", MinLength: intp(1), Description: "NONE for CPU, else a name from list_runtime_specs such as T4, A100, V6E1",
			Examples: []any{api.AcceleratorNone, "T4", "L4", "A100", "V6E1"}},
		"shape": caseless("the machine shape", "STANDARD", "HIGHMEM", "SHAPE_STANDARD", "SHAPE_HIGHMEM"),
	}
}

func keysSchema(actions []string) *jsonschema.Schema {
	names := make([]any, len(actions))
	for i, a := range actions {
		names[i] = a
	}
	key := &jsonschema.Schema{Type: "string", MinLength: intp(1)}
	return &jsonschema.Schema{Type: "object",
		Description:   "key bindings: an action name and the keys that replace its defaults (a key such as r, ctrl+r, f5, or a list)",
		PropertyNames: &jsonschema.Schema{Enum: names},
		AdditionalProperties: &jsonschema.Schema{AnyOf: []*jsonschema.Schema{key,
			{Type: "array", Items: key, MinItems: intp(1)}}},
	}
}

func profilesSchema() *jsonschema.Schema {
	profile := &jsonschema.Schema{Type: "object", AdditionalProperties: falseSchema(),
		Description: "an account and endpoint: credentials is inferred from credentialsFile or accessTokenFile when left out",
		Properties: map[string]*jsonschema.Schema{
			"credentials":     {Type: "string", Enum: []any{CredentialsADC, CredentialsFile, CredentialsAccessToken, CredentialsDemo}, Description: "adc (Application Default Credentials), file, accessToken or demo (the embedded emulator)"},
			"credentialsFile": {Type: "string", MinLength: intp(1), Description: "a Google credentials JSON file (credentials: file); a leading ~/ is the home directory"},
			"accessTokenFile": {Type: "string", MinLength: intp(1), Description: "a file holding one OAuth access token (credentials: accessToken)"},
			"quotaProject":    {Type: "string", Description: "the Google Cloud project billed for quota (x-goog-user-project)"},
			"endpoint": {Type: "string", Pattern: `^https?://[^/?#]+`, Description: "the Colab MCP endpoint: https, or http to a loopback host only",
				Default: []byte(`"` + api.DefaultEndpoint + `"`)},
			"idleGuard": guardSchema(),
		}}
	return &jsonschema.Schema{Type: "object", Description: "named profiles; demo is built in and cannot be redefined",
		PropertyNames:        &jsonschema.Schema{Pattern: profileNamePattern, Not: &jsonschema.Schema{Const: anyp(ProfileDemo)}},
		AdditionalProperties: profile}
}

func pluginsSchema() *jsonschema.Schema {
	flag := func(desc string) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "boolean", Description: desc, Default: []byte("false")}
	}
	scopes := make([]any, len(PluginScopes))
	for i, s := range PluginScopes {
		scopes[i] = s
	}
	plugin := &jsonschema.Schema{Type: "object", AdditionalProperties: falseSchema(), Required: []string{"key", "scope", "command"},
		Description: "a command bound to a dashboard key; run without a shell, the selection in COLABDASH_* environment variables",
		Properties: map[string]*jsonschema.Schema{
			"key":         {Type: "string", MinLength: intp(1), Description: "the dashboard key, e.g. ctrl+j or J; not one a built-in action of the scope has"},
			"description": {Type: "string", Description: "the help text shown by ? and in the footer"},
			"scope":       {Type: "string", Enum: scopes, Description: "where the key is read: the runtimes table, the sessions pane or the files pane"},
			"command":     {Type: "string", MinLength: intp(1), Description: "the program: a path, or a name looked up on PATH"},
			"args":        {Type: "array", Items: &jsonschema.Schema{Type: "string"}, Description: "its arguments, passed as written (no shell, nothing substituted)"},
			"confirm":     flag("ask before running it"),
			"dangerous":   flag("it changes something: refused under --readonly"),
			"background":  flag("run it without suspending the dashboard, within timeout; its output goes to the event log"),
			"token":       flag("add the runtime's proxy token to its environment as COLABDASH_TOKEN"),
			"timeout":     duration(fmt.Sprintf("how long a background plugin may run, at most %s", shortDuration(MaxPluginTimeout)), shortDuration(DefaultPluginTimeout)),
		}}
	return &jsonschema.Schema{Type: "object", Description: "plugins by name (letters, digits, - and _)",
		PropertyNames: &jsonschema.Schema{Pattern: pluginNameRE().String()}, AdditionalProperties: plugin}
}

// sameKeys checks that the schema's properties are the keys the parser
// accepts, no more and no fewer; prefix names the mapping in the error.
func sameKeys(prefix string, props map[string]*jsonschema.Schema, keys []string) error {
	for _, k := range keys {
		if props[k] == nil {
			return fmt.Errorf("config key %s%s has no schema", prefix, k)
		}
	}
	if len(props) != len(keys) {
		return fmt.Errorf("the schema of %q has %d keys, the parser accepts %d", prefix, len(props), len(keys))
	}
	return nil
}

// duration is a Go duration setting's schema.
func duration(desc, def string) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "string", Pattern: durationPattern, Description: desc + " (a Go duration such as 30s, 5m, 1m30s)",
		Default: []byte(`"` + def + `"`)}
}

// caseless accepts values in any case (as the parser does) and offers
// them as written for completion.
func caseless(desc string, values ...string) *jsonschema.Schema {
	enum := make([]any, len(values))
	alts := make([]string, len(values))
	for i, v := range values {
		enum[i] = v
		var b strings.Builder
		for _, r := range v {
			lo, up := strings.ToLower(string(r)), strings.ToUpper(string(r))
			if lo == up {
				b.WriteString(lo)
			} else {
				b.WriteString("[" + up + lo + "]")
			}
		}
		alts[i] = b.String()
	}
	return &jsonschema.Schema{Type: "string", Description: desc,
		AnyOf: []*jsonschema.Schema{{Enum: enum}, {Pattern: "^(" + strings.Join(alts, "|") + ")$"}}}
}

func falseSchema() *jsonschema.Schema { return &jsonschema.Schema{Not: &jsonschema.Schema{}} }
func intp(n int) *int                 { return &n }
func floatp(f float64) *float64       { return &f }
func anyp(v any) *any                 { return &v }
