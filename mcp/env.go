package mcp

import (
	"regexp"
	"sort"
	"strings"
)

// Environment redaction for stdio servers, after Gemini CLI's
// environmentSanitization: a server gets the user's environment minus what
// looks like a secret, plus what its configuration sets explicitly.

var alwaysAllowedEnv = map[string]bool{
	"PATH": true, "SYSTEMROOT": true, "COMSPEC": true, "PATHEXT": true, "WINDIR": true,
	"TEMP": true, "TMP": true, "USERPROFILE": true, "SYSTEMDRIVE": true,
	"HOME": true, "LANG": true, "SHELL": true, "TMPDIR": true, "USER": true, "LOGNAME": true,
	"TERM": true, "COLORTERM": true,
	"ADDITIONAL_CONTEXT": true, "AVAILABLE_LABELS": true, "BRANCH_NAME": true, "DESCRIPTION": true,
	"EVENT_NAME": true, "GITHUB_ENV": true, "IS_PULL_REQUEST": true, "ISSUES_TO_TRIAGE": true,
	"ISSUE_BODY": true, "ISSUE_NUMBER": true, "ISSUE_TITLE": true, "PULL_REQUEST_NUMBER": true,
	"REPOSITORY": true, "TITLE": true, "TRIGGERING_ACTOR": true,
}

var neverAllowedEnv = map[string]bool{
	"CLIENT_ID": true, "DB_URI": true, "CONNECTION_STRING": true, "AWS_DEFAULT_REGION": true,
	"AZURE_CLIENT_ID": true, "AZURE_TENANT_ID": true, "SLACK_WEBHOOK_URL": true,
	"TWILIO_ACCOUNT_SID": true, "DATABASE_URL": true, "GOOGLE_CLOUD_PROJECT": true,
	"GOOGLE_CLOUD_ACCOUNT": true, "FIREBASE_PROJECT_ID": true,
}

var secretName = regexp.MustCompile(`(?i)TOKEN|SECRET|PASSWORD|PASSWD|KEY|AUTH|CREDENTIAL|CREDS|PRIVATE|CERT`)

// RE2 needs no length caps against backtracking, so unbounded repeats
// stand where Gemini CLI caps them at 1024 or 10240 characters.
var secretValue = []*regexp.Regexp{
	regexp.MustCompile(`(?i)-----BEGIN (RSA|OPENSSH|EC|PGP) PRIVATE KEY-----`),
	regexp.MustCompile(`(?i)-----BEGIN CERTIFICATE-----`),
	regexp.MustCompile(`(?i)(https?|ftp|smtp)://[^:\s]+:[^@\s]+@`),
	regexp.MustCompile(`(?i)(ghp|gho|ghu|ghs|ghr|github_pat)_[a-zA-Z0-9_]{36,}`),
	regexp.MustCompile(`(?i)AIzaSy[a-zA-Z0-9_\\-]{33}`),
	regexp.MustCompile(`(?i)AKIA[A-Z0-9]{16}`),
	regexp.MustCompile(`(?i)eyJ[a-zA-Z0-9_-]*\.[a-zA-Z0-9_-]*\.[a-zA-Z0-9_-]*`),
	regexp.MustCompile(`(?i)(s|r)k_(live|test)_[0-9a-zA-Z]{24}`),
	regexp.MustCompile(`(?i)xox[abpr]-[a-zA-Z0-9-]+`),
}

// redactEnv returns environ ("K=V" entries) without the variables that
// look like secrets by name or value. allowed and blocked are extra
// variable names (case-insensitive) to keep or drop. In GitHub Actions
// (GITHUB_SHA set) only the always-allowed variables pass, as in Gemini
// CLI's strict mode.
func redactEnv(environ []string, allowed, blocked []string) []string {
	allow := upperSet(allowed)
	block := upperSet(blocked)
	strict := false
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if k == "GITHUB_SHA" && v != "" || k == "SURFACE" && v == "Github" {
			strict = true
		}
	}
	out := make([]string, 0, len(environ))
	for _, kv := range environ {
		k, v, _ := strings.Cut(kv, "=")
		if !redactVar(strings.ToUpper(k), v, allow, block, strict) {
			out = append(out, kv)
		}
	}
	return out
}

func redactVar(key, value string, allow, block map[string]bool, strict bool) bool {
	if strings.HasPrefix(key, "GEMINI_CLI_") {
		return false
	}
	for _, re := range secretValue {
		if re.MatchString(value) {
			return true
		}
	}
	switch {
	case strings.HasPrefix(key, "GIT_CONFIG_"), allow[key]:
		return false
	case block[key]:
		return true
	case alwaysAllowedEnv[key]:
		return false
	case neverAllowedEnv[key], strict:
		return true
	}
	return secretName.MatchString(key)
}

func upperSet(list []string) map[string]bool {
	m := make(map[string]bool, len(list))
	for _, s := range list {
		m[strings.ToUpper(s)] = true
	}
	return m
}

// mergeEnv returns base with every key of over set (over wins), sorted for
// a reproducible child environment.
func mergeEnv(base []string, over map[string]string) []string {
	m := make(map[string]string, len(base)+len(over))
	for _, kv := range base {
		k, v, _ := strings.Cut(kv, "=")
		m[k] = v
	}
	for k, v := range over {
		m[k] = v
	}
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}
