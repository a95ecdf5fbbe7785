package tui

import "strings"

// joinQueued is the one prompt the held prompts become, in the order they
// were typed: each trimmed, the empty ones dropped, separated by a blank
// line, as Gemini CLI's useMessageQueue joins its queue.
func joinQueued(queued []string) string {
	kept := make([]string, 0, len(queued))
	for _, q := range queued {
		if q = strings.TrimSpace(q); q != "" {
			kept = append(kept, q)
		}
	}
	return strings.Join(kept, "\n\n")
}
