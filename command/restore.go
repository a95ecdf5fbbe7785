package command

import (
	"context"

	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/checkpoint"
)

// Restore is /restore: without a name it lists the project's checkpoints
// (taken before edits when general.checkpointing.enabled is set); with
// one it rolls the workspace files back to that checkpoint.
func Restore() *Command {
	list := func(_ context.Context, inv *Invocation) (*Result, error) {
		svc, err := checkpoints(inv.Env)
		if err != nil {
			return nil, err
		}
		infos, err := svc.List()
		if err != nil {
			return nil, err
		}
		if infos == nil {
			infos = []checkpoint.Info{}
		}
		return &Result{Kind: ResultData, Data: infos}, nil
	}
	return &Command{
		Name:              "restore",
		Description:       "Restore the project files to the state before a tool call. Without a name, lists the checkpoints.",
		Arguments:         []Argument{{Name: "checkpoint", Description: "the checkpoint to restore"}},
		RequiresWorkspace: true,
		SubCommands: []*Command{{
			Name:              "list",
			Description:       "List the available checkpoints",
			RequiresWorkspace: true,
			Execute:           list,
		}},
		Execute: func(ctx context.Context, inv *Invocation) (*Result, error) {
			if len(inv.Args) == 0 {
				return list(ctx, inv)
			}
			svc, err := checkpoints(inv.Env)
			if err != nil {
				return nil, err
			}
			if _, err := svc.Restore(ctx, inv.Args[0]); err != nil {
				return nil, err
			}
			return Info(checkpoint.RestoredMessage), nil
		},
	}
}

// checkpoints opens the checkpoint service of the workspace, laid out as
// the engine writes it (history and temp dirs share the project slug).
func checkpoints(env Env) (*checkpoint.Service, error) {
	h := home(env)
	tmp, err := chats.ProjectTempDir(h.Dir, env.Workspace)
	if err != nil {
		return nil, err
	}
	return checkpoint.ForProject(h.Dir, tmp, env.Workspace), nil
}
