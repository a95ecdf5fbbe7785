package discovered

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	"github.com/castor-dev/castor/tool"
)

// Tool is one discovered tool: its calls run the call command with the
// tool's own name as the last argument and the arguments as JSON on
// stdin.
type Tool struct {
	decl        Declaration
	description string
	call        []string // the call command's words
	dir         string
	environ     []string
}

// Name is the declared name behind Prefix.
func (t *Tool) Name() string { return Prefix + t.decl.Name }

// DisplayName is the prefixed name too, as in Gemini CLI.
func (t *Tool) DisplayName() string { return t.Name() }

// Description is the declared description followed by a note on how the
// tool is run and what it returns.
func (t *Tool) Description() string { return t.description }

// Kind is other: Castor cannot know what a project's tool does, so its
// calls are asked about (and refused in headless runs) unless a mode or
// rule allows them, as Gemini CLI's discovered_tool_* policy has it.
func (t *Tool) Kind() tool.Kind { return tool.KindOther }

// Schema is the declared parametersJsonSchema.
func (t *Tool) Schema() map[string]any { return t.decl.Schema }

// Build returns a call with args; the registry has validated them against
// the schema already.
func (t *Tool) Build(args map[string]any) (tool.Call, error) {
	if args == nil {
		args = map[string]any{}
	}
	return &call{t: t, args: args}, nil
}

// note is what the model reads after a discovered tool's description, so
// that it knows where the tool comes from and how to read its failures.
func note(discovery, call []string, name string) string {
	return fmt.Sprintf(`

This tool comes from the project: running %s in the project root declared it. A call runs %s in the project root, with the call's arguments as a JSON object on its standard input. Both commands are set in the project or user settings (tools.discoveryCommand and tools.callCommand).

On success, the tool returns what the command printed on standard output. On failure, it returns these five lines instead:

Stdout: what the command printed on standard output, maybe partial, or (empty).
Stderr: what the command printed on standard error, maybe partial, or (empty).
Error: why the command could not run, or (none).
Exit Code: the command's exit code, or (none) when a signal ended it.
Signal: the signal that ended the command, or (none).
`, quoteCommand(discovery), quoteCommand(append(append([]string(nil), call...), name)))
}

// quoteCommand writes words as a Markdown code span.
func quoteCommand(words []string) string {
	return "`" + strings.Join(words, " ") + "`"
}

type call struct {
	t    *Tool
	args map[string]any
}

// Describe is the arguments as JSON, as Gemini CLI describes these calls.
func (c *call) Describe() string { return marshalJS(c.args) }

// Confirmation asks about every call, showing its arguments (Gemini CLI's
// generic confirmation); the policy decides whether it is shown.
func (c *call) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return &tool.ConfirmationDetails{
		Type:   tool.ConfirmInfo,
		Title:  "Confirm: " + c.t.DisplayName(),
		Prompt: c.Describe(),
	}, nil
}

// Execute runs the call command. Its stdout is the result; anything on
// stderr, a non-zero exit, a signal or a failure to start make the call
// fail with Gemini CLI's five-line report.
func (c *call) Execute(ctx context.Context, _ func(string)) *tool.Result {
	if ctx.Err() != nil {
		return tool.Fail(tool.ErrCancelled, "Tool call aborted")
	}
	argv := append(append([]string(nil), c.t.call...), c.t.decl.Name)
	o := runCommand(ctx, argv, c.t.dir, c.t.environ, []byte(marshalJS(c.args)))
	if ctx.Err() != nil {
		return tool.Fail(tool.ErrCancelled, "Tool call aborted")
	}
	if !o.failed() {
		return tool.Text(o.stdout)
	}
	return tool.Fail(tool.ErrDiscoveredToolExecutionError, report(o))
}

// report is Gemini CLI's account of a failed call, one field a line.
func report(o *outcome) string {
	or := func(s, none string) string {
		if s == "" {
			return none
		}
		return s
	}
	errText := ""
	switch {
	case o.err != nil:
		errText = o.err.Error()
	case o.overflow:
		errText = fmt.Sprintf("the output exceeded the size limit of %d bytes", maxOutput)
	}
	code := ""
	if o.exited {
		code = strconv.Itoa(o.code)
	}
	return strings.Join([]string{
		"Stdout: " + or(o.stdout, "(empty)"),
		"Stderr: " + or(o.stderr, "(empty)"),
		"Error: " + or(errText, "(none)"),
		"Exit Code: " + or(code, "(none)"),
		"Signal: " + or(o.signal, "(none)"),
	}, "\n")
}

// marshalJS is JSON.stringify: no HTML escaping, no trailing newline.
func marshalJS(v any) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return "{}"
	}
	return strings.TrimSuffix(b.String(), "\n")
}
