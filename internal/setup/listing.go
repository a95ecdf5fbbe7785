package setup

import (
	"context"
	"fmt"
	"strings"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/internal/hooks"
	"github.com/castor-dev/castor/internal/skills"
)

// sessionCommands registers the commands that describe what this session
// loaded (/skills, /hooks) in its registry, so every face that offers
// a.Commands (the terminal, ACP, A2A) lists them alike.
func (a *Agent) sessionCommands(set *skills.Set, hs *hooks.System) {
	a.Commands.Register(&command.Command{
		Name:        "skills",
		Description: "List the agent skills of this session.",
		SubCommands: []*command.Command{{
			Name:        "list",
			Description: "List the agent skills of this session.",
			Execute:     func(context.Context, *command.Invocation) (*command.Result, error) { return skillsMessage(set), nil },
		}},
		Execute: func(context.Context, *command.Invocation) (*command.Result, error) { return skillsMessage(set), nil },
	})
	a.Commands.Register(&command.Command{
		Name:        "hooks",
		Description: "List the hooks of this session.",
		SubCommands: []*command.Command{{
			Name:        "list",
			Description: "List the hooks of this session.",
			Execute:     func(context.Context, *command.Invocation) (*command.Result, error) { return hooksMessage(hs), nil },
		}},
		Execute: func(context.Context, *command.Invocation) (*command.Result, error) { return hooksMessage(hs), nil },
	})
}

func info(text string) *command.Result {
	return &command.Result{Kind: command.ResultMessage, MessageType: command.MessageInfo, Content: text}
}

// skillsMessage lists the skills as `castor skills list` does.
func skillsMessage(set *skills.Set) *command.Result {
	var all []*skills.Skill
	if set != nil {
		all = set.All()
	}
	if len(all) == 0 {
		return info("No skills discovered.")
	}
	var b strings.Builder
	b.WriteString("Agent skills:\n")
	for _, s := range all {
		state := ""
		if s.Disabled {
			state = " [disabled]"
		}
		fmt.Fprintf(&b, "\n  %s%s\n    %s\n    %s\n", s.Name, state, s.Description, s.Location)
	}
	return info(strings.TrimRight(b.String(), "\n"))
}

// hooksMessage lists the hooks by event, in the order they run.
func hooksMessage(hs *hooks.System) *command.Result {
	var list []hooks.Hook
	if hs != nil {
		list = hs.Hooks()
	}
	if len(list) == 0 {
		return info("No hooks configured.")
	}
	var b strings.Builder
	b.WriteString("Hooks:\n")
	for _, h := range list {
		matcher := h.Matcher
		if matcher == "" {
			matcher = "*"
		}
		what := h.Command
		if what == "" {
			what = h.Name
		}
		fmt.Fprintf(&b, "\n  %s [%s] %s\n    from %s\n", h.Event, matcher, what, h.Origin)
	}
	return info(strings.TrimRight(b.String(), "\n"))
}
