package extensions_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

func declaredNames(r *fakegemini.Request) []string {
	var names []string
	for _, d := range r.FunctionDeclarations() {
		names = append(names, d.Name)
	}
	return names
}

// TestSkillActivationE2E: a user skill is listed in the system
// instruction, the model activates it, and the skill's body and folder
// reach the model in activate_skill's response.
func TestSkillActivationE2E(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	skillDir := filepath.Join(e.Home, ".gemini", "skills", "release-notes")
	e2etest.WriteAt(t, filepath.Join(skillDir, "SKILL.md"), "---\nname: release-notes\ndescription: Writes release notes from git history.\n---\nGroup changes by Added, Fixed and Removed.\n")
	e2etest.WriteAt(t, filepath.Join(skillDir, "template.md"), "## Added\n")
	e.Srv.Enqueue(
		fakegemini.Call("activate_skill", map[string]any{"name": "release-notes"}),
		fakegemini.Text("Notes written the skill's way."),
	)
	r := e.Run("--allowed-tools", "activate_skill", "-o", "json", "-p", "Write release notes")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model calls", len(reqs))
	}
	si := reqs[0].SystemInstruction.Parts[0].Text
	for _, want := range []string{"# Available Agent Skills", "<name>release-notes</name>", "<description>Writes release notes from git history.</description>", "<location>" + filepath.Join(skillDir, "SKILL.md") + "</location>"} {
		if !strings.Contains(si, want) {
			t.Errorf("system instruction lacks %q", want)
		}
	}
	if !slices.Contains(declaredNames(reqs[0]), "activate_skill") {
		t.Errorf("activate_skill not declared: %v", declaredNames(reqs[0]))
	}
	name, resp := e2etest.FunctionResponse(t, reqs[1].Contents[len(reqs[1].Contents)-1], 0)
	out, _ := resp["output"].(string)
	if name != "activate_skill" || !strings.HasPrefix(out, "<activated_skill name=\"release-notes\">\n  <instructions>\n    Group changes by Added, Fixed and Removed.\n  </instructions>") || !strings.Contains(out, "└───template.md") {
		t.Errorf("activate_skill response %s %v", name, resp)
	}
}

// TestSkillHiddenHeadlessWithoutApproval: as in Gemini CLI, a headless
// run that may not ask refuses activate_skill, so it is not declared.
func TestSkillHiddenHeadlessWithoutApproval(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("ok"))
	e2etest.WriteAt(t, filepath.Join(e.WS, ".gemini", "skills", "s", "SKILL.md"), "---\nname: s\ndescription: d\n---\nbody")
	r := e.Run("-p", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d: %s", r.Code, r.Stderr)
	}
	if slices.Contains(declaredNames(e.Srv.LastRequest()), "activate_skill") {
		t.Error("activate_skill declared in a headless run that cannot ask")
	}
}

// TestSubagentE2E: a user subagent runs its own loop (a tool call, then
// complete_task) on the scripted model, its answer reaches the main
// model as invoke_agent's response, and its run is recorded beside the
// session.
func TestSubagentE2E(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("main.go", "package main\n")
	e2etest.WriteAt(t, filepath.Join(e.Home, ".gemini", "agents", "reviewer.md"),
		"---\nname: reviewer\ndescription: Reviews Go code.\ntools: [read_file]\nmax_turns: 5\n---\nYou are a careful Go reviewer. Review: ${query}\n")
	e.Srv.Enqueue(
		// The main model delegates.
		fakegemini.Call("invoke_agent", map[string]any{"agent_name": "reviewer", "prompt": "Review main.go"}),
		// The subagent's own model calls.
		fakegemini.Call("read_file", map[string]any{"absolute_path": filepath.Join(e.WS, "main.go")}),
		fakegemini.Call("complete_task", map[string]any{"result": "main.go is an empty main package."}),
		// The main model answers with the subagent's findings.
		fakegemini.Text("The reviewer found an empty main package."),
	)
	r := e.Run("-o", "json", "-p", "Review my code")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var out struct {
		Response string `json:"response"`
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || out.Response != "The reviewer found an empty main package." {
		t.Fatalf("response %q (%v)", out.Response, err)
	}
	reqs := e.Srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model calls, want 4", len(reqs))
	}
	main, sub := reqs[0], reqs[1]
	if si := main.SystemInstruction.Parts[0].Text; !strings.Contains(si, "# Available Sub-Agents") || !strings.Contains(si, "- reviewer -> Reviews Go code.") {
		t.Errorf("main system instruction lacks the subagents section")
	}
	if !slices.Contains(declaredNames(main), "invoke_agent") {
		t.Errorf("invoke_agent not declared: %v", declaredNames(main))
	}
	if si := sub.SystemInstruction.Parts[0].Text; !strings.HasPrefix(si, "You are a careful Go reviewer. Review: Review main.go\n\n# Environment Context") || !strings.Contains(si, "you MUST call the `complete_task` tool") {
		t.Errorf("subagent system instruction:\n%s", si)
	}
	if got := declaredNames(sub); !slices.Equal(got, []string{"read_file", "complete_task"}) {
		t.Errorf("subagent tools %v", got)
	}
	if len(sub.Contents) != 1 || sub.Contents[0].Parts[0].Text != "Review main.go" {
		t.Errorf("subagent's first message %+v", sub.Contents)
	}
	name, resp := e2etest.FunctionResponse(t, reqs[3].Contents[len(reqs[3].Contents)-1], 0)
	if name != "invoke_agent" || resp["output"] != "Subagent 'reviewer' finished.\nTermination Reason: GOAL\nResult:\nmain.go is an empty main package." {
		t.Errorf("invoke_agent response %s %v", name, resp)
	}
	session := e.SessionFile()
	var hdr struct {
		SessionID string `json:"sessionId"`
	}
	data, _ := os.ReadFile(session)
	json.Unmarshal([]byte(strings.SplitN(string(data), "\n", 2)[0]), &hdr)
	records, _ := filepath.Glob(filepath.Join(filepath.Dir(session), hdr.SessionID, "*.jsonl"))
	if len(records) != 1 {
		t.Fatalf("subagent records %v", records)
	}
	rec, _ := os.ReadFile(records[0])
	if !strings.Contains(string(rec), `"kind":"subagent"`) || !strings.Contains(string(rec), `"summary":"main.go is an empty main package."`) {
		t.Errorf("subagent record:\n%s", rec)
	}
}

// TestSubagentWithoutNameE2E: a definition without a name is reported,
// naming the file, and the run goes on.
func TestSubagentWithoutNameE2E(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("ok"))
	bad := filepath.Join(e.Home, ".gemini", "agents", "nameless.md")
	e2etest.WriteAt(t, bad, "---\ndescription: no name here\n---\nprompt")
	r := e.Run("-p", "hi")
	if r.Code != 0 || strings.TrimSpace(r.Stdout) != "ok" {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "Failed to load agent from "+bad) || !strings.Contains(r.Stderr, "name: Required") {
		t.Errorf("stderr %q", r.Stderr)
	}
}

// TestSkillsCommandE2E lists, disables and enables skills through the
// binary, as `gemini skills` does.
func TestSkillsCommandE2E(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	userSkill := filepath.Join(e.Home, ".gemini", "skills", "pdf", "SKILL.md")
	e2etest.WriteAt(t, userSkill, "---\nname: pdf\ndescription: Reads PDFs.\n---\nbody")
	wsSkill := filepath.Join(e.WS, ".agents", "skills", "deploy", "SKILL.md")
	e2etest.WriteAt(t, wsSkill, "---\nname: deploy\ndescription: Deploys.\n---\nbody")
	e2etest.WriteAt(t, filepath.Join(e.WS, ".gemini", "skills", "broken", "SKILL.md"), "---\nname: [\n---\n")

	r := e.Run("skills", "list")
	want := "Discovered Agent Skills:\n\n" +
		"deploy [Enabled]\n  Description: Deploys.\n  Location:    " + wsSkill + "\n\n" +
		"pdf [Enabled]\n  Description: Reads PDFs.\n  Location:    " + userSkill + "\n\n"
	if r.Code != 0 || r.Stdout != want {
		t.Errorf("list: exit %d\n%s\nwant\n%s", r.Code, r.Stdout, want)
	}
	if !strings.Contains(r.Stderr, filepath.Join(e.WS, ".gemini", "skills", "broken", "SKILL.md")+":2: invalid YAML front matter") {
		t.Errorf("list stderr %q", r.Stderr)
	}

	wsSettings := filepath.Join(e.WS, ".gemini", "settings.json")
	r = e.Run("skills", "disable", "pdf")
	if r.Code != 0 || r.Stdout != "Skill \"pdf\" disabled by adding it to the disabled list in workspace ("+wsSettings+") settings.\n" {
		t.Errorf("disable: %d %q %q", r.Code, r.Stdout, r.Stderr)
	}
	if r = e.Run("skills", "disable", "pdf"); r.Stdout != "Skill \"pdf\" is already disabled.\n" {
		t.Errorf("disable again: %q", r.Stdout)
	}
	if r = e.Run("skills", "list"); !strings.Contains(r.Stdout, "pdf [Disabled]") {
		t.Errorf("list after disable:\n%s", r.Stdout)
	}
	if r = e.Run("skills", "enable", "pdf"); r.Stdout != "Skill \"pdf\" enabled by removing it from the disabled list in workspace ("+wsSettings+") settings.\n" {
		t.Errorf("enable: %q %q", r.Stdout, r.Stderr)
	}
	if r = e.Run("skills", "enable", "pdf"); r.Stdout != "Skill \"pdf\" is already enabled.\n" {
		t.Errorf("enable again: %q", r.Stdout)
	}
	if r = e.Run("skills", "disable", "pdf", "--scope", "team"); r.Code == 0 {
		t.Errorf("bad scope accepted: %q", r.Stdout)
	}
	os.RemoveAll(filepath.Join(e.Home, ".gemini", "skills"))
	os.RemoveAll(filepath.Join(e.WS, ".agents"))
	os.RemoveAll(filepath.Join(e.WS, ".gemini", "skills"))
	if r = e.Run("skills", "list"); r.Stdout != "No skills discovered.\n" {
		t.Errorf("empty list: %q", r.Stdout)
	}
}
