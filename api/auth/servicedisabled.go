package auth

import (
	"net/url"
	"regexp"
	"strings"
	"sync"

	"github.com/colabdash/colabdash/api"
)

// projectID matches a Google Cloud project id (6–30 lowercase letters,
// digits and hyphens, starting with a letter) or a project number: the
// only shapes of metadata.consumer colabdash puts into a command line.
var projectID = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[a-z][a-z0-9-]{4,28}[a-z0-9]|[0-9]{1,20})$`) })

// activationHosts are the Google consoles an ErrorInfo activationUrl may
// point at; any other URL from the reply is not printed as a fix.
var activationHosts = map[string]bool{"console.developers.google.com": true, "console.cloud.google.com": true}

// serviceDisabled is Explain's headline and fix for a 403
// SERVICE_DISABLED (or a "requires a quota project" message): the
// project Google billed is the error's metadata.consumer, which
// may differ from the quota project colabdash sent (service-account
// credentials bill their own project; with user credentials and no quota
// project it is the OAuth client's), and the fix is the error's own
// activationUrl when it is a Google console URL. project and from are the
// configured quota project and where it was set ("" when none).
func serviceDisabled(e *api.Error, msg, project, from string) (headline, fix string) {
	service := e.Metadata["service"]
	if !strings.HasSuffix(service, ".googleapis.com") || !projectID().MatchString(strings.TrimSuffix(service, ".googleapis.com")) {
		service = "colaboratory.googleapis.com"
	}
	consumer := strings.TrimPrefix(e.Metadata["consumer"], "projects/")
	if !projectID().MatchString(consumer) {
		consumer = ""
	}
	enable := ""
	if consumer != "" {
		enable = "run `gcloud services enable " + service + " --project " + consumer + "`"
	}
	if u := activationURL(e.Metadata["activationUrl"]); u != "" {
		enable = "enable it at " + u
	}
	requires := strings.Contains(msg, "requires a quota project")
	switch {
	case project == "" && (requires || consumer == ""):
		return "a quota project is required and none is set", quotaFix(from)
	case project == "":
		// No quota project sent: Google billed the OAuth client's project
		// (or the service account's own), which is rarely the user's.
		return "a quota project is required and none is set (Google billed project " + consumer +
				", where " + service + " is disabled: probably the OAuth client's project, not yours)",
			quotaFix(from) + "; or, if " + consumer + " is your project, " + enable
	case consumer == "" || consumer == project:
		h := "the Colab API (" + service + ") is disabled in quota project " + project
		if from != "" {
			h += " (from " + from + ")"
		}
		if enable == "" {
			enable = "run `gcloud services enable " + service + " --project " + project + "`"
		}
		return h, enable + ", or " + quotaFix(from)
	}
	h := "the Colab API (" + service + ") is disabled in project " + consumer + ", which Google billed instead of quota project " + project
	if from != "" {
		h += " (from " + from + ")"
	}
	h += ": the x-goog-user-project header was not honoured (service-account credentials bill their own project)"
	return h, enable + ", or use credentials that may bill " + project
}

// activationURL returns raw when it is an https URL on a Google console
// host, without user info, else "". It is printed as a fix line (the
// caller's output passes termtext and the redactor).
func activationURL(raw string) string {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil || u.Scheme != "https" || u.User != nil || !activationHosts[strings.ToLower(u.Hostname())] || u.Port() != "" {
		return ""
	}
	return u.String()
}
