package castor

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/castor-dev/castor/tool"
)

// NewTool makes a tool from a Go function. The JSON Schema of In (a struct,
// described with `json` and `jsonschema` field tags) is what the model
// sees; the model's arguments are decoded into In. A string result is
// given to the model as is, anything else as JSON. A returned error is
// given to the model as the call's error.
//
// name must be a name Gemini accepts (letters, digits, '_', '.', ':' and
// '-', starting with a letter or '_', at most 64), and In a struct or a
// map: the model passes one JSON object.
//
// The program vouches for its own tools: their calls run without asking,
// in every approval mode but plan (which allows only reading and hides
// them), unless the tool is made with AskFirst or a rule of the user's
// policy files (WithPolicyFiles, ~/.gemini/policies) asks about or denies
// them.
//
//	add, err := castor.NewTool("add", "add two numbers",
//		func(ctx context.Context, in struct {
//			A float64 `json:"a" jsonschema:"first number to add"`
//			B float64 `json:"b" jsonschema:"second number to add"`
//		}) (float64, error) {
//			return in.A + in.B, nil
//		})
func NewTool[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error), opts ...ToolOption) (tool.Tool, error) {
	t := &funcTool[In, Out]{name: name, description: description, fn: fn}
	for _, o := range opts {
		if o != nil {
			o(&t.opts)
		}
	}
	if err := checkToolName(name); err != nil {
		return nil, err
	}
	if fn == nil {
		return nil, fmt.Errorf("tool %s: nil function", name)
	}
	s, err := jsonschema.For[In](nil)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", name, err)
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, fmt.Errorf("tool %s: input schema: %w", name, err)
	}
	// An interface In has the schema true, which is no object either.
	var schema map[string]any
	if err := json.Unmarshal(raw, &schema); err != nil {
		schema = map[string]any{"type": string(raw)}
	}
	// Gemini takes a function's parameters as one object: an In that is
	// not a struct or a map could never be called.
	if !objectSchema(schema) {
		return nil, fmt.Errorf("tool %s: input %v must be a struct or a map, for its JSON Schema to be an object (it is %v)", name, reflect.TypeFor[In](), schema["type"])
	}
	t.schema = schema
	return t, nil
}

// objectSchema reports whether a schema's type is object (or, for a
// pointer, null or object).
func objectSchema(schema map[string]any) bool {
	switch t := schema["type"].(type) {
	case string:
		return t == "object"
	case []any:
		return slices.Contains(t, any("object"))
	}
	return false
}

// checkToolName applies Gemini's rule for function names, which the API
// enforces by refusing every request that declares a bad one.
func checkToolName(name string) error {
	ok := name != "" && len(name) <= 64
	for i, r := range name {
		switch {
		case r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z':
		case i > 0 && ('0' <= r && r <= '9' || r == '.' || r == ':' || r == '-'):
		default:
			ok = false
		}
	}
	if !ok {
		return fmt.Errorf("tool name %q: Gemini accepts up to 64 letters, digits, '_', '.', ':' and '-', starting with a letter or '_'", name)
	}
	return nil
}

// ToolOption tunes a tool made with NewTool or MustTool.
type ToolOption func(*toolOptions)

type toolOptions struct {
	askFirst bool
}

// AskFirst makes every call of the tool need approval, as the built-in
// edit and shell tools do: it is asked about through WithConfirm (or
// pauses the turn, with WithPausedConfirmations), unless the approval
// mode (yolo), WithAllowedTools, an always-allow answer or a policy file
// allows it, and refused when there is no one to ask. The confirmation's
// Details name the tool (ToolName, ToolDisplayName) and carry the model's
// arguments (ToolArgs).
func AskFirst() ToolOption { return func(o *toolOptions) { o.askFirst = true } }

// MustTool is NewTool that panics on a schema error, for package-level
// tool variables.
func MustTool[In, Out any](name, description string, fn func(ctx context.Context, in In) (Out, error), opts ...ToolOption) tool.Tool {
	t, err := NewTool(name, description, fn, opts...)
	if err != nil {
		panic(err)
	}
	return t
}

type funcTool[In, Out any] struct {
	name, description string
	schema            map[string]any
	fn                func(context.Context, In) (Out, error)
	opts              toolOptions
}

func (t *funcTool[In, Out]) Name() string           { return t.name }
func (t *funcTool[In, Out]) DisplayName() string    { return t.name }
func (t *funcTool[In, Out]) Description() string    { return t.description }
func (t *funcTool[In, Out]) Kind() tool.Kind        { return tool.KindOther }
func (t *funcTool[In, Out]) Schema() map[string]any { return t.schema }

func (t *funcTool[In, Out]) Build(args map[string]any) (tool.Call, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, tool.Errorf(tool.ErrInvalidParams, "params could not be encoded: %v", err)
	}
	var in In
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.Errorf(tool.ErrInvalidParams, "params do not match the tool's input: %v", err)
	}
	return &funcCall[In, Out]{t: t, in: in, args: args}, nil
}

type funcCall[In, Out any] struct {
	t    *funcTool[In, Out]
	in   In
	args map[string]any
}

func (c *funcCall[In, Out]) Describe() string { return c.t.name }

// Trusted reports that the program vouches for the tool unless it asks
// first: the policy then allows its calls as it does a trusted MCP
// server's, below the rules of the user's and admin's policy files, so an
// ask_user or deny rule there still decides.
func (t *funcTool[In, Out]) Trusted() bool { return !t.opts.askFirst }

// Confirmation always says what a user would approve; whether anyone is
// asked is the policy's decision (see Trusted).
func (c *funcCall[In, Out]) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return &tool.ConfirmationDetails{
		Type:            tool.ConfirmInfo,
		Title:           "Confirm " + c.t.name,
		Prompt:          c.t.description,
		ToolName:        c.t.name,
		ToolDisplayName: c.t.name,
		ToolArgs:        c.args,
	}, nil
}

func (c *funcCall[In, Out]) Execute(ctx context.Context, _ func(string)) *tool.Result {
	out, err := c.t.fn(ctx, c.in)
	if err != nil {
		return tool.Fail(tool.ErrExecutionFailed, err.Error())
	}
	if s, ok := any(out).(string); ok {
		return tool.Text(s)
	}
	raw, err := json.Marshal(out)
	if err != nil {
		return tool.Fail(tool.ErrExecutionFailed, fmt.Sprintf("result could not be encoded: %v", err))
	}
	return tool.Text(string(raw))
}
