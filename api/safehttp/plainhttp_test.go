package safehttp

import (
	"errors"
	"net/url"
	"strings"
	"testing"
)

// A credential goes over https anywhere and over plain http only to
// loopback; the refusal names the https form without repeating a secret
// the URL carries.
func TestCheckCredentialURL(t *testing.T) {
	for _, c := range []struct {
		raw   string
		ok    bool
		https string
	}{
		{"https://colaboratory.googleapis.com/mcp", true, ""},
		{"https://10.0.0.5:8443/mcp", true, ""},
		{"http://127.0.0.1:8089/mcp", true, ""},
		{"http://127.8.9.10/mcp", true, ""},
		{"http://[::1]:8089/mcp", true, ""},
		{"http://localhost:8089/mcp", true, ""},
		{"http://LOCALHOST./mcp", true, ""},
		{"HTTP://127.0.0.1/mcp", true, ""},
		{"http://colab.example.com/mcp", false, "https://colab.example.com/mcp"},
		{"http://10.0.0.5:8888/?token=SECRET", false, "https://10.0.0.5:8888/?…"},
		{"http://user:SECRET@192.168.1.2/x", false, "https://192.168.1.2/x"},
		{"http://128.0.0.1/mcp", false, "https://128.0.0.1/mcp"},
		{"http://localhost.example.com/mcp", false, "https://localhost.example.com/mcp"},
		{"http://[::2]/mcp", false, "https://[::2]/mcp"},
		{"HTTP://colab.example.com/mcp", false, "https://colab.example.com/mcp"},
	} {
		u, err := url.Parse(c.raw)
		if err != nil {
			t.Fatal(err)
		}
		err = CheckCredentialURL(u)
		if (err == nil) != c.ok {
			t.Errorf("%s: err %v, want ok %v", c.raw, err, c.ok)
			continue
		}
		if c.ok {
			continue
		}
		var pe *PlainHTTPError
		if !errors.As(err, &pe) || pe.HTTPS != c.https {
			t.Errorf("%s: %#v, want the https form %s", c.raw, err, c.https)
		}
		msg := err.Error()
		if strings.Contains(msg, "SECRET") || strings.Contains(msg, "\n") || !strings.Contains(msg, "unencrypted") || !strings.Contains(msg, c.https) {
			t.Errorf("%s: message %q", c.raw, msg)
		}
	}
}
