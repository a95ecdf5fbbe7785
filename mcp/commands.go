package mcp

import (
	"context"
	"strings"

	"github.com/castor-dev/castor/command"
)

// Commands returns the servers' prompts as slash commands for the shared
// command registry, as Gemini CLI offers them: running one fetches the
// prompt with the given arguments (by name, --arg="value", or by
// position) and submits its messages to the model; its "help" sub-command
// explains the arguments.
func (m *Manager) Commands() []*command.Command {
	var out []*command.Command
	for _, p := range m.Prompts() {
		out = append(out, m.promptCommand(p))
	}
	return out
}

func (m *Manager) promptCommand(p Prompt) *command.Command {
	args := make([]command.Argument, len(p.Arguments))
	for i, a := range p.Arguments {
		args[i] = command.Argument{Name: a.Name, Description: a.Description, Required: a.Required}
	}
	help := p.Help()
	return &command.Command{
		Name:        p.Command,
		Description: p.Description,
		Arguments:   args,
		Streaming:   true,
		SubCommands: []*command.Command{{
			Name:        "help",
			Description: "Show the arguments of the " + p.Command + " prompt",
			Execute: func(context.Context, *command.Invocation) (*command.Result, error) {
				return command.Info("%s", help), nil
			},
		}},
		Execute: func(ctx context.Context, inv *command.Invocation) (*command.Result, error) {
			values, err := ParsePromptArgs(strings.Join(inv.Args, " "), p.Arguments)
			if err != nil {
				return nil, err
			}
			res, err := m.GetPrompt(ctx, p.Server, p.Name, values)
			if err != nil {
				return nil, err
			}
			text, err := PromptSubmission(res)
			if err != nil {
				return nil, err
			}
			return &command.Result{Kind: command.ResultSubmitPrompt, Content: text}, nil
		},
	}
}
