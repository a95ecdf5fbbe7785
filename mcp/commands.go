package mcp

import (
	"context"
	"fmt"
	"strings"

	"github.com/castor-dev/castor/command"
)

// Commands returns the servers' prompts as slash commands for the shared
// command registry, as Gemini CLI offers them: running one fetches the
// prompt with the given arguments (by name, --arg="value", or by
// position) and submits its messages to the model; its "help" sub-command
// explains the arguments.
// Prompts of the same name on several servers are renamed (CommandsBeside).
func (m *Manager) Commands() []*command.Command { return m.CommandsBeside(nil) }

// CommandsBeside is Commands for a registry already holding the commands
// taken reports (built-ins), named as Gemini CLI's slash-command resolver
// names them (SlashCommandResolver in packages/cli/src/services): a
// prompt keeps its name unless a built-in has it or another server's
// prompt has it too; then it is "<server>.<name>", and so is every other
// prompt of that name ("<server>.<name>1", 2… if that is taken as well),
// so that no prompt hides another or a built-in. Before, the last
// server's prompt replaced the others, and a prompt named like a built-in
// (/help, /memory) replaced the built-in.
func (m *Manager) CommandsBeside(taken func(name string) bool) []*command.Command {
	prompts := m.Prompts()
	names := PromptCommandNames(prompts, taken)
	out := make([]*command.Command, len(prompts))
	for i, p := range prompts {
		p.Command = names[i]
		out[i] = m.promptCommand(p)
	}
	return out
}

// PromptCommandNames returns the command name of each prompt, in order,
// beside the names taken reports (see CommandsBeside).
func PromptCommandNames(prompts []Prompt, taken func(name string) bool) []string {
	names := make([]string, len(prompts))
	holder := map[string]int{} // a command name → the prompt holding it
	seen := map[string]bool{}  // names some prompt asked for
	used := func(n string) bool {
		_, ok := holder[n]
		return ok || (taken != nil && taken(n))
	}
	rename := func(i int) string {
		base := prompts[i].Server + "." + prompts[i].Command
		n := base
		for k := 1; used(n); k++ {
			n = fmt.Sprintf("%s%d", base, k)
		}
		return n
	}
	for i, p := range prompts {
		n := p.Command
		if seen[n] || (taken != nil && taken(n)) {
			renamed := rename(i)
			holder[renamed] = i
			// The prompt that held the name gives it up too.
			if j, ok := holder[n]; ok {
				delete(holder, n)
				names[j] = rename(j)
				holder[names[j]] = j
			}
			n = renamed
		} else if _, held := holder[n]; held {
			// An earlier prompt was renamed to this name: this one is
			// renamed in turn rather than hide it.
			n = rename(i)
			holder[n] = i
		} else {
			holder[n] = i
		}
		seen[p.Command] = true
		names[i] = n
	}
	return names
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
