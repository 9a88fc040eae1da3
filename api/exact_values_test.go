package api

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"strings"
	"testing"
	"time"
)

// Exact values of types.go and logging.go (written for the mutants
// .ci/mutation left alive there): the instant each expireTime form means,
// and what the redacting log keeps readable.

func TestParseExpireTimeExactly(t *testing.T) {
	base := time.Date(2026, 11, 29, 17, 4, 5, 0, time.UTC)
	for s, want := range map[string]time.Time{
		"2026-11-29T17:04:05Z":                    base,
		"  2026-11-29T17:04:05Z\n":                base,
		"2026-11-29t17:04:05z":                    base,
		"2026-11-29 17:04:05Z":                    base,
		"2026-11-29T18:04:05+01:00":               base,
		"2026-11-29T17:04:05.5Z":                  base.Add(500 * time.Millisecond),
		"2026-11-29T17:04:05.123456789Z":          base.Add(123456789),
		"2026-11-29T17:04:05.1234567891234Z":      base.Add(123456789), // cut to nanoseconds
		"2026-11-29T17:04:05.1234567891234+00:00": base.Add(123456789),
		"1970-01-01T00:00:00Z":                    time.Unix(0, 0).UTC(),
	} {
		got, ok := ParseExpireTime(s)
		if !ok || !got.Equal(want) {
			t.Errorf("ParseExpireTime(%q) = %v, %v; want %v", s, got, ok, want)
		}
	}
	for _, s := range []string{"", "2026-11-29T17:04:05", "2026-11-29", "1969-12-31T23:59:59Z", "2026-11-29X17:04:05Z",
		"2026-11-29T17:04:05.Z", "0001-01-01T00:00:00Z"} {
		if got, ok := ParseExpireTime(s); ok || !got.IsZero() {
			t.Errorf("ParseExpireTime(%q) = %v, %v; want unknown", s, got, ok)
		}
	}
	// The shortest valid form is accepted, one character less is not.
	if _, ok := ParseExpireTime("2026-11-29T17:04:05Z"); !ok {
		t.Error("20-character timestamp refused")
	}
	if got, ok := ParseExpireTime("2026-11-29T17:04:5Z"); ok {
		t.Errorf("19-character timestamp read as %v", got)
	}
}

func TestConnectionInfoJSON(t *testing.T) {
	var c ConnectionInfo
	if err := json.Unmarshal([]byte(`{"url":"https://u","token":"tok","expireTime":""}`), &c); err != nil || !c.ExpireTime.IsZero() || c.URL != "https://u" {
		t.Fatalf("empty expireTime: %+v %v", c, err)
	}
	if err := json.Unmarshal([]byte(`{"expireTime":12}`), &c); err != nil || !c.ExpireTime.IsZero() {
		t.Fatalf("numeric expireTime: %+v %v", c, err)
	}
	b, _ := json.Marshal(ConnectionInfo{URL: "https://u"})
	if strings.Contains(string(b), "expireTime") {
		t.Errorf("unknown expiry marshalled: %s", b)
	}
	b, _ = json.Marshal(ConnectionInfo{ExpireTime: time.Date(2026, 1, 2, 3, 4, 5, 600, time.FixedZone("x", 3600))})
	if !strings.Contains(string(b), `"expireTime":"2026-01-02T02:04:05.0000006Z"`) {
		t.Errorf("expireTime not RFC 3339 UTC: %s", b)
	}
}

func TestSpecKeyAndNames(t *testing.T) {
	for k, want := range map[RuntimeSpecKey]string{
		{Variant: VariantGPU, Accelerator: "T4", Shape: ShapeStandard}:           "GPU/T4/STANDARD",
		{Variant: VariantCPU, Accelerator: AcceleratorNone, Shape: ShapeHighMem}: "CPU/HIGHMEM",
		{Variant: VariantCPU, Shape: ShapeStandard}:                              "CPU/STANDARD",
	} {
		if got := k.String(); got != want {
			t.Errorf("%+v.String() = %q, want %q", k, got, want)
		}
	}
	for name, want := range map[string]string{"runtimes/r1": "r1", "runtimes/r1/sessions/s1": "s1", "/x": "x", "bare": "bare", "trailing/": ""} {
		if got := LastSegment(name); got != want {
			t.Errorf("LastSegment(%q) = %q, want %q", name, got, want)
		}
	}
}

func TestRedactorKeepsWhatIsNotSecret(t *testing.T) {
	var r Redactor
	r.Add("abcdef", "abcde", "  padded-secret \n")
	for in, want := range map[string]string{
		"six abcdef here":                 "six " + Redacted + " here", // 6 bytes: registered
		"five abcde here":                 "five abcde here",           // 5 bytes: ignored
		"x padded-secret y":               "x " + Redacted + " y",
		"Authorization: Bearer qwerty123": "Authorization: " + Redacted,
		"sent Bearer qwerty123 along":     "sent Bearer " + Redacted + " along",
		"sent bearer\tqwerty123 along":    "sent bearer\t" + Redacted + " along",
		"a ya29.qwerty token":             "a " + Redacted + " token",
		"https://h/p?token=qwerty&x=1":    "https://h/p?token=" + Redacted + "&x=1",
	} {
		if got := r.Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
	var nilR *Redactor
	nilR.Add("whatever-secret")
	if got := nilR.Redact("Bearer qwerty123"); got != "Bearer "+Redacted {
		t.Errorf("nil Redactor: %q", got)
	}
}

func TestRedactingHandlerValues(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(NewRedactingHandler(slog.NewTextHandler(&buf, nil), &Redactor{}))
	log.Info("m", "token", "", "refresh_token", 42, "note", []byte("raw Bearer qwerty123"), "none", nil,
		"ci", ConnectionInfo{URL: "https://u"}, "ci2", ConnectionInfo{URL: "https://v", Token: "proxy-tok-1"},
		"m", map[string]string{"token": "json-tok-2", "k": "v"}, "ch", make(chan int))
	out := buf.String()
	for _, want := range []string{`token=""`, "refresh_token=" + Redacted, `note="raw Bearer ` + Redacted + `"`, "none=<nil>",
		"ci.url=https://u ci.token=\"\"", "ci2.token=" + Redacted, `"token\":\"` + Redacted, `\"k\":\"v\"`, `ch="<chan int>"`} {
		if !strings.Contains(out, want) {
			t.Errorf("log lacks %s:\n%s", want, out)
		}
	}
}
