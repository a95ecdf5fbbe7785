package setup

// Plan mode as Gemini CLI 0.61 has it (general.plan.*): the plans
// directory, the tools' state, the system instruction's plan-mode section
// and the router's preference for pro while planning.

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool/builtin"
)

// planEnabled is general.plan.enabled, on unless a settings file turns
// it off.
func planEnabled(st *config.Settings) bool {
	on, ok := st.GetBool("general.plan.enabled")
	return !ok || on
}

// plansDir is general.plan.directory, resolved against the project root
// and required to stay inside it; else the first active extension's
// plan.directory, likewise (one outside the root is warned about and
// passed over, as Gemini CLI falls back); else the session's own folder
// under the project's temporary directory, as Gemini CLI's
// Storage.getPlansDir.
func plansDir(st *config.Settings, exts []*config.Extension, root, tempDir, sessionID string, warn func(string)) (string, error) {
	if custom, _ := st.GetString("general.plan.directory"); strings.TrimSpace(custom) != "" {
		dir, err := insideRoot(custom, root)
		if err != nil {
			return "", configErrorf("general.plan.directory: %v", err)
		}
		return dir, nil
	}
	for _, e := range exts {
		if !e.Active || strings.TrimSpace(e.PlanDirectory) == "" {
			continue
		}
		dir, err := insideRoot(e.PlanDirectory, root)
		if err != nil {
			warn(fmt.Sprintf("%s: key \"plan.directory\": %v; plans go to the session's folder", filepath.Join(e.Path, config.ExtensionManifestName), err))
			break
		}
		return dir, nil
	}
	return filepath.Join(tempDir, sessionID, "plans"), nil
}

// insideRoot resolves a plans directory against the project root and
// refuses one that leaves it.
func insideRoot(custom, root string) (string, error) {
	dir := custom
	if !filepath.IsAbs(dir) {
		dir = filepath.Join(root, dir)
	}
	realRoot, realDir := fsutil.ResolveExisting(filepath.Clean(root)), fsutil.ResolveExisting(filepath.Clean(dir))
	rel, err := filepath.Rel(realRoot, realDir)
	if err != nil || !(rel == "." || filepath.IsLocal(rel)) {
		return "", fmt.Errorf("custom plans directory '%s' resolves to '%s', which is outside the project root '%s'", custom, realDir, realRoot)
	}
	return filepath.Clean(dir), nil
}

// finishPlan gives plan mode its directory and mode once the session id
// and the policy exist, and has "auto" plan with pro and implement an
// approved plan with flash (general.plan.modelRouting, default on).
func finishPlan(st *config.Settings, a *Agent, ts *toolSet, pol *policy.Engine, client model.Model, sessionID string, warn func(string)) error {
	p := ts.env.Plan
	if p == nil {
		return nil
	}
	dir, err := plansDir(st, a.Extensions, p.Root, a.TempDir, sessionID, warn)
	if err != nil {
		return err
	}
	p.Dir = dir
	p.Modes = pol
	pol.SetPlansDir(dir)
	if on, ok := st.GetBool("general.plan.modelRouting"); ok && !on {
		return nil
	}
	if r := routerOf(client); r != nil {
		r.Prefer = func() string {
			switch {
			case pol.Mode() == policy.ModePlan:
				return "pro"
			case p.Approved() != "":
				return "flash"
			}
			return ""
		}
	}
	return nil
}

// planInstruction is the system instruction's section for plan mode, ""
// outside it.
func planInstruction(p *builtin.Plan, pol *policy.Engine) string {
	if p == nil || pol.Mode() != policy.ModePlan {
		if p != nil && p.Approved() != "" {
			return fmt.Sprintf("# Approved Plan\n\nThe user approved the plan at `%s`. Read it with read_file before you change anything, follow it strictly, and refine that plan rather than starting a new one unless the user asks for a new plan.", p.Approved())
		}
		return ""
	}
	approval := "get the user's approval before you edit source code"
	if !pol.Interactive() {
		approval = "write the design down before you go on by yourself"
	}
	return fmt.Sprintf(`# Active Approval Mode: Plan

You are in **Plan Mode**: produce an implementation plan in `+"`%[1]s/`"+` and %[2]s.

- You cannot modify source code. Use read-only tools to explore; write_file and replace may only write Markdown (.md) plan files in `+"`%[1]s/`"+`, under descriptive names.
- Answer questions directly; plan only for requests to change something. When the request is ambiguous or several approaches are viable, ask with ask_user.
- Discuss your findings and strategy with the user and reach agreement before you draft the plan; show the plan's full text in the chat when you present it.
- Once the user agrees, call the exit_plan_mode tool (never through the shell) with the plan's file name to ask for formal approval. After approval you may implement it.`, p.Dir, approval)
}

// planCommand registers /plan, Gemini CLI's: switch to plan mode, and
// either send the words after it as a prompt or show the approved plan.
func (a *Agent) planCommand(p *builtin.Plan) {
	if p == nil {
		return
	}
	a.Commands.Register(&command.Command{
		Name:        "plan",
		Description: "Switch to Plan Mode and view current plan",
		Arguments:   []command.Argument{{Name: "prompt", Description: "what to plan, sent at once in plan mode"}},
		SubCommands: []*command.Command{planCopyCommand(p)},
		Execute: func(_ context.Context, inv *command.Invocation) (*command.Result, error) {
			switched := a.Policy.Mode() != policy.ModePlan
			a.Policy.SetMode(policy.ModePlan)
			if len(inv.Args) > 0 {
				return &command.Result{Kind: command.ResultSubmitPrompt, Content: strings.Join(inv.Args, " "), Mode: string(policy.ModePlan)}, nil
			}
			var msg []string
			if switched {
				msg = append(msg, "Switched to Plan Mode.")
			}
			if path := p.Approved(); path != "" {
				data, err := os.ReadFile(path)
				if err != nil {
					return command.Error("Failed to read approved plan at %s: %v", path, err), nil
				}
				msg = append(msg, "Approved Plan: "+filepath.Base(path), string(data))
			}
			if len(msg) == 0 {
				msg = append(msg, "Already in Plan Mode.")
			}
			return command.Info("%s", strings.Join(msg, "\n\n")), nil
		},
	})
}

// planCopyCommand is /plan copy, Gemini CLI's: the approved plan's text
// to the clipboard, in the terminal, the one face with a clipboard (the
// others show the text).
func planCopyCommand(p *builtin.Plan) *command.Command {
	return &command.Command{
		Name:        "copy",
		Description: "Copy the currently approved plan to your clipboard",
		Execute: func(context.Context, *command.Invocation) (*command.Result, error) {
			path := p.Approved()
			if path == "" {
				return command.Info("No approved plan found to copy."), nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return command.Error("Failed to copy plan: %v", err), nil
			}
			// A face without a clipboard (ACP, A2A) shows the plan's text.
			return &command.Result{Kind: command.ResultAction, Content: string(data), Action: command.Clipboard{
				Text: string(data), Notice: fmt.Sprintf("Plan copied to clipboard (%s).", filepath.Base(path))}}, nil
		},
	}
}
