package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/colabdash/colabdash/api"
	"github.com/colabdash/colabdash/state"
)

var testActions = []string{"back", "down", "help", "quit", "refresh", "up"}

func parse(t *testing.T, src string) (*Settings, error) {
	t.Helper()
	return ParseSettings("/cfg/config.yaml", []byte(src), SettingsOptions{Actions: testActions})
}

func TestEffectiveGolden(t *testing.T) {
	data, err := os.ReadFile("testdata/full.yaml")
	if err != nil {
		t.Fatal(err)
	}
	s, err := ParseSettings("testdata/full.yaml", data, SettingsOptions{Actions: testActions})
	if err != nil {
		t.Fatal(err)
	}
	got := s.Effective()
	golden.RequireEqual(t, []byte(got))
	// The effective config is itself a valid config that gives the same
	// settings.
	again, err := ParseSettings("again.yaml", []byte(got), SettingsOptions{Actions: testActions})
	if err != nil {
		t.Fatalf("effective config does not parse: %v", err)
	}
	if again.Effective() != strings.Replace(got, "# from testdata/full.yaml", "# from again.yaml", 1) {
		t.Errorf("round trip changed the settings:\n%s", again.Effective())
	}
}

func TestParsedValues(t *testing.T) {
	data, _ := os.ReadFile("testdata/full.yaml")
	s, err := ParseSettings("full.yaml", data, SettingsOptions{Actions: testActions})
	if err != nil {
		t.Fatal(err)
	}
	if s.RefreshInterval != time.Minute || s.ExpiryWarning != 10*time.Minute || s.RenewLead != 3*time.Minute || s.AutoRenew || s.CallBudget != 60 {
		t.Errorf("durations/autoRenew: %+v", s)
	}
	want := api.RuntimeSpecKey{Variant: api.VariantGPU, Accelerator: "T4", Shape: api.ShapeHighMem}
	if s.DefaultRuntimeSpec != want {
		t.Errorf("spec %+v, want %+v", s.DefaultRuntimeSpec, want)
	}
	wantNotify := Notify{Terminal: "osc9", Command: "notify-send", Args: []string{"--app-name", "colabdash"}, Timeout: 5 * time.Second,
		Mute: []state.EventKind{state.EventRuntimeIdle, state.EventCodeDone}}
	if !reflect.DeepEqual(s.Notify, wantNotify) {
		t.Errorf("notify = %+v, want %+v", s.Notify, wantNotify)
	}
	if g := s.GuardFor("work"); g != (IdleGuard{After: 20 * time.Minute, Action: GuardDelete}) {
		t.Errorf("work's idle guard = %+v, want its own (20m, delete)", g)
	}
	if g := s.GuardFor("staging"); g != (IdleGuard{After: 45 * time.Minute, Action: GuardWarn}) {
		t.Errorf("staging's idle guard = %+v, want the top-level one (45m, warn)", g)
	}
	if got := s.Keys["refresh"]; len(got) != 2 || got[0] != "ctrl+r" || got[1] != "f5" {
		t.Errorf("keys.refresh = %v", got)
	}
	if got := s.Keys["quit"]; len(got) != 1 || got[0] != "Q" {
		t.Errorf("keys.quit = %v", got)
	}
	w := s.Profiles["work"]
	if w.Credentials != CredentialsFile || w.Endpoint != api.DefaultEndpoint || w.QuotaProject != "my-project" {
		t.Errorf("work profile %+v", w)
	}
	if st := s.Profiles["staging"]; st.Credentials != CredentialsAccessToken || st.Endpoint != "http://127.0.0.1:8089/mcp" {
		t.Errorf("staging profile %+v", st)
	}
	if got := strings.Join(s.ProfileNames(), ","); got != "default,demo,staging,work" {
		t.Errorf("profiles %s", got)
	}
	if s.Line("keys.refresh") != 13 || s.Line("profiles.staging.endpoint") != 25 {
		t.Errorf("lines: keys.refresh %d, staging endpoint %d", s.Line("keys.refresh"), s.Line("profiles.staging.endpoint"))
	}
}

func TestEmptyAndCommentOnlyGiveDefaults(t *testing.T) {
	def := DefaultSettings().Effective()
	for _, src := range []string{"", "# nothing\n", "---\n"} {
		s, err := parse(t, src)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if got := strings.TrimPrefix(s.Effective(), "# from /cfg/config.yaml\n"); got != def {
			t.Errorf("%q gave\n%s", src, got)
		}
	}
}

// Each kind of error: one line naming the file, the line, and what is
// accepted.
func TestConfigErrors(t *testing.T) {
	cases := []struct {
		name, src string
		line      int
		want      []string
	}{
		{"syntax", "refreshInterval: 30s\nkeys: [\n", 2, []string{"YAML syntax"}},
		{"not a mapping", "- a\n- b\n", 1, []string{"must be a mapping", "refreshInterval"}},
		{"unknown top key", "refreshInterval: 30s\nrefresh_interval: 10s\n", 2, []string{`unknown key "refresh_interval"`, "accepted: refreshInterval"}},
		{"duplicate key", "theme: dark\ntheme: light\n", 2, []string{`"theme" already defined`}},
		{"bad duration", "refreshInterval: soon\n", 1, []string{`"soon" is not a duration`, "30s"}},
		{"duration without unit", "refreshInterval: 30\n", 1, []string{`"30" is not a duration`}},
		{"refresh too short", "refreshInterval: 1s\n", 1, []string{"too short", "at least 5s"}},
		{"zero threshold", "\nexpiryWarning: 0s\n", 2, []string{"expiryWarning", "greater than 0"}},
		{"negative lead", "renewLead: -1m\n", 1, []string{"renewLead", "greater than 0"}},
		{"bad bool", "autoRenew: sometimes\n", 1, []string{"accepted: true or false"}},
		{"bad call budget", "callBudget: lots\n", 1, []string{`"lots"`, "0 for no limit"}},
		{"call budget too small", "callBudget: 2\n", 1, []string{"too small", "at least 4"}},
		{"bad theme", "theme: solarized\n", 1, []string{`"solarized"`, "accepted: auto, dark, light"}},
		{"mapping where value", "theme:\n  dark: true\n", 2, []string{"theme must be a single value"}},
		{"bad variant", "defaultRuntimeSpec:\n  variant: fpga\n", 2, []string{"accepted: CPU, GPU, TPU"}},
		{"bad shape", "defaultRuntimeSpec:\n  shape: huge\n", 2, []string{"accepted: STANDARD, HIGHMEM"}},
		{"gpu without accelerator", "defaultRuntimeSpec:\n  variant: GPU\n", 2, []string{"needs an accelerator"}},
		{"cpu with accelerator", "defaultRuntimeSpec:\n  variant: cpu\n  accelerator: T4\n", 2, []string{"accelerator NONE"}},
		{"unknown spec key", "defaultRuntimeSpec:\n  gpu: T4\n", 2, []string{`unknown key "gpu"`, "accepted: variant, accelerator, shape"}},
		{"unknown action", "keys:\n  refresh: r\n  explode: x\n", 3, []string{`unknown action "explode"`, "accepted: back, down"}},
		{"empty key", "keys:\n  refresh: ''\n", 2, []string{"empty key"}},
		{"empty key list", "keys:\n  refresh: []\n", 2, []string{"no key given"}},
		{"unknown profile key", "profiles:\n  work:\n    token: abc\n", 3, []string{`unknown key "token"`, "accepted: credentials, credentialsFile"}},
		{"demo reserved", "profiles:\n  demo:\n    credentials: adc\n", 2, []string{"built in"}},
		{"bad credentials kind", "profiles:\n  w:\n    credentials: oauth\n", 3, []string{"accepted: adc, file, accessToken, demo"}},
		{"file without path", "profiles:\n  w:\n    credentials: file\n", 3, []string{"needs credentialsFile"}},
		{"both files", "profiles:\n  w:\n    credentialsFile: a.json\n    accessTokenFile: t\n", 3, []string{"not both"}},
		{"bad endpoint", "profiles:\n  w:\n    endpoint: colab.example\n", 3, []string{"http or https URL"}},
		{"bad notify terminal", "notify:\n  terminal: popup\n", 2, []string{`"popup"`, "accepted: auto, bell, osc9, osc777, off"}},
		{"bad mute kind", "notify:\n  mute: [job-ended, everything]\n", 2, []string{`"everything"`, "accepted: job-ended"}},
		{"notify timeout too long", "notify:\n  timeout: 1h\n", 2, []string{"notify.timeout", "from 1s to 2m"}},
		{"empty notify command", "notify:\n  command: ' '\n", 2, []string{"notify.command: empty"}},
		{"notify args not a list", "notify:\n  command: notify-send\n  args: --urgency low\n", 3, []string{"notify.args must be a list of strings"}},
		{"unknown notify key", "notify:\n  sound: yes\n", 2, []string{`unknown key "sound"`, "accepted: terminal, command"}},
		{"guard too soon", "idleGuard:\n  after: 10s\n", 2, []string{"idleGuard.after", "at least 1m"}},
		{"bad guard action", "profiles:\n  w:\n    idleGuard:\n      after: 30m\n      action: shutdown\n", 5, []string{"profiles.w.idleGuard.action", "accepted: warn, delete"}},
		{"plain http endpoint", "profiles:\n  w:\n    endpoint: http://colab.example.com/mcp\n", 3,
			[]string{"profiles.w.endpoint", "unencrypted", "use https://colab.example.com/mcp", "loopback"}},
		{"undefined profile", "profiles:\n  w: {}\nprofile: personal\n", 3, []string{`"personal" is not defined`, "default, demo, w"}},
		{"two documents", "theme: dark\n---\ntheme: light\n", 3, []string{"one YAML document"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s, err := parse(t, c.src)
			if err == nil {
				t.Fatalf("accepted:\n%s\n%s", c.src, s.Effective())
			}
			if s != nil {
				t.Errorf("returned settings alongside an error")
			}
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("error %T %v, want *ConfigError", err, err)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error is not one line: %q", msg)
			}
			if ce.Line != c.line || !strings.HasPrefix(msg, "config /cfg/config.yaml:") {
				t.Errorf("error %q: line %d, want %d", msg, ce.Line, c.line)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q lacks %q", msg, w)
				}
			}
		})
	}
}

func TestCheckKeyIsApplied(t *testing.T) {
	_, err := ParseSettings("c.yaml", []byte("keys:\n  quit: [q, hyper+q]\n"), SettingsOptions{
		Actions: testActions,
		CheckKey: func(_, k string) error {
			return map[bool]error{true: errors.New("unknown key name " + k)}[strings.HasPrefix(k, "hyper")]
		},
	})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Line != 2 || !strings.Contains(err.Error(), "hyper+q") {
		t.Fatalf("err %v", err)
	}
}

func TestLoadSettings(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "nope.yaml")
	s, err := LoadSettings(missing, false, SettingsOptions{})
	if err != nil || s.Source != "" {
		t.Fatalf("default location missing: %v, source %q", err, s.Source)
	}
	if _, err := LoadSettings(missing, true, SettingsOptions{}); err == nil || !strings.Contains(err.Error(), missing+": no such file") {
		t.Fatalf("explicit missing file: %v", err)
	}
	p := filepath.Join(dir, "c.yaml")
	os.WriteFile(p, []byte("theme: dark\n"), 0o600)
	s, err = LoadSettings(p, false, SettingsOptions{})
	if err != nil || s.Theme != ThemeDark || s.Source != p {
		t.Fatalf("load: %v %+v", err, s)
	}
}

func TestDefaultConfigPath(t *testing.T) {
	env := map[string]string{"XDG_CONFIG_HOME": "/x", "HOME": "/h"}
	if got := DefaultConfigPath(func(k string) string { return env[k] }); got != "/x/colabdash/config.yaml" {
		t.Errorf("XDG: %s", got)
	}
	delete(env, "XDG_CONFIG_HOME")
	if got := DefaultConfigPath(func(k string) string { return env[k] }); got != "/h/.config/colabdash/config.yaml" {
		t.Errorf("HOME: %s", got)
	}
}

// The config directory is the platform's (os.UserConfigDir's choice),
// and XDG_CONFIG_HOME, when set, wins on every platform.
func TestConfigDirPerPlatform(t *testing.T) {
	env := map[string]string{"HOME": "/h", "AppData": `C:\Users\u\AppData\Roaming`}
	getenv := func(k string) string { return env[k] }
	for goos, want := range map[string]string{
		"linux":   "/h/.config",
		"freebsd": "/h/.config",
		"darwin":  "/h/Library/Application Support",
		"windows": env["AppData"],
	} {
		if got := configDir(goos, getenv); got != want {
			t.Errorf("%s: %s, want %s", goos, got, want)
		}
	}
	// A file at ~/.config/colabdash (earlier versions' place) is kept
	// until the platform's directory has one.
	legacy := "/h/.config/colabdash/config.yaml"
	for _, c := range []struct {
		files []string
		want  string
	}{
		{nil, "/h/Library/Application Support/colabdash/config.yaml"},
		{[]string{legacy}, legacy},
		{[]string{legacy, "/h/Library/Application Support/colabdash/config.yaml"}, "/h/Library/Application Support/colabdash/config.yaml"},
	} {
		exists := func(p string) bool { return slices.Contains(c.files, p) }
		if got := defaultConfigPath("darwin", getenv, exists); got != c.want {
			t.Errorf("macOS with %v: %s, want %s", c.files, got, c.want)
		}
	}
	env["XDG_CONFIG_HOME"] = "/x"
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if got := configDir(goos, getenv); got != "/x" {
			t.Errorf("%s with XDG_CONFIG_HOME: %s, want /x", goos, got)
		}
	}
}

// A tab in the indentation is named as such, at its line, whatever
// goccy/go-yaml's own message for it is.
func TestTabIndentation(t *testing.T) {
	for _, src := range []string{"theme: dark\nprofiles:\n\twork:\n\t\tquotaProject: x\n", "profiles:\n  work:\n\tquotaProject: x\n"} {
		_, err := parse(t, src)
		if err == nil || err.Error() != "config /cfg/config.yaml:3: tabs are not allowed for indentation in YAML; use spaces" {
			t.Errorf("%q: %v", src, err)
		}
	}
	// A tab inside a value is not indentation.
	if _, err := parse(t, "profiles:\n  work:\n    quotaProject: \"a\\tb\"\n"); err != nil {
		t.Errorf("tab in a value: %v", err)
	}
}

// colabdash config names the line every notify: and idleGuard: value came
// from, not the first few.
func TestNotifyAndGuardLinesNamed(t *testing.T) {
	s, err := parse(t, "notify:\n  terminal: bell\n  command: notify-send\n  args: [a, b]\n  timeout: 5s\n  mute: [code-done]\nidleGuard:\n  after: 30m\n  action: delete\n")
	if err != nil {
		t.Fatal(err)
	}
	got := s.EffectiveAnnotated()
	for _, want := range []string{"terminal: bell # from config.yaml:2", "# from config.yaml:3", "args: [a, b] # from config.yaml:4",
		"timeout: 5s # from config.yaml:5", "mute: [code-done] # from config.yaml:6", "after: 30m # from config.yaml:8", "action: delete # from config.yaml:9"} {
		if !strings.Contains(got, want) {
			t.Errorf("no %q in:\n%s", want, got)
		}
	}
}
