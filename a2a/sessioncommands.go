package a2a

import (
	"context"
	"net/http"

	"github.com/castor-dev/castor/command"
)

// commandsFor returns the registry that lists and runs commands for the
// task taskID, and the environment they run in: its session's registry
// (Config.SessionCommands) and its workspace once it has a session, else
// the server's. With build, a task whose session is not built yet in this
// process (restored from the store) gets it built, as its next turn
// would: a command that acts on the conversation needs it. Without a
// task id it is the server's registry, which lists what a task's session
// accepts when the server was configured with one that does
// (setup.WithSessionCommands).
func (s *Server) commandsFor(ctx context.Context, taskID string, build bool) (*command.Registry, command.Env, *Error) {
	if taskID == "" {
		return s.cmds, s.commandEnv(), nil
	}
	t, err := s.lookupTask(ctx, taskID)
	if err != nil {
		return nil, command.Env{}, asRPCError(err)
	}
	t.mu.Lock()
	a, ws := t.agent, t.settings.WorkspacePath
	t.mu.Unlock()
	env := s.commandEnv()
	if ws != "" {
		env = s.commandEnvAt(ws)
	}
	if s.cfg.SessionCommands == nil {
		return s.cmds, env, nil
	}
	if a == nil && build {
		if a, err = t.ensureAgent(ctx); err != nil {
			return nil, command.Env{}, asRPCError(err)
		}
	}
	if a != nil {
		if reg := s.cfg.SessionCommands(a.Session()); reg != nil {
			return reg, env, nil
		}
	}
	return s.cmds, env, nil
}

// commandsParams are the optional params of commands/get.
type commandsParams struct {
	TaskID      string `json:"task_id"`
	TaskIDCamel string `json:"taskId"`
}

func (p *commandsParams) taskID() string {
	if p.TaskID != "" {
		return p.TaskID
	}
	return p.TaskIDCamel
}

// restStatus is the HTTP status of a REST request that failed with e.
func restStatus(e *Error) int {
	switch e.Code {
	case CodeTaskNotFound:
		return http.StatusNotFound
	case CodeInvalidParams:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}
