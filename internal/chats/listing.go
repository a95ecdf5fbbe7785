package chats

import (
	"fmt"
	"regexp"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/castor-dev/castor/internal/lazy"
)

// FormatList renders sessions exactly as Gemini CLI's --list-sessions
// prints them to stdout, including its leading blank line and the lack of a
// final newline when there are no sessions:
//
//	\nAvailable sessions for this project (2):\n
//	  1. Fix the build (3 hours ago) [5f0c…]\n
//	  2. Add tests (Just now, current) [9a1b…]\n
//
// currentSessionID marks the running session, matched like Gemini CLI by
// its first 8 characters appearing in the file name; now anchors the
// relative times.
func FormatList(infos []Info, currentSessionID string, now time.Time) string {
	if len(infos) == 0 {
		return ErrNoSessions.Error()
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "\nAvailable sessions for this project (%d):\n", len(infos))
	for i, in := range infos {
		current := ""
		if currentSessionID != "" && strings.Contains(in.FileName, currentSessionID[:min(8, len(currentSessionID))]) {
			current = ", current"
		}
		fmt.Fprintf(&sb, "  %d. %s (%s%s) [%s]\n", i+1, truncateTitle(in.DisplayName), FormatRelativeTime(in.LastUpdated, now), current, in.ID)
	}
	return sb.String()
}

// truncateTitle cuts titles over 100 UTF-16 code units (JavaScript string
// length) to 97 plus "...".
func truncateTitle(s string) string {
	u := utf16.Encode([]rune(s))
	if len(u) <= 100 {
		return s
	}
	return string(utf16.Decode(u[:97])) + "..."
}

// FormatRelativeTime is Gemini CLI's long relative time: "N days ago",
// "N hours ago", "N minutes ago" (singular for 1) or "Just now".
func FormatRelativeTime(t, now time.Time) string {
	d := now.Sub(t)
	minutes := int64(d / time.Minute)
	hours := minutes / 60
	days := hours / 24
	plural := func(n int64, unit string) string {
		if n == 1 {
			return fmt.Sprintf("%d %s ago", n, unit)
		}
		return fmt.Sprintf("%d %ss ago", n, unit)
	}
	switch {
	case days > 0:
		return plural(days, "day")
	case hours > 0:
		return plural(hours, "hour")
	case minutes > 0:
		return plural(minutes, "minute")
	}
	return "Just now"
}

// ResumeDescription is the line Gemini CLI builds for a resumed session:
// "Session 3: Fix the build (12 messages, 2 hours ago)".
func ResumeDescription(in Info, now time.Time) string {
	return fmt.Sprintf("Session %d: %s (%d messages, %s)", in.Index, in.FirstUserMessage, in.MessageCount, FormatRelativeTime(in.LastUpdated, now))
}

// DeletedDescription is what Gemini CLI prints after --delete-session:
// "Deleted session 3: Fix the build (2 hours ago)".
func DeletedDescription(in Info, now time.Time) string {
	return fmt.Sprintf("Deleted session %d: %s (%s)", in.Index, in.FirstUserMessage, FormatRelativeTime(in.LastUpdated, now))
}

// isJSSpace is JavaScript's \s class, which differs from unicode.IsSpace
// (it has U+FEFF and lacks U+0085).
func isJSSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', 0xa0, 0x1680, 0x2028, 0x2029, 0x202f, 0x205f, 0x3000, 0xfeff:
		return true
	}
	return r >= 0x2000 && r <= 0x200a
}

// cleanMessage is Gemini CLI's one-line form of a message: whitespace runs
// become one space, then everything outside printable ASCII is dropped,
// then the ends are trimmed. The order matters for output parity.
func cleanMessage(s string) string {
	var sb strings.Builder
	inSpace := false
	for _, r := range s {
		if isJSSpace(r) {
			if !inSpace {
				sb.WriteByte(' ')
			}
			inSpace = true
			continue
		}
		inSpace = false
		sb.WriteRune(r)
	}
	var out strings.Builder
	for _, r := range sb.String() {
		if r >= 0x20 && r <= 0x7e {
			out.WriteRune(r)
		}
	}
	return strings.Trim(out.String(), " ")
}

// ansiSequence matches CSI and OSC escape sequences, which a summary could
// carry into the terminal.
var ansiSequence = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]`)
}}

// stripUnsafeCharacters approximates Gemini CLI's sanitiser for summaries:
// escape sequences, C0/C1 controls other than tab and newlines, and
// bidirectional and zero-width marks are removed.
func stripUnsafeCharacters(s string) string {
	s = ansiSequence.Get().ReplaceAllString(s, "")
	return strings.Map(func(r rune) rune {
		switch {
		case r <= 0x08, r == 0x0b, r == 0x0c, r >= 0x0e && r <= 0x1f, r == 0x7f, r >= 0x80 && r <= 0x9f,
			r == 0x200e, r == 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069, r == 0x200b, r == 0xfeff:
			return -1
		}
		return r
	}, s)
}
