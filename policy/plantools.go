package policy

import (
	"path/filepath"
	"regexp"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/tool"
)

// Gemini CLI's rules for the tools that change or ask across modes
// (plan.toml, yolo.toml, non-interactive.toml, read-only.toml), with their
// priorities and refusal texts.
const (
	prioPlanEdit     = 1065 // plan.toml: edits outside the plans directory refused
	prioPlanSwitch   = 1070 // plan.toml: mode transitions, plan files
	prioYoloPlanDeny = 1999 // yolo.toml: plan tools refused, ask_user asked

	msgAlreadyPlan  = "You are already in Plan Mode."
	msgNotPlan      = "You are not currently in Plan Mode. Use enter_plan_mode first to design a plan."
	msgPlanReadOnly = "You are in Plan Mode with access to read-only tools. Execution of scripts (including those from skills) is blocked."
	msgPlanEdit     = "You are in Plan Mode and cannot modify source code. You may ONLY use write_file or replace to save plans to the designated plans directory as .md files."
)

// planFileName is the file name plan.toml lets plan mode write.
var planFileName = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[\w-]+\.md$`) }}

// notReadOnly are read tools Gemini CLI's read-only.toml does not list, so
// that they are asked about like other tools (and hidden in headless runs).
var notReadOnly = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"list_background_processes": true, "read_background_output": true}
}}

// readOnly reports whether c runs unasked as a read-only tool.
func readOnly(c Call) bool { return c.Kind.ReadOnly() && !notReadOnly.Get()[c.Name] }

// modeToolLocked is the decision for the tools whose rules depend on the
// mode beyond read-only or not: ok is false for every other call.
func (e *Engine) modeToolLocked(c Call) (d Decision, prio int, msg string, ok bool) {
	ask := func(p int) (Decision, int, string, bool) {
		if e.canAskLocked(c) {
			return Ask, p, "", true
		}
		return Allow, p, "", true
	}
	switch c.Name {
	case "enter_plan_mode", "exit_plan_mode":
		if e.mode == ModeYolo && e.interactive {
			return Deny, prioYoloPlanDeny, "", true
		}
		inPlan := e.mode == ModePlan
		if c.Name == "enter_plan_mode" {
			if inPlan {
				return Deny, prioPlanSwitch, msgAlreadyPlan, true
			}
			return ask(prioReadOnly)
		}
		if !inPlan {
			return Deny, prioReadOnly, msgNotPlan, true
		}
		return ask(prioPlanSwitch)
	case "ask_user":
		if !e.canAskLocked(c) {
			return Deny, prioYoloPlanDeny, "", true
		}
		return Ask, prioYoloPlanDeny, "", true
	}
	if e.mode != ModePlan {
		return 0, 0, "", false
	}
	switch {
	case c.Kind == tool.KindEdit:
		if e.planFileLocked(c) {
			return Allow, prioPlanSwitch, "", true
		}
		return Deny, prioPlanEdit, msgPlanEdit, true
	case readOnly(c):
		return Allow, prioReadOnly, "", true
	case c.Name == "web_fetch" || c.Name == "activate_skill" || c.readOnlyHint != nil && *c.readOnlyHint:
		if e.interactive {
			return Ask, prioReadOnly, "", true
		}
	case c.Name == "invoke_agent":
		if a, _ := c.Args["agent_name"].(string); a == "codebase_investigator" || a == "cli_help" {
			return Allow, prioReadOnly, "", true
		}
	}
	return Deny, prioPlanDeny, msgPlanReadOnly, true
}

// planFileLocked reports whether an edit call writes a Markdown file in
// the plans directory, the one thing plan mode may write.
func (e *Engine) planFileLocked(c Call) bool {
	p, _ := c.Args["file_path"].(string)
	if p == "" || e.plansDir == "" || !planFileName.Get().MatchString(filepath.Base(p)) {
		return false
	}
	root := ""
	if e.workspace != nil {
		root = e.workspace.Root()
	}
	_, err := tool.ResolvePlanPath(p, e.plansDir, root)
	return err == nil
}

// PlansDir is where plan mode keeps its plans ("" without plan mode).
func (e *Engine) PlansDir() string {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.plansDir
}

// SetPlansDir sets Options.PlansDir once the session, whose id names the
// folder, exists.
func (e *Engine) SetPlansDir(dir string) {
	e.mu.Lock()
	e.plansDir = dir
	e.mu.Unlock()
}
