package a2a

import (
	"cmp"
	"context"
	"errors"
	"net/http"

	"github.com/castor-dev/castor/a2a/internal/jsonrpc"
	"github.com/castor-dev/castor/command"
)

// commandsFor returns the registry that lists and runs commands for the
// task taskID, and the environment they run in: its session's registry
// (TaskSession.Commands) and its workspace once it has a session, else
// the server's. With build, a task whose session is not built yet in this
// process (restored from the store) gets it built, as its next turn
// would: a command that acts on the conversation needs it. Without a
// task id it is the server's registry, which lists what a task's session
// accepts when the server was configured with one that does
// (setup.WithSessionCommands).
func (s *Server) commandsFor(ctx context.Context, taskID string, build bool) (*command.Registry, command.Env, *rpcError) {
	if taskID == "" {
		return s.cmds, command.EnvAt(s.cfg.Workspace, s.cfg.HomeDir), nil
	}
	t, err := s.lookupTask(ctx, taskID)
	if err != nil {
		return nil, command.Env{}, jsonrpc.AsError(err)
	}
	t.mu.Lock()
	ws := t.settings.WorkspacePath
	t.mu.Unlock()
	env := command.EnvAt(cmp.Or(ws, s.cfg.Workspace), s.cfg.HomeDir)
	sess := t.session.Current()
	if sess == nil && build {
		if sess, err = t.ensureSession(ctx); err != nil {
			return nil, command.Env{}, jsonrpc.AsError(err)
		}
	}
	if b := t.builtFor(sess); b != nil && b.Commands != nil {
		return b.Commands, env, nil
	}
	return s.cmds, env, nil
}

// findCommand looks up the command named name (path in words) to run in
// env (command.Registry.Find): a command that does not exist is
// MethodNotFound, one that needs the workspace env lacks InvalidParams.
func findCommand(reg *command.Registry, env command.Env, name string, path ...string) (*command.Command, []string, *rpcError) {
	cmd, cpath, err := reg.Find(env, path...)
	if err == nil && !cmd.OfferedIn(command.FaceA2A) {
		err = command.ErrNotFound // another face's own command
	}
	switch {
	case errors.Is(err, command.ErrNotFound):
		return nil, nil, jsonrpc.Errorf(CodeMethodNotFound, "Command not found: %s", name)
	case errors.Is(err, command.ErrNeedsWorkspace):
		return nil, nil, errInvalidParams("Command \"%s\" requires a workspace, but CODER_AGENT_WORKSPACE_PATH is not set.", name)
	}
	return cmd, cpath, nil
}

// restStatus is the HTTP status of a REST request that failed with e.
func restStatus(e *rpcError) int {
	switch {
	case busy(e):
		return http.StatusTooManyRequests
	case e.Code == CodeTaskNotFound || e.Code == CodeMethodNotFound:
		return http.StatusNotFound
	case e.Code == CodeInvalidParams || e.Code == CodeInvalidRequest:
		return http.StatusBadRequest
	}
	return http.StatusInternalServerError
}

// busy reports whether e is errBusy's: the server is out of room.
func busy(e *rpcError) bool { return e.Data != nil }
