package cli

import (
	"fmt"
	"io"
	"unicode/utf8"
)

// capPiped cuts piped stdin longer than maxPipedInput to that size, at a
// character boundary, and says so on stderr with Gemini CLI's warning:
// a prompt silently missing its end would be answered as if whole.
func capPiped(data []byte, stderr io.Writer) []byte {
	if len(data) <= maxPipedInput {
		return data
	}
	data = data[:maxPipedInput]
	// Back off to the start of a character that is cut in half.
	for i := len(data) - 1; i >= 0 && i >= len(data)-utf8.UTFMax; i-- {
		if utf8.RuneStart(data[i]) {
			if !utf8.FullRune(data[i:]) {
				data = data[:i]
			}
			break
		}
	}
	fmt.Fprintf(stderr, "Warning: stdin input truncated to %d bytes.\n", maxPipedInput)
	return data
}
