package discovered

import (
	"context"

	"fmt"
	"strings"

	"mvdan.cc/sh/v3/shell"
)

// Setting names, which every message about them starts with.
const (
	DiscoveryKey = "tools.discoveryCommand"
	CallKey      = "tools.callCommand"
)

// Config says how to find and call a project's tools.
type Config struct {
	// DiscoveryCommand is tools.discoveryCommand: a command line (split
	// into words as a shell would, $VAR expanded from Getenv, but not run
	// by a shell) whose stdout declares the tools.
	DiscoveryCommand string
	// CallCommand is tools.callCommand, split the same way; a call runs it
	// with the tool's declared name as one more argument.
	CallCommand string
	// Dir is the project root, where both commands run.
	Dir string
	// Environ is the commands' whole environment; Getenv expands the
	// variables of the command lines (nil: none are set).
	Environ []string
	Getenv  func(string) string
}

// Discover runs the discovery command and returns its tools, in the order
// declared. notes are lines for the user about declarations skipped or
// partly ignored. An error (the commands cannot be split, the call
// command is not set, the discovery command fails or prints something
// other than declarations) means no tools; its message names the setting.
func Discover(ctx context.Context, c Config) (tools []*Tool, notes []string, err error) {
	discovery, err := words(DiscoveryKey, c.DiscoveryCommand, c.Getenv)
	if err != nil {
		return nil, nil, err
	}
	if strings.TrimSpace(c.CallCommand) == "" {
		return nil, nil, fmt.Errorf("%s is set but %s is not: the discovered tools could not be called, so none is loaded", DiscoveryKey, CallKey)
	}
	callWords, err := words(CallKey, c.CallCommand, c.Getenv)
	if err != nil {
		return nil, nil, err
	}
	o := runCommand(ctx, discovery, c.Dir, c.Environ, nil)
	if err := ctx.Err(); err != nil {
		return nil, nil, err
	}
	if err := discoveryFailure(o); err != "" {
		return nil, nil, fmt.Errorf("%s %q %s", DiscoveryKey, c.DiscoveryCommand, err)
	}
	decls, notes, err := ParseDeclarations([]byte(o.stdout))
	for i, n := range notes {
		notes[i] = DiscoveryKey + ": " + n
	}
	if err != nil {
		return nil, notes, fmt.Errorf("%s %q %v", DiscoveryKey, c.DiscoveryCommand, err)
	}
	for _, d := range decls {
		tools = append(tools, &Tool{
			decl:        d,
			description: d.Description + note(discovery, callWords, d.Name),
			call:        callWords,
			dir:         c.Dir,
			environ:     c.Environ,
		})
	}
	return tools, notes, nil
}

// words splits a command line of setting key.
func words(key, line string, getenv func(string) string) ([]string, error) {
	if getenv == nil {
		getenv = func(string) string { return "" }
	}
	w, err := shell.Fields(line, getenv)
	if err != nil {
		return nil, fmt.Errorf("%s %q cannot be read as a command: %v", key, line, err)
	}
	if len(w) == 0 || w[0] == "" {
		return nil, fmt.Errorf("%s %q names no command", key, line)
	}
	return w, nil
}

// discoveryFailure says, after the command's name, why a discovery run
// gave no declarations; "" when it ran well.
func discoveryFailure(o *outcome) string {
	var why string
	switch {
	case o.err != nil:
		why = "could not run: " + o.err.Error()
	case o.overflow:
		why = fmt.Sprintf("printed more than the size limit of %d bytes", maxOutput)
	case !o.exited && o.signal != "":
		why = "was ended by " + o.signal
	case !o.exited:
		why = "did not exit"
	case o.code != 0:
		why = fmt.Sprintf("failed with exit code %d", o.code)
	default:
		return ""
	}
	if line := lastLine(o.stderr); line != "" {
		why += ": " + line
	}
	return why
}

// lastLine is the last non-blank line of s, cut to 200 bytes: what a
// failing command says last is usually why.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	line := strings.TrimSpace(lines[len(lines)-1])
	if len(line) > 200 {
		line = strings.ToValidUTF8(line[:200], "") + "…"
	}
	return line
}
