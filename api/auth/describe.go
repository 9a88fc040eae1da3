package auth

// current returns the loaded source in use.
func (c *Credentials) current() *loaded {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.src
}

// QuotaProject returns the quota project sent as x-goog-user-project ("" when
// none) and where it came from: "--quota-project",
// "GOOGLE_CLOUD_QUOTA_PROJECT", or the credentials file's path (its
// quota_project_id).
func (c *Credentials) QuotaProject() (project, from string) {
	switch {
	case c.quotaFlag != "":
		return c.quotaFlag, c.quotaFrom
	case c.quotaEnv != "":
		return c.quotaEnv, envQuotaProject
	}
	src := c.current()
	if src != nil && src.quota != "" {
		return src.quota, src.path
	}
	return "", ""
}

// Path returns the credentials or token file in use, "" for the metadata
// server.
func (c *Credentials) Path() string { return c.current().path }

// Type returns the credentials type: the file's "type" (authorized_user,
// service_account…), "access_token" for an access token file, or
// "gce_metadata".
func (c *Credentials) Type() string {
	src := c.current()
	switch src.kind {
	case sourceAccessTokenFile:
		return "access_token"
	case sourceMetadata:
		return "gce_metadata"
	}
	return src.credType
}

// Describe says, in one line and without secrets, which credentials are in
// use and the quota project, e.g. "ADC
// (/home/u/.config/gcloud/application_default_credentials.json,
// authorized_user), quota project my-proj from GOOGLE_CLOUD_QUOTA_PROJECT".
func (c *Credentials) Describe() string {
	src := c.current()
	var s string
	switch src.kind {
	case sourceAccessTokenFile:
		s = "access token file " + src.path
	case sourceCredentialsFile:
		s = "credentials file " + src.path + " (" + src.credType
	case sourceADC:
		s = "ADC"
		if src.from == fromEnvADC {
			s += " from " + fromEnvADC
		}
		s += " (" + src.path + ", " + src.credType
	case sourceMetadata:
		s = "GCE metadata server"
	}
	if src.kind == sourceCredentialsFile || src.kind == sourceADC {
		if src.account != "" {
			s += " " + src.account
		}
		s += ")"
	}
	if p, from := c.QuotaProject(); p != "" {
		s += ", quota project " + p + " from " + from
	} else {
		s += ", no quota project"
	}
	return s
}
