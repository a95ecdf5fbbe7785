package mcp

import "strings"

// MaxNameLength is the longest function name the wire spec lets through;
// the Gemini API allows 64, and Gemini CLI keeps one in reserve.
const MaxNameLength = 63

// SanitizeName makes a tool name acceptable to the Gemini API as the wire
// spec says: every character outside [A-Za-z0-9_.-] becomes "_", and a name
// longer than 63 characters keeps its first 28 and last 32 characters with
// "___" between them.
func SanitizeName(name string) string {
	var b strings.Builder
	b.Grow(len(name))
	for _, r := range name {
		writeNameRune(&b, r, validNameByte)
	}
	// Everything is ASCII now, so byte lengths are the character counts
	// Gemini CLI computes.
	s := b.String()
	if len(s) > MaxNameLength {
		s = s[:28] + "___" + s[len(s)-32:]
	}
	return s
}

// writeNameRune writes r if ok accepts it and "_" otherwise. Gemini CLI
// replaces per UTF-16 code unit, so a character outside the Basic
// Multilingual Plane (an emoji) becomes two underscores.
func writeNameRune(b *strings.Builder, r rune, ok func(byte) bool) {
	switch {
	case r < 0x80 && ok(byte(r)):
		b.WriteByte(byte(r))
	case r > 0xFFFF:
		b.WriteString("__")
	default:
		b.WriteByte('_')
	}
}

func validNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '.' || c == '-'
}

// QualifiedName is the wire spec's fully qualified form of a server's tool,
// "server__tool", sanitized; Castor uses it when tool names clash.
func QualifiedName(server, tool string) string {
	return SanitizeName(server + "__" + tool)
}

// GeminiName is the name current Gemini CLI gives every MCP tool,
// "mcp_<server>_<tool>": characters outside [A-Za-z0-9_.:-] become "_", a
// name that does not start with a letter or "_" gets a leading "_", and a
// name over 63 characters keeps its first and last 30 with "..." between.
// Castor accepts it as an alias, so that transcripts and policies written
// for Gemini CLI keep working.
func GeminiName(server, tool string) string {
	name := "mcp_" + server + "_" + tool
	var b strings.Builder
	for _, r := range name {
		writeNameRune(&b, r, func(c byte) bool { return validNameByte(c) || c == ':' })
	}
	s := b.String()
	if c := s[0]; !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c == '_') {
		s = "_" + s
	}
	if len(s) > MaxNameLength {
		s = s[:30] + "..." + s[len(s)-30:]
	}
	return s
}
