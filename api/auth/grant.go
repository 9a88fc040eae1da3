package auth

import (
	"context"
	"strings"
	"time"
)

// Grant is what getting one access token told about the credentials, for
// `colabdash doctor`: no token value, only its shape.
//
// Expiry is when the access token expires (zero when unknown: an access
// token file does not say). Scopes are the scopes the token endpoint
// granted, from its "scope" field (nil when it did not say, and always
// for an access token file or the metadata server's token).
type Grant struct {
	Expiry time.Time
	Scopes []string
}

// HasScope reports whether the grant lists scope; known is false when the
// token endpoint did not list scopes at all.
func (g Grant) HasScope(scope string) (has, known bool) {
	if g.Scopes == nil {
		return false, false
	}
	for _, s := range g.Scopes {
		if s == scope {
			return true, true
		}
	}
	return false, true
}

// Grant gets an access token as a request would (from the cache, or
// minted through the token endpoint) and returns its expiry and granted
// scopes. Errors are *Error, as for a request (Explain words them).
func (c *Credentials) Grant(ctx context.Context) (Grant, error) {
	tok, _, err := c.token(ctx)
	if err != nil {
		return Grant{}, err
	}
	g := Grant{Expiry: tok.Expiry}
	if s, ok := tok.Extra("scope").(string); ok && strings.TrimSpace(s) != "" {
		g.Scopes = strings.Fields(s)
	}
	return g, nil
}

// Source says where the credentials in use come from, one of
// "access token file", "credentials file", "ADC" (GOOGLE_APPLICATION_CREDENTIALS
// or gcloud's well-known file) and "GCE metadata server", with how its
// path was chosen (from: "--credentials", "GOOGLE_APPLICATION_CREDENTIALS",
// "$HOME/.config/gcloud", a profile's setting…; "" for the metadata
// server).
func (c *Credentials) Source() (kind, from string) {
	src := c.current()
	switch src.kind {
	case sourceAccessTokenFile:
		return "access token file", src.from
	case sourceCredentialsFile:
		return "credentials file", src.from
	case sourceADC:
		return "ADC", src.from
	}
	return "GCE metadata server", ""
}

// BillsOwnProject reports whether the credentials are a service account's
// (or the metadata server's), which Google bills to their own project
// when no quota project is sent; user credentials without a quota project
// are billed to the OAuth client's project, rarely the user's.
func (c *Credentials) BillsOwnProject() bool {
	src := c.current()
	return src.kind == sourceMetadata || src.credType == "service_account" || src.credType == "impersonated_service_account"
}
