package setup

import (
	"context"
	"strings"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/tool/builtin"
)

// WithSessionCommands returns a copy of reg that also holds the commands
// every session adds to its own registry (/compress, /skills, /hooks), so
// that a face listing commands before any session exists (the A2A
// server's GET /listCommands and commands/get) lists what a task's
// session accepts. They are registered by the code New uses, so names and
// descriptions cannot drift; run here, with no session behind them, they
// answer that they act on a task's session. Commands reg already holds
// are kept as they are.
func WithSessionCommands(reg *command.Registry) *command.Registry {
	out := command.NewRegistry(reg.Commands()...)
	// A bare Agent: registering reads no field, and the Execute funcs
	// that would are replaced below.
	a := &Agent{Commands: command.NewRegistry()}
	a.sessionCommands(nil, nil)
	a.liveCommands()
	a.planCommand(&builtin.Plan{})
	a.rewindCommand()
	for _, c := range a.Commands.Commands() {
		if have, _, _ := out.Lookup(c.Name); have != nil {
			continue
		}
		out.Register(needsSession(c, nil))
	}
	return out
}

// needsSession copies c (and its sub-commands) with an Execute that says
// the command needs a task's session.
func needsSession(c *command.Command, parent []string) *command.Command {
	cp := *c
	path := append(append([]string(nil), parent...), c.Name)
	if c.Execute != nil {
		name := "/" + strings.Join(path, " ")
		cp.Execute = func(context.Context, *command.Invocation) (*command.Result, error) {
			return command.Error("%s acts on a task's session: run it with the task's id.", name), nil
		}
	}
	cp.SubCommands = nil
	for _, sc := range c.SubCommands {
		cp.SubCommands = append(cp.SubCommands, needsSession(sc, path))
	}
	return &cp
}
