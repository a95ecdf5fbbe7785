package a2a

import (
	"context"
	"net/http"

	"github.com/castor-dev/castor/command"
)

// commandsFor returns the registry that lists and runs commands for the
// task taskID: its session's (Config.SessionCommands) once it has one,
// else the server's. With build, a task whose session is not built yet in
// this process (restored from the store) gets it built, as its next turn
// would: a command that acts on the conversation needs it. Without a
// task id it is the server's registry, which lists what a task's session
// accepts when the server was configured with one that does
// (setup.WithSessionCommands).
func (s *Server) commandsFor(ctx context.Context, taskID string, build bool) (*command.Registry, *Error) {
	if taskID == "" || s.cfg.SessionCommands == nil {
		if taskID != "" {
			if _, err := s.lookupTask(ctx, taskID); err != nil {
				return nil, asRPCError(err)
			}
		}
		return s.cmds, nil
	}
	t, err := s.lookupTask(ctx, taskID)
	if err != nil {
		return nil, asRPCError(err)
	}
	t.mu.Lock()
	a := t.agent
	t.mu.Unlock()
	if a == nil && build {
		if a, err = t.ensureAgent(ctx); err != nil {
			return nil, asRPCError(err)
		}
	}
	if a == nil {
		return s.cmds, nil
	}
	if reg := s.cfg.SessionCommands(a.Session()); reg != nil {
		return reg, nil
	}
	return s.cmds, nil
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
