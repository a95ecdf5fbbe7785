package cli

import (
	"fmt"
	"strings"
)

// addWarnings lists what `mcp add` leaves out of the entry it writes, as
// Gemini CLI does, but without a word there: an -e without KEY=value, a -H
// without "Name: value", and env or headers given to a transport that has
// no use for them.
func addWarnings(o addOptions) []string {
	var out []string
	remote := o.transport == "sse" || o.transport == "http"
	for _, kv := range o.env {
		switch k, v, ok := strings.Cut(kv, "="); {
		case remote:
			out = append(out, fmt.Sprintf("ignoring -e %q: environment variables are for stdio servers", kv))
		case !ok || k == "" || v == "":
			out = append(out, fmt.Sprintf("ignoring -e %q: expected KEY=value", kv))
		}
	}
	for _, h := range o.headers {
		switch k, v, _ := strings.Cut(h, ":"); {
		case !remote:
			out = append(out, fmt.Sprintf("ignoring -H %q: headers are for sse and http servers", h))
		case strings.TrimSpace(k) == "" || strings.TrimSpace(v) == "":
			out = append(out, fmt.Sprintf("ignoring -H %q: expected \"Name: value\"", h))
		}
	}
	return out
}
