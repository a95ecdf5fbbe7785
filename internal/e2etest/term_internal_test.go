package e2etest

import "testing"

// The screens of TestAutoUpdateAtInteractiveStart and
// TestTUIResizeMidStream on a loaded machine: the first frame stayed above
// the banner.
func TestDropStartupFrames(t *testing.T) {
	const banner = "Castor 0.1.0 · /help for commands · Enter sends, Ctrl-J adds a line · Ctrl-C twice quits\n"
	const live = "────────\n> Type your message or @path/to/file\n────────\n<ws>  auto (100% context left) · default (shift+tab)\n"
	tests := []struct{ name, in, want string }{
		{"clean", banner + live, banner + live},
		{"shell output kept", "earlier one\nearlier two\n" + banner + live, "earlier one\nearlier two\n" + banner + live},
		{"start-up frame", "────────\n> Type your message or @path/to/file\n────────\n<ws>  starting…\n" + banner + live, banner + live},
		{"streamed frame rewrapped by a resize", "  A line long enough to be wrapped once the terminal gets na\nrrower than it is now, which it\n  will.\n*  Working (esc to cancel, Ns)\n──────\n────\n> Type your message or @path/to/file\n──────\n────\n<ws>  gemini-fake (100% conte\nxt left) · default (shift+tab)\n" + banner + "> Say something long\n" + live,
			banner + "> Say something long\n" + live},
		{"wrapped frame with spinner", "⣾  Working (esc to cancel, 0s)\n──────\n────\n> Type your message or @path/to/file\n──────\n────\n…short_answer42/001/ws  auto (\n100% context left) · default (shift+tab)\n" + banner + "> Say something long\n" + live,
			banner + "> Say something long\n" + live},
		{"no banner", live, live},
	}
	for _, tt := range tests {
		if got := dropStartupFrames(tt.in); got != tt.want {
			t.Errorf("%s:\n%s\nwant\n%s", tt.name, got, tt.want)
		}
	}
}
