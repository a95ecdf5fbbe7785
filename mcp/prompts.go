package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// Prompt is a prompt offered by a connected server, ready to become a
// slash command.
type Prompt struct {
	// Server is the server offering the prompt.
	Server string
	// Name is the server's name for the prompt.
	Name string
	// Command is the slash command name: Name with runs of white space
	// replaced by "-", as Gemini CLI does.
	Command string
	// Description is the server's description, or "Invoke prompt <name>".
	Description string
	// Arguments are the prompt's declared arguments.
	Arguments []PromptArgument
}

// PromptArgument is one declared argument of a prompt.
type PromptArgument struct {
	Name        string
	Description string
	Required    bool
}

// AutoExecute reports whether the command can run as soon as it is chosen
// (it takes no arguments), as Gemini CLI marks such prompt commands.
func (p Prompt) AutoExecute() bool { return len(p.Arguments) == 0 }

// Help is the text of the command's "help" subcommand, as Gemini CLI
// words it.
func (p Prompt) Help() string {
	if len(p.Arguments) == 0 {
		return fmt.Sprintf("Prompt \"%s\" has no arguments.", p.Name)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Arguments for \"%s\":\n\n", p.Name)
	b.WriteString("You can provide arguments by name (e.g., --argName=\"value\") or by position.\n\n")
	pos := make([]string, len(p.Arguments))
	named := make([]string, len(p.Arguments))
	for i, a := range p.Arguments {
		pos[i] = `"foo"`
		named[i] = fmt.Sprintf(`--%s="foo"`, a.Name)
	}
	// Gemini CLI interpolates the arrays, which JavaScript joins with ",".
	fmt.Fprintf(&b, "e.g., %s %s is equivalent to %s %s\n\n", p.Name, strings.Join(pos, ","), p.Name, strings.Join(named, ","))
	for _, a := range p.Arguments {
		fmt.Fprintf(&b, "  --%s\n", a.Name)
		if a.Description != "" {
			fmt.Fprintf(&b, "    %s\n", a.Description)
		}
		req := "no"
		if a.Required {
			req = "yes"
		}
		fmt.Fprintf(&b, "    (required: %s)\n\n", req)
	}
	return b.String()
}

var spaceRun = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\s+`) }}

// Prompts returns the prompts of the connected servers, by server name
// then in each server's order.
func (m *Manager) Prompts() []Prompt {
	var out []Prompt
	for _, s := range m.servers {
		s.mu.Lock()
		ps := s.prompts
		live := s.everConnected
		s.mu.Unlock()
		if !live {
			continue
		}
		for _, p := range ps {
			if p == nil {
				continue
			}
			desc := p.Description
			if desc == "" {
				desc = "Invoke prompt " + p.Name
			}
			pr := Prompt{
				Server:      s.cfg.Name,
				Name:        p.Name,
				Command:     spaceRun.Get().ReplaceAllString(strings.TrimSpace(p.Name), "-"),
				Description: desc,
			}
			for _, a := range p.Arguments {
				if a != nil {
					pr.Arguments = append(pr.Arguments, PromptArgument{Name: a.Name, Description: a.Description, Required: a.Required})
				}
			}
			out = append(out, pr)
		}
	}
	return out
}

// GetPrompt runs prompts/get for the prompt called name on server,
// reconnecting first if needed.
func (m *Manager) GetPrompt(ctx context.Context, server, name string, args map[string]string) (*sdk.GetPromptResult, error) {
	s, ok := m.byName[server]
	if !ok {
		return nil, fmt.Errorf("MCP server config not found for '%s'.", server)
	}
	var res *sdk.GetPromptResult
	err := s.withSession(ctx, func(ctx context.Context, cs *sdk.ClientSession) (err error) {
		res, err = cs.GetPrompt(ctx, &sdk.GetPromptParams{Name: name, Arguments: args})
		return err
	})
	return res, err
}

// ErrInvalidPromptResponse is Gemini CLI's complaint about a prompt whose
// first message is not text.
var ErrInvalidPromptResponse = errors.New("Received an empty or invalid prompt response from the server.")

// PromptSubmission returns what Gemini CLI submits to the model for a
// prompt result: the text of the first message, JSON-encoded as a string
// (quotes and escapes included, exactly as Gemini CLI sends it).
func PromptSubmission(res *sdk.GetPromptResult) (string, error) {
	if res == nil || len(res.Messages) == 0 || res.Messages[0] == nil {
		return "", ErrInvalidPromptResponse
	}
	tc, ok := res.Messages[0].Content.(*sdk.TextContent)
	if !ok {
		return "", ErrInvalidPromptResponse
	}
	b, err := json.Marshal(tc.Text)
	if err != nil {
		return "", err
	}
	return string(b), nil
}

var (
	namedArg      = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`--([^=]+)=(?:"((?:\\.|[^"\\])*)"|([^ ]+))`) }}
	positionalArg = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`(?:"((?:\\.|[^"\\])*)"|([^ ]+))`) }}
	escaped       = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`\\(.)`) }}
)

// ParsePromptArgs parses what follows a prompt command the way Gemini CLI
// does: --name="value" or --name=value for named arguments, the rest as
// positional values (quoted or not) filling the required arguments not
// named, in order; when exactly one required argument is left, all the
// positional text (joined by spaces) is its value. A required argument left
// without a value is an error listing them ("Missing required argument(s):
// --a, --b").
func ParsePromptArgs(input string, args []PromptArgument) (map[string]string, error) {
	values := map[string]string{}
	var positional []string
	last := 0
	for _, loc := range namedArg.Get().FindAllStringSubmatchIndex(input, -1) {
		key := input[loc[2]:loc[3]]
		var v string
		if loc[4] >= 0 {
			v = input[loc[4]:loc[5]]
		} else {
			v = input[loc[6]:loc[7]]
		}
		values[key] = escaped.Get().ReplaceAllString(v, "$1")
		if loc[0] > last {
			positional = append(positional, input[last:loc[0]])
		}
		last = loc[1]
	}
	if last < len(input) {
		positional = append(positional, input[last:])
	}
	rest := strings.TrimSpace(strings.Join(positional, ""))
	var pos []string
	for _, m := range positionalArg.Get().FindAllStringSubmatch(rest, -1) {
		v := m[2]
		if m[1] != "" || strings.HasPrefix(m[0], `"`) {
			v = m[1]
		}
		pos = append(pos, escaped.Get().ReplaceAllString(v, "$1"))
	}

	out := map[string]string{}
	for _, a := range args {
		if v := values[a.Name]; v != "" {
			out[a.Name] = v
		}
	}
	var unfilled []string
	for _, a := range args {
		if a.Required && out[a.Name] == "" {
			unfilled = append(unfilled, a.Name)
		}
	}
	if len(unfilled) == 1 {
		out[unfilled[0]] = strings.Join(pos, " ")
		return out, nil
	}
	var missing []string
	for i, name := range unfilled {
		if i < len(pos) {
			out[name] = pos[i]
		} else {
			missing = append(missing, "--"+name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("Missing required argument(s): %s", strings.Join(missing, ", "))
	}
	return out, nil
}
