// Package a2asession joins the A2A face to the assembly: it builds each
// A2A task's engine session with internal/setup. It stands apart from
// both so that neither the SDK (which imports setup) links the A2A server
// nor the A2A server depends on the assembly's internals.
package a2asession

import (
	"context"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/setup"
)

// Factory builds each task's session from base with setup.NewTask.
func Factory(base setup.Options) a2a.NewSessionFunc {
	base = withElicit(base)
	return func(ctx context.Context, spec a2a.SessionSpec) (*agent.Session, func() error, error) {
		o := base
		if spec.Elicit != nil {
			// The task asks its client (a2a/elicit.go).
			o.Elicit = spec.Elicit
		}
		a, err := setup.NewTask(ctx, o, setup.TaskSpec{WorkDir: spec.WorkDir, SessionID: spec.SessionID, History: spec.History, ApprovalMode: spec.ApprovalMode})
		if err != nil {
			return nil, nil, err
		}
		return a.Session, track(a), nil
	}
}
