package setup

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/fstest"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/internal/skills"
	"github.com/castor-dev/castor/internal/subagents"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
)

// spyModel records the requests a scripted model answers.
type spyModel struct {
	model.Model
	mu   sync.Mutex
	reqs []*model.Request
}

func (s *spyModel) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	return s.Model.GenerateContentStream(ctx, req)
}

func writeFile(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestSkillsAndSubagentsSteps(t *testing.T) {
	const skill = "---\nname: pdf\ndescription: Reads PDFs.\n---\nUse pdftotext."
	const sub = "---\nname: reviewer\ndescription: Reviews code.\n---\nYou review."
	tests := []struct {
		name       string
		settings   string
		files      map[string]string // relative to home
		options    func(*Options)
		wantTools  []string
		noTools    []string
		wantPrompt []string
		warn       string
	}{
		{
			name:       "discovered",
			files:      map[string]string{".gemini/skills/pdf/SKILL.md": skill, ".gemini/agents/reviewer.md": sub},
			wantTools:  []string{"activate_skill", "invoke_agent"},
			wantPrompt: []string{"# Available Sub-Agents", "- reviewer -> Reviews code.", "# Available Agent Skills", "<name>pdf</name>"},
		},
		{
			name:      "disabled by settings",
			settings:  `{"skills": {"disabled": ["PDF"]}, "experimental": {"enableAgents": false}}`,
			files:     map[string]string{".gemini/skills/pdf/SKILL.md": skill, ".gemini/agents/reviewer.md": sub},
			noTools:   []string{"activate_skill", "invoke_agent"},
			wantTools: []string{"read_file"},
		},
		{
			name:     "skills off",
			settings: `{"skills": {"enabled": false}}`,
			files:    map[string]string{".gemini/skills/pdf/SKILL.md": skill},
			noTools:  []string{"activate_skill"},
		},
		{
			name:      "excluded tools",
			settings:  `{"tools": {"exclude": ["activate_skill", "invoke_agent"]}}`,
			files:     map[string]string{".gemini/skills/pdf/SKILL.md": skill, ".gemini/agents/reviewer.md": sub},
			noTools:   []string{"activate_skill", "invoke_agent"},
			wantTools: []string{"read_file"},
		},
		{
			name:    "broken files are reported and skipped",
			files:   map[string]string{".gemini/skills/bad/SKILL.md": "---\nname: [\n---\n", ".gemini/agents/noname.md": "---\ndescription: x\n---\n"},
			noTools: []string{"activate_skill", "invoke_agent"},
			warn:    "noname.md:1: name: Required",
		},
		{
			name: "program's own",
			options: func(o *Options) {
				o.IgnoreSettings = true
				o.Skills = append(o.Skills, func() ([]*skills.Skill, error) {
					return skills.LoadFS(fstest.MapFS{"greet/SKILL.md": {Data: []byte("---\nname: greet\ndescription: Greets.\n---\nhi")}}, ".", true)
				})
				o.Subagents = []*subagents.Definition{{Name: "helper", Description: "Helps."}}
			},
			files:      map[string]string{".gemini/skills/pdf/SKILL.md": skill},
			wantTools:  []string{"activate_skill", "invoke_agent"},
			wantPrompt: []string{"<name>greet</name>", "- helper -> Helps."},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			for p, c := range tt.files {
				writeFile(t, filepath.Join(home, p), c)
			}
			if tt.settings != "" {
				writeFile(t, filepath.Join(home, ".gemini", "settings.json"), tt.settings)
			}
			var warnings []string
			spy := &spyModel{Model: fake.Script(fake.Text("ok"))}
			o := Options{WorkDir: ws, HomeDir: home, Client: spy, DisableRecording: true, Env: envOf(func(string) string { return "" }),
				Warn: func(s string) { warnings = append(warnings, s) }}
			if tt.options != nil {
				tt.options(&o)
			}
			a, err := New(context.Background(), o)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			for _, n := range tt.wantTools {
				if _, ok := a.Session.Tools().Get(n); !ok {
					t.Errorf("tool %s missing", n)
				}
			}
			for _, n := range tt.noTools {
				if _, ok := a.Session.Tools().Get(n); ok {
					t.Errorf("tool %s registered", n)
				}
			}
			if names := a.Session.Tools().Names(); len(tt.wantTools) == 2 && tt.wantTools[0] == "activate_skill" {
				if strings.Join(names[len(names)-2:], ",") != "invoke_agent,activate_skill" {
					t.Errorf("tool order %v", names)
				}
			}
			if _, err := a.Send(context.Background(), "hi"); err != nil {
				t.Fatal(err)
			}
			si := spy.reqs[0].Config.SystemInstruction.Parts[0].Text
			for _, w := range tt.wantPrompt {
				if !strings.Contains(si, w) {
					t.Errorf("system instruction lacks %q", w)
				}
			}
			if len(tt.wantPrompt) > 0 && strings.Index(si, "# Available Sub-Agents") > strings.Index(si, "# Primary Workflow") {
				t.Error("sections after the workflows")
			}
			if tt.warn != "" && !strings.Contains(strings.Join(warnings, "\n"), tt.warn) {
				t.Errorf("warnings %q lack %q", warnings, tt.warn)
			}
		})
	}
}

func TestProgramSkillErrorFailsNew(t *testing.T) {
	_, err := New(context.Background(), Options{WorkDir: t.TempDir(), HomeDir: t.TempDir(), IgnoreSettings: true, DisableRecording: true,
		Client: fake.Script(), Skills: []func() ([]*skills.Skill, error){func() ([]*skills.Skill, error) {
			return skills.LoadFS(fstest.MapFS{"s/SKILL.md": {Data: []byte("no front matter")}}, ".", true)
		}}})
	if err == nil || !strings.Contains(err.Error(), "s/SKILL.md:1: no front matter") {
		t.Errorf("error %v", err)
	}
}

func TestWithSections(t *testing.T) {
	base := "intro\n\n# Core\n\nrules\n\n# Primary Workflow\n\nsteps"
	tests := []struct {
		name, prompt   string
		custom         bool
		agents, skills string
		want           string
	}{
		{"both", base, false, "AGENTS", "SKILLS", "intro\n\n# Core\n\nrules\n\nAGENTS\n\nSKILLS\n\n# Primary Workflow\n\nsteps"},
		{"skills only", base, false, "", "SKILLS", "intro\n\n# Core\n\nrules\n\nSKILLS\n\n# Primary Workflow\n\nsteps"},
		{"none", base, false, "", "", base},
		{"custom prompt without placeholders", base, true, "A", "S", base},
		{"custom prompt with placeholders", "x ${AgentSkills} y ${SubAgents}", true, "A", "S", "x S y A"},
	}
	for _, tt := range tests {
		if got := withSections(tt.prompt, tt.custom, tt.agents, tt.skills); got != tt.want {
			t.Errorf("%s: got %q", tt.name, got)
		}
	}
}

// TestSubagentRunIsRecorded runs a subagent through a session and finds
// its record beside the session's, as Gemini CLI files them.
func TestSubagentRunIsRecorded(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code.\n---\nYou review.")
	spy := &spyModel{Model: fake.Script(
		fake.Call("invoke_agent", map[string]any{"agent_name": "reviewer", "prompt": "Review main.go, key SECRET-123"}),
		fake.Call("complete_task", map[string]any{"result": "Looks fine."}),
		fake.Text("The reviewer says it looks fine."),
	)}
	a, err := New(context.Background(), Options{WorkDir: ws, HomeDir: home, Client: spy, Env: envOf(func(string) string { return "" })})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "review please")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "The reviewer says it looks fine." {
		t.Errorf("answer %q", res.Text)
	}
	last := spy.reqs[2].Contents
	fr := last[len(last)-1].Parts[0].FunctionResponse
	if fr == nil || fr.Response["output"] != "Subagent 'reviewer' finished.\nTermination Reason: GOAL\nResult:\nLooks fine." {
		t.Errorf("invoke_agent response %+v", fr)
	}
	files, _ := filepath.Glob(filepath.Join(a.TempDir, "chats", a.SessionID(), "*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("subagent records %v", files)
	}
	conv, err := chats.LoadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	if conv.Kind != "subagent" || conv.Summary != "Looks fine." || len(conv.Messages) != 2 {
		t.Errorf("record kind %q summary %q, %d messages", conv.Kind, conv.Summary, len(conv.Messages))
	}
}

func TestSubagentNudge(t *testing.T) {
	a := &Agent{subagentNames: []string{"reviewer", "tester"}}
	tests := []struct{ text, want string }{
		{"@reviewer look at main.go", "\n<system_note>\nThe user has explicitly selected the following agent(s): reviewer. Please use the following tool(s) to delegate the task: 'reviewer'.\n</system_note>\n"},
		{"ask @tester and @reviewer, then @tester again", "\n<system_note>\nThe user has explicitly selected the following agent(s): tester, reviewer. Please use the following tool(s) to delegate the task: 'tester', 'reviewer'.\n</system_note>\n"},
		{"@nobody here", ""},
		{"mail me at x@reviewer", ""},
		{"reviewer, no mention", ""},
	}
	for _, tt := range tests {
		parts, err := a.ExpandPrompt(context.Background(), tt.text)
		if err != nil {
			t.Fatal(err)
		}
		got := ""
		if len(parts) == 2 {
			got = parts[1].Text
		}
		if parts[0].Text != tt.text || got != tt.want {
			t.Errorf("%q: %q", tt.text, got)
		}
	}
}

func TestAgentOverrides(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "agents", "a.md"), "---\nname: a\ndescription: A.\n---\nA")
	writeFile(t, filepath.Join(home, ".gemini", "agents", "b.md"), "---\nname: b\ndescription: B.\n---\nB")
	writeFile(t, filepath.Join(home, ".gemini", "settings.json"), `{"agents": {"overrides": {
		"a": {"modelConfig": {"model": "flash", "generateContentConfig": {"temperature": 0.1}}, "runConfig": {"maxTurns": 1}, "tools": ["read_file"]},
		"b": {"enabled": false}
	}}, "skills": {"disabled": []}}`)
	spy := &spyModel{Model: fake.Script(
		fake.Call("invoke_agent", map[string]any{"agent_name": "a", "prompt": "p"}),
		fake.Call("complete_task", map[string]any{"result": "r"}),
		fake.Text("done"),
	)}
	var warnings []string
	a, err := New(context.Background(), Options{WorkDir: ws, HomeDir: home, Client: spy, DisableRecording: true,
		Env: envOf(func(string) string { return "" }), Warn: func(s string) { warnings = append(warnings, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Send(context.Background(), "go"); err != nil {
		t.Fatal(err)
	}
	if si := spy.reqs[0].Config.SystemInstruction.Parts[0].Text; !strings.Contains(si, "- a -> A.") || strings.Contains(si, "- b -> B.") {
		t.Errorf("subagents listed:\n%s", si)
	}
	sub := spy.reqs[1]
	var names []string
	for _, d := range sub.Config.Tools[0].FunctionDeclarations {
		names = append(names, d.Name)
	}
	if sub.Model != routing.FlashModel || *sub.Config.Temperature != 0.1 || strings.Join(names, ",") != "read_file,complete_task" {
		t.Errorf("subagent call: model %s temperature %v tools %v", sub.Model, *sub.Config.Temperature, names)
	}
	if len(warnings) > 0 {
		t.Errorf("warnings %q", warnings)
	}
}

// A BeforeTool guard of the session holds for a subagent's calls too, and
// its model hooks see the subagent's model calls, as in Gemini CLI 0.61,
// with the session's id, while the agent hooks do not fire for the
// subagent.
func TestSubagentMeetsToolHooks(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(ws, "main.go"), "package main\n")
	writeFile(t, filepath.Join(home, ".gemini", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code.\ntools: [read_file]\n---\nYou review.")
	spy := &spyModel{Model: fake.Script(
		fake.Call("invoke_agent", map[string]any{"agent_name": "reviewer", "prompt": "Review main.go"}),
		fake.Call("read_file", map[string]any{"file_path": filepath.Join(ws, "main.go")}),
		fake.Call("complete_task", map[string]any{"result": "Could not read it."}),
		fake.Text("Done."),
	)}
	const sessionID = "7c2a0b4e-0000-4000-8000-000000000001"
	var mu sync.Mutex
	fired := map[agent.HookEvent][]string{}
	record := func(ctx context.Context, _ *Agent, in *agent.HookInput) (*agent.HookOutput, error) {
		mu.Lock()
		defer mu.Unlock()
		fired[in.HookEventName] = append(fired[in.HookEventName], in.ToolName)
		if in.SessionID != sessionID {
			t.Errorf("%s hook saw session %q, want the session's %q", in.HookEventName, in.SessionID, sessionID)
		}
		if in.HookEventName == agent.HookBeforeTool && in.ToolName == "read_file" {
			return &agent.HookOutput{Decision: "deny", Reason: "no reading"}, nil
		}
		return nil, nil
	}
	a, err := New(context.Background(), Options{WorkDir: ws, HomeDir: home, Client: spy, Env: envOf(func(string) string { return "" }), SessionID: sessionID,
		Hooks: []RuntimeHook{{Event: agent.HookBeforeTool, Func: record}, {Event: agent.HookBeforeModel, Func: record}, {Event: agent.HookBeforeAgent, Func: record}}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Send(context.Background(), "review please"); err != nil {
		t.Fatal(err)
	}
	if got := fired[agent.HookBeforeTool]; !slices.Equal(got, []string{"invoke_agent", "read_file", "complete_task"}) {
		t.Errorf("BeforeTool fired for %v", got)
	}
	// The main model was called twice, the subagent's twice.
	if got := len(fired[agent.HookBeforeModel]); got != 4 {
		t.Errorf("BeforeModel fired %d times, want 4", got)
	}
	if got := len(fired[agent.HookBeforeAgent]); got != 1 {
		t.Errorf("BeforeAgent fired %d times, want once (the user's prompt)", got)
	}
	sub := spy.reqs[2].Contents
	fr := sub[len(sub)-1].Parts[0].FunctionResponse
	if fr == nil || !strings.Contains(fmt.Sprint(fr.Response), "Tool execution blocked: no reading") {
		t.Errorf("subagent's read_file response %+v", fr)
	}
}

// A redacting BeforeModel hook is not bypassed by delegating: the
// subagent's model call carries the redacted prompt (Gemini CLI 0.61
// fires model hooks on every model call).
func TestSubagentModelCallRedactedByBeforeModel(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	writeFile(t, filepath.Join(home, ".gemini", "agents", "reviewer.md"), "---\nname: reviewer\ndescription: Reviews code.\ntools: [read_file]\n---\nYou review.")
	spy := &spyModel{Model: fake.Script(
		fake.Call("invoke_agent", map[string]any{"agent_name": "reviewer", "prompt": "Check the key SECRET-123"}),
		fake.Call("complete_task", map[string]any{"result": "Checked."}),
		fake.Text("Done."),
	)}
	redact := func(ctx context.Context, _ *Agent, in *agent.HookInput) (*agent.HookOutput, error) {
		// Only a request carrying the secret is rewritten: a rewritten
		// request is text only, as in Gemini CLI.
		raw, _ := json.Marshal(in.LLMRequest)
		if !strings.Contains(string(raw), "SECRET-123") {
			return nil, nil
		}
		req := *in.LLMRequest
		req.Messages = slices.Clone(req.Messages)
		for i := range req.Messages {
			req.Messages[i].Content = strings.ReplaceAll(req.Messages[i].Content, "SECRET-123", "[REDACTED]")
		}
		return &agent.HookOutput{HookSpecificOutput: &agent.HookSpecificOutput{LLMRequest: &req}}, nil
	}
	a, err := New(context.Background(), Options{WorkDir: ws, HomeDir: home, Client: spy, Env: envOf(func(string) string { return "" }),
		Hooks: []RuntimeHook{{Event: agent.HookBeforeModel, Func: redact}}})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Send(context.Background(), "review please"); err != nil {
		t.Fatal(err)
	}
	if len(spy.reqs) != 3 {
		t.Fatalf("%d model calls, want 3", len(spy.reqs))
	}
	raw, _ := json.Marshal(spy.reqs[1].Contents)
	if strings.Contains(string(raw), "SECRET-123") || !strings.Contains(string(raw), "Check the key [REDACTED]") {
		t.Errorf("the subagent's model call is not redacted: %s", raw)
	}
}

// TestSubagentUnknownToolsReported: an agent file naming tools the
// session lacks (a Gemini CLI tool Castor lacks, a typo) is reported with its file
// and key, and the agent still runs with the tools it can have.
func TestSubagentUnknownToolsReported(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	file := filepath.Join(ws, ".gemini", "agents", "planner.md")
	writeFile(t, file, "---\nname: planner\ndescription: Plans.\ntools: [read_file, tracker_create_task, \"*\", mcp_github_*, reed_file]\n---\nYou plan.")
	var warns []string
	a, err := New(context.Background(), Options{WorkDir: ws, HomeDir: home, Client: fake.Script(fake.Text("ok")), Env: envOf(func(k string) string {
		if k == "GEMINI_CLI_TRUST_WORKSPACE" {
			return "true"
		}
		return ""
	}), Warn: func(s string) { warns = append(warns, s) }})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	got := strings.Join(warns, "\n")
	for _, want := range []string{
		file + `: tools[1]: agent "planner" names the tool "tracker_create_task", which this session does not have; the agent runs without it`,
		file + `: tools[4]: agent "planner" names the tool "reed_file"`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings lack %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, `"read_file", which`) || strings.Contains(got, "mcp_github") || strings.Contains(got, `"*"`) {
		t.Errorf("a tool the session has, or a wildcard, was reported:\n%s", got)
	}
}
