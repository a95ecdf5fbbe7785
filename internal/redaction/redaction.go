// Package redaction keeps secrets out of the environment Castor hands to
// the programs it starts (shell commands, hooks, stdio MCP servers), after
// Gemini CLI's environment sanitization: a variable is withheld when its
// value looks like a credential (a private key, a token of a known shape,
// a URL with a password) or its name does (TOKEN, SECRET, KEY, …), unless
// the user allows it by name.
//
// Gemini CLI's settings steer it: security.environmentVariableRedaction
// .enabled (off by default; stdio MCP servers are redacted regardless),
// .allowed and .blocked. In a GitHub Actions run (GITHUB_SHA set, or
// SURFACE=Github) redaction is always on and strict: only a short list of
// harmless variables passes.
package redaction

import (
	"regexp"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// Rules are one redaction's settings.
type Rules struct {
	// Enabled turns redaction on outside GitHub Actions (inside, it is
	// always on).
	Enabled bool
	// Allowed variables are always passed, and Blocked ones always
	// withheld (names, case-insensitive). A value that looks like a
	// credential is withheld even from an allowed variable.
	Allowed, Blocked []string
}

// Secure returns the rules with the allowed names that may never be
// allowed taken out: the never-allowed names and every name that looks
// like a secret's. Gemini CLI applies these rules to shell commands, so
// allowing GITHUB_TOKEN reaches MCP servers and hooks but not the shell.
func (r Rules) Secure() Rules {
	var allowed []string
	for _, k := range r.Allowed {
		up := strings.ToUpper(k)
		if !neverAllowed.Get()[up] && !secretName.Get().MatchString(up) {
			allowed = append(allowed, k)
		}
	}
	r.Allowed = allowed
	return r
}

// Apply returns environ ("K=V" entries, order kept) without the variables
// the rules withhold; with redaction off it is environ unchanged.
func (r Rules) Apply(environ []string) []string {
	strict := Strict(environ)
	if !r.Enabled && !strict {
		return environ
	}
	allow, block := upperSet(r.Allowed), upperSet(r.Blocked)
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if !withheld(strings.ToUpper(k), v, allow, block, strict) {
			out = append(out, kv)
		}
	}
	return out
}

// Strict reports whether environ is a GitHub Actions run's, where Gemini
// CLI redacts strictly whatever the settings say.
func Strict(environ []string) bool {
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if k == "GITHUB_SHA" && v != "" || k == "SURFACE" && v == "Github" {
			return true
		}
	}
	return false
}

// withheld decides one variable, in Gemini CLI's order: its own
// variables pass, then a credential-shaped value is withheld whatever the
// name, then git's configuration passes, then the user's lists, the fixed
// lists, strict mode and last the name patterns.
func withheld(key, value string, allow, block map[string]bool, strict bool) bool {
	if strings.HasPrefix(key, "GEMINI_CLI_") {
		return false
	}
	for _, re := range secretValue.Get() {
		if re.MatchString(value) {
			return true
		}
	}
	switch {
	case strings.HasPrefix(key, "GIT_CONFIG_"), allow[key]:
		return false
	case block[key]:
		return true
	case alwaysAllowed.Get()[key]:
		return false
	case neverAllowed.Get()[key], strict:
		return true
	}
	return secretName.Get().MatchString(key)
}

func upperSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[strings.ToUpper(s)] = true
	}
	return m
}

// alwaysAllowed pass even in strict mode: what programs need to run at all
// (on Unix and Windows), the terminal's capabilities, and the inputs of
// Gemini CLI's GitHub Actions workflows.
var alwaysAllowed = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"PATH": true, "SYSTEMROOT": true, "COMSPEC": true, "PATHEXT": true, "WINDIR": true,
		"TEMP": true, "TMP": true, "USERPROFILE": true, "SYSTEMDRIVE": true,
		"HOME": true, "LANG": true, "SHELL": true, "TMPDIR": true, "USER": true, "LOGNAME": true,
		"TERM": true, "COLORTERM": true,
		"ADDITIONAL_CONTEXT": true, "AVAILABLE_LABELS": true, "BRANCH_NAME": true, "DESCRIPTION": true,
		"EVENT_NAME": true, "GITHUB_ENV": true, "IS_PULL_REQUEST": true, "ISSUES_TO_TRIAGE": true,
		"ISSUE_BODY": true, "ISSUE_NUMBER": true, "ISSUE_TITLE": true, "PULL_REQUEST_NUMBER": true,
		"REPOSITORY": true, "TITLE": true, "TRIGGERING_ACTOR": true,
	}
}}

// neverAllowed are withheld unless the user allows them by name (and even
// then not from the shell: see Secure).
var neverAllowed = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"CLIENT_ID": true, "DB_URI": true, "CONNECTION_STRING": true, "AWS_DEFAULT_REGION": true,
		"AZURE_CLIENT_ID": true, "AZURE_TENANT_ID": true, "SLACK_WEBHOOK_URL": true,
		"TWILIO_ACCOUNT_SID": true, "DATABASE_URL": true, "GOOGLE_CLOUD_PROJECT": true,
		"GOOGLE_CLOUD_ACCOUNT": true, "FIREBASE_PROJECT_ID": true,
	}
}}

// secretName matches the names of variables that usually hold secrets.
var secretName = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|CREDS|PRIVATE|CERT`)
}}

// secretValue matches values shaped like credentials. RE2 cannot
// backtrack, so unbounded repeats stand where Gemini CLI caps them at 1024
// or 10240 characters against catastrophic backtracking.
var secretValue = lazy.Value[[]*regexp.Regexp]{New: func() []*regexp.Regexp {
	return []*regexp.Regexp{
		regexp.MustCompile(`(?i)-----BEGIN (RSA|OPENSSH|EC|PGP) PRIVATE KEY-----`),
		regexp.MustCompile(`(?i)-----BEGIN CERTIFICATE-----`),
		// A password in a URL.
		regexp.MustCompile(`(?i)(https?|ftp|smtp)://[^:\s]+:[^@\s]+@`),
		// GitHub tokens (classic, fine-grained, OAuth, app).
		regexp.MustCompile(`(?i)(ghp|gho|ghu|ghs|ghr|github_pat)_[a-zA-Z0-9_]{36,}`),
		// Google API keys.
		regexp.MustCompile(`(?i)AIzaSy[a-zA-Z0-9_\\-]{33}`),
		// AWS access key ids.
		regexp.MustCompile(`(?i)AKIA[A-Z0-9]{16}`),
		// JWTs and other OAuth tokens.
		regexp.MustCompile(`(?i)eyJ[a-zA-Z0-9_-]*\.[a-zA-Z0-9_-]*\.[a-zA-Z0-9_-]*`),
		// Stripe keys.
		regexp.MustCompile(`(?i)(s|r)k_(live|test)_[0-9a-zA-Z]{24}`),
		// Slack tokens.
		regexp.MustCompile(`(?i)xox[abpr]-[a-zA-Z0-9-]+`),
	}
}}
