// Package a2asession joins the A2A face to the assembly: it builds each
// A2A task's engine session with internal/setup. It stands apart from
// both so that neither the SDK (which imports setup) links the A2A server
// nor the A2A server depends on the assembly's internals.
package a2asession

import (
	"context"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/internal/setup"
)

// Factory builds each task's session from base with setup.NewTask, with
// the assembled agent's prompt expansion (custom commands, @path
// includes) and whole command registry (built-ins, custom and MCP
// commands, and the session's own /compress, /skills, /hooks).
func Factory(base setup.Options) a2a.NewSessionFunc {
	base = withElicit(base)
	return func(ctx context.Context, spec a2a.SessionSpec) (*a2a.TaskSession, error) {
		o := base
		if spec.Elicit != nil {
			// The task asks its client (a2a/elicit.go).
			o.Elicit = spec.Elicit
		}
		a, err := setup.NewTask(ctx, o, setup.TaskSpec{WorkDir: spec.WorkDir, SessionID: spec.SessionID, History: spec.History, ApprovalMode: spec.ApprovalMode, MaxApprovalMode: spec.MaxApprovalMode, CannotConfirm: spec.CannotConfirm})
		if err != nil {
			return nil, err
		}
		return &a2a.TaskSession{Session: a.Session, Close: a.Close, ExpandPrompt: a.ExpandPrompt, Commands: a.Commands}, nil
	}
}
