package subagents

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

func write(t testing.TB, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestParse(t *testing.T) {
	tests := []struct {
		name, in string
		want     *Definition
		err      string
	}{
		{
			name: "full",
			in:   "---\nname: reviewer\ndescription: Reviews code.\ntools: [read_file, 'mcp_*']\nmodel: gemini-2.5-flash\ntemperature: 0.2\nmax_turns: 5\ntimeout_mins: 2\n---\nYou review ${query}.\n",
			want: &Definition{Name: "reviewer", Description: "Reviews code.", Tools: []string{"read_file", "mcp_*"}, Model: "gemini-2.5-flash", Temperature: ptr(0.2), MaxTurns: 5, Timeout: 2 * time.Minute, SystemPrompt: "You review ${query}.", File: "a.md"},
		},
		{
			name: "defaults",
			in:   "---\nname: x\ndescription: d\n---\nbody",
			want: &Definition{Name: "x", Description: "d", SystemPrompt: "body", File: "a.md"},
		},
		{name: "no name", in: "---\ndescription: d\n---\n", err: "Failed to load agent from a.md: a.md:1: name: Required"},
		{name: "bad slug", in: "---\nname: My Agent\ndescription: d\n---\n", err: `name: Name must be a valid slug`},
		{name: "no description", in: "---\nname: x\n---\n", err: "description: Required"},
		{name: "unknown key", in: "---\nname: x\ndescription: d\ncolour: red\n---\n", err: "a.md:4: invalid YAML front matter: field colour not found"},
		{name: "bad yaml", in: "---\nname: x\ndescription: [\n---\n", err: "a.md:3: invalid YAML front matter"},
		{name: "no front matter", in: "just text", err: "missing mandatory YAML front matter"},
		{name: "remote", in: "---\nkind: remote\nname: x\nagent_card_url: http://x\n---\n", err: "remote (A2A) subagents are not supported"},
		{name: "zero turns", in: "---\nname: x\ndescription: d\nmax_turns: 0\n---\n", err: "max_turns: must be a positive integer"},
		{name: "bad tool", in: "---\nname: x\ndescription: d\ntools: ['a b']\n---\n", err: `tools: Invalid tool name "a b"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d, err := Parse([]byte(tt.in), "a.md")
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(tt.want, d, cmp.FilterPath(func(p cmp.Path) bool { return p.String() == "Instructions" || p.String() == "Run" }, cmp.Ignore())); d != "" {
				t.Errorf("(-want +got):\n%s", d)
			}
		})
	}
}

func FuzzParse(f *testing.F) {
	f.Add("---\nname: a\ndescription: b\ntools: ['*']\n---\nbody")
	f.Add("---\nname: [\n---\n")
	f.Add("---\nmax_turns: -1\n---\n")
	f.Fuzz(func(t *testing.T, s string) {
		d, err := Parse([]byte(s), "f.md")
		if err == nil && (d.Name == "" || d.Description == "") {
			t.Fatalf("bad definition %+v", d)
		}
		if err != nil && !strings.Contains(err.Error(), "f.md") {
			t.Fatalf("error without the file: %v", err)
		}
	})
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	home, ws, ext := filepath.Join(root, "home"), filepath.Join(root, "ws"), filepath.Join(root, "ext")
	def := func(name, desc string) string {
		return "---\nname: " + name + "\ndescription: " + desc + "\n---\nprompt"
	}
	write(t, filepath.Join(ws, ".gemini", "agents", "a.md"), def("a", "workspace a"))
	write(t, filepath.Join(ws, ".gemini", "agents", "_draft.md"), def("draft", "ignored"))
	write(t, filepath.Join(home, ".gemini", "agents", "a.md"), def("a", "user a"))
	write(t, filepath.Join(home, ".gemini", "agents", "b.md"), def("b", "user b"))
	write(t, filepath.Join(home, ".gemini", "agents", "broken.md"), "---\ndescription: no name\n---\n")
	write(t, filepath.Join(ext, "agents", "c.md"), def("c", "extension c"))
	names := func(defs []*Definition) []string {
		var out []string
		for _, d := range defs {
			out = append(out, d.Name+"="+d.Description)
		}
		return out
	}
	tests := []struct {
		trusted bool
		want    []string
		warn    string
	}{
		{true, []string{"a=workspace a", "b=user b", "c=extension c"}, "Duplicate agent name 'a' detected."},
		{false, []string{"a=user a", "b=user b", "c=extension c"}, "Skipping project agents due to untrusted folder."},
	}
	for _, tt := range tests {
		defs, warnings := Discover(Sources{Workspace: ws, Trusted: tt.trusted, Home: home, Extensions: []string{ext}})
		if d := cmp.Diff(tt.want, names(defs)); d != "" {
			t.Errorf("trusted=%v (-want +got):\n%s", tt.trusted, d)
		}
		joined := strings.Join(warnings, "\n")
		broken := filepath.Join(home, ".gemini", "agents", "broken.md")
		if !strings.Contains(joined, "Agent loading error: Failed to load agent from "+broken+": "+broken+":1: name: Required") || !strings.Contains(joined, tt.warn) {
			t.Errorf("warnings:\n%s", joined)
		}
	}
}

func TestSectionGolden(t *testing.T) {
	got := Section([]*Definition{{Name: "reviewer", Description: "Reviews code."}, {Name: "tester", Description: "Runs tests."}})
	golden.Check(t, "section.golden", got)
}

// spy records the requests a scripted model answers.
type spy struct {
	model.Model
	mu   sync.Mutex
	reqs []*model.Request
}

func (s *spy) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	return s.Model.GenerateContentStream(ctx, req)
}

func declared(req *model.Request) []string {
	var names []string
	for _, t := range req.Config.Tools {
		for _, d := range t.FunctionDeclarations {
			names = append(names, d.Name)
		}
	}
	return names
}

// echoTool is a read-only tool the subagent may call.
type echoTool struct{}

func (echoTool) Name() string           { return "echo" }
func (echoTool) DisplayName() string    { return "Echo" }
func (echoTool) Description() string    { return "Echoes." }
func (echoTool) Kind() tool.Kind        { return tool.KindRead }
func (echoTool) Schema() map[string]any { return map[string]any{"type": "object"} }
func (echoTool) Build(args map[string]any) (tool.Call, error) {
	return echoCall{}, nil
}

type echoCall struct{}

func (echoCall) Describe() string { return "echo" }
func (echoCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}
func (echoCall) Execute(context.Context, func(string)) *tool.Result { return tool.Text("echoed") }

// parent builds the parent's registry, invoke_agent included, over a
// scripted model.
func parent(t testing.TB, m model.Model, defs ...*Definition) (*tool.Registry, tool.Tool) {
	t.Helper()
	reg := tool.NewRegistry(echoTool{})
	r := &Runner{
		Model: m, ModelName: func() string { return "gemini-test" }, Tools: reg,
		Policy: policy.New(policy.Options{}),
		Dirs:   func() []string { return []string{"/ws"} },
		Tree:   func(d string) string { return "TREE " + d },
		// The timeout test's grace turn blocks until this is up.
		GracePeriod: 10 * time.Millisecond,
	}
	it := NewTool(defs, r)
	reg.Register(it)
	return reg, it
}

func invoke(t *testing.T, it tool.Tool, name, prompt string) *tool.Result {
	t.Helper()
	call, err := it.Build(map[string]any{"agent_name": name, "prompt": prompt})
	if err != nil {
		t.Fatal(err)
	}
	var out strings.Builder
	return call.Execute(context.Background(), func(s string) { out.WriteString(s) })
}

func TestRunToCompletion(t *testing.T) {
	m := &spy{Model: fake.Script(
		fake.Call("echo", nil),
		fake.Call(CompleteTaskName, map[string]any{"result": "All good."}),
	)}
	_, it := parent(t, m, &Definition{Name: "checker", Description: "Checks.", SystemPrompt: "You check ${query}."})
	res := invoke(t, it, "checker", "the build")
	want := "Subagent 'checker' finished.\nTermination Reason: GOAL\nResult:\nAll good."
	if res.Error != nil || res.LLMText != want {
		t.Fatalf("result %q %v", res.LLMText, res.Error)
	}
	if len(m.reqs) != 2 {
		t.Fatalf("%d model calls, want 2 (no call after complete_task)", len(m.reqs))
	}
	first := m.reqs[0]
	if d := cmp.Diff([]string{"echo", CompleteTaskName}, declared(first)); d != "" {
		t.Errorf("tools (-want +got):\n%s", d)
	}
	si := first.Config.SystemInstruction.Parts[0].Text
	if !strings.HasPrefix(si, "You check the build.\n\n# Environment Context\n- **Workspace Directories:**\n  - /ws\n- **Directory Structure:**\n\nTREE /ws\nImportant Rules:") {
		t.Errorf("system instruction:\n%s", si)
	}
	if got := first.Contents[0].Parts[0].Text; got != "the build" || first.Model != "gemini-test" {
		t.Errorf("first message %q to %s", got, first.Model)
	}
	if *first.Config.Temperature != 1 || *first.Config.TopP != 0.95 {
		t.Errorf("generation config %+v", first.Config)
	}
}

func TestGraceTurns(t *testing.T) {
	tests := []struct {
		name   string
		def    *Definition
		script []fake.Entry
		want   string
		calls  int
	}{
		{
			name:   "stopped without complete_task, recovered",
			def:    &Definition{Name: "a", Description: "d"},
			script: []fake.Entry{fake.Text("I am done."), fake.Call(CompleteTaskName, map[string]any{"result": "late"})},
			want:   "Termination Reason: GOAL\nResult:\nlate",
			calls:  2,
		},
		{
			name:   "stopped twice",
			def:    &Definition{Name: "a", Description: "d"},
			script: []fake.Entry{fake.Text("done"), fake.Text("still done")},
			want:   "Termination Reason: ERROR_NO_COMPLETE_TASK_CALL\nResult:\nAgent stopped calling tools but did not call 'complete_task' to finalize the session.",
			calls:  2,
		},
		{
			name:   "max turns",
			def:    &Definition{Name: "a", Description: "d", MaxTurns: 2},
			script: []fake.Entry{fake.Call("echo", nil), fake.Call("echo", nil), fake.Call("echo", nil)},
			want:   "Termination Reason: MAX_TURNS\nResult:\nAgent reached max turns limit (2).",
			calls:  3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &spy{Model: fake.Script(tt.script...)}
			_, it := parent(t, m, tt.def)
			res := invoke(t, it, "a", "go")
			if !strings.Contains(res.LLMText, tt.want) {
				t.Errorf("result %q, want %q", res.LLMText, tt.want)
			}
			if len(m.reqs) != tt.calls {
				t.Errorf("%d model calls, want %d", len(m.reqs), tt.calls)
			}
			// The grace message joins the last calls' responses (agent's
			// appendPrompt), so it is the last part.
			last := m.reqs[len(m.reqs)-1].Contents
			lastParts := last[len(last)-1].Parts
			if msg := lastParts[len(lastParts)-1].Text; !strings.Contains(msg, "You have one final chance to complete the task") {
				t.Errorf("grace turn message %q", msg)
			}
		})
	}
}

// blocking answers nothing until its context ends, then fails.
type blocking struct{ model.Model }

func (blocking) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		<-ctx.Done()
		yield(nil, ctx.Err())
	}
}

func TestTimeout(t *testing.T) {
	_, it := parent(t, blocking{}, &Definition{Name: "slow", Description: "d", Timeout: time.Millisecond})
	// The grace turn blocks too, until its grace period is up.
	res := invoke(t, it, "slow", "go")
	if !strings.Contains(res.LLMText, "Termination Reason: TIMEOUT\nResult:\nAgent timed out after 0 minutes.") {
		t.Errorf("result %q", res.LLMText)
	}
}

func TestNoRecursionAndUnknownAgent(t *testing.T) {
	m := &spy{Model: fake.Script(fake.Call(CompleteTaskName, map[string]any{"result": "ok"}))}
	_, it := parent(t, m, &Definition{Name: "a", Description: "d", Tools: []string{"*"}})
	invoke(t, it, "a", "go")
	for _, n := range declared(m.reqs[0]) {
		if n == ToolName {
			t.Error("a subagent was offered invoke_agent")
		}
	}
	if _, err := it.Build(map[string]any{"agent_name": "nobody", "prompt": "x"}); err == nil || err.Error() != "Subagent 'nobody' not found." {
		t.Errorf("unknown agent: %v", err)
	}
}

func TestToolSelection(t *testing.T) {
	reg := tool.NewRegistry(echoTool{}, named{"mcp_git_status"}, named{"mcp_web_get"}, named{"read_file"})
	r := &Runner{Tools: reg}
	tests := []struct {
		tools []string
		want  []string
	}{
		{nil, []string{"echo", "mcp_git_status", "mcp_web_get", "read_file", CompleteTaskName}},
		{[]string{"mcp_*"}, []string{"mcp_git_status", "mcp_web_get", CompleteTaskName}},
		{[]string{"mcp_git_*", "read_file", "missing"}, []string{"mcp_git_status", "read_file", CompleteTaskName}},
	}
	for _, tt := range tests {
		got := r.registry(&Definition{Tools: tt.tools}, &completion{}).Names()
		if d := cmp.Diff(tt.want, got); d != "" {
			t.Errorf("%v (-want +got):\n%s", tt.tools, d)
		}
	}
}

type named struct{ n string }

func (n named) Name() string                            { return n.n }
func (n named) DisplayName() string                     { return n.n }
func (n named) Description() string                     { return "" }
func (n named) Kind() tool.Kind                         { return tool.KindRead }
func (n named) Schema() map[string]any                  { return map[string]any{"type": "object"} }
func (n named) Build(map[string]any) (tool.Call, error) { return echoCall{}, nil }

func TestRunFunc(t *testing.T) {
	_, it := parent(t, nil, &Definition{Name: "sdk", Description: "d", Run: func(ctx context.Context, p string) (string, error) {
		return "answered " + p, nil
	}})
	if res := invoke(t, it, "sdk", "q"); !strings.HasSuffix(res.LLMText, "Result:\nanswered q") {
		t.Errorf("result %q", res.LLMText)
	}
}

var _ agent.Recorder = Recording(nil)

func ptr[T any](v T) *T { return &v }

// askTool is an edit whose calls need approval.
type askTool struct{ named }

func (askTool) Kind() tool.Kind { return tool.KindEdit }
func (askTool) Build(map[string]any) (tool.Call, error) {
	return askCall{}, nil
}

type askCall struct{ echoCall }

func (askCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return &tool.ConfirmationDetails{Type: tool.ConfirmInfo, Title: "ok?"}, nil
}

// TestConfirmationsInsideSubagents: the parent's approvals apply to the
// subagent's calls, and time spent deciding does not count against the
// subagent's limit.
func TestConfirmationsInsideSubagents(t *testing.T) {
	tests := []struct {
		name    string
		outcome tool.Outcome
		want    string
	}{
		{"approved", tool.ProceedOnce, "edited"},
		{"refused", tool.Cancel, "refused"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &spy{Model: fake.Script(
				fake.Call("edit", nil),
				fake.Call(CompleteTaskName, map[string]any{"result": tt.want}),
			)}
			reg := tool.NewRegistry(askTool{named{"edit"}})
			var asked []string
			r := &Runner{
				Model: m, ModelName: func() string { return "m" }, Tools: reg,
				Policy: policy.New(policy.Options{Interactive: true}),
				Confirm: func(ctx context.Context, c *agent.ToolCall) (tool.Decision, error) {
					asked = append(asked, c.Name)
					// Longer than the subagent's whole time limit.
					time.Sleep(300 * time.Millisecond)
					return tool.Decision{Outcome: tt.outcome}, nil
				},
			}
			it := NewTool([]*Definition{{Name: "a", Description: "d", Timeout: 100 * time.Millisecond}}, r)
			res := invoke(t, it, "a", "edit it")
			if !strings.Contains(res.LLMText, "Termination Reason: GOAL\nResult:\n"+tt.want) {
				t.Errorf("result %q", res.LLMText)
			}
			if len(asked) != 1 || asked[0] != "edit" {
				t.Errorf("asked %v", asked)
			}
			last := m.reqs[len(m.reqs)-1].Contents
			lastParts := last[len(last)-1].Parts
			told := strings.Contains(lastParts[len(lastParts)-1].Text, "User rejected this operation.")
			if told != (tt.outcome == tool.Cancel) {
				t.Errorf("rejection told: %v", told)
			}
		})
	}
}

// TestPausedConfirmationsAreCancelled: a face that pauses turns cannot
// answer inside a subagent; the call is cancelled and the subagent goes
// on.
func TestPausedConfirmationsAreCancelled(t *testing.T) {
	m := &spy{Model: fake.Script(
		fake.Call("edit", nil),
		fake.Call(CompleteTaskName, map[string]any{"result": "could not edit"}),
	)}
	reg := tool.NewRegistry(askTool{named{"edit"}})
	r := &Runner{Model: m, ModelName: func() string { return "m" }, Tools: reg, Policy: policy.New(policy.Options{Interactive: true}), GracePeriod: time.Second}
	res := invoke(t, NewTool([]*Definition{{Name: "a", Description: "d"}}, r), "a", "x")
	if !strings.Contains(res.LLMText, "Termination Reason: GOAL\nResult:\ncould not edit") {
		t.Errorf("result %q", res.LLMText)
	}
}

func TestSystemPromptSkillsAndPlaceholders(t *testing.T) {
	reg := tool.NewRegistry(named{"activate_skill"})
	r := &Runner{SkillsSection: "# Available Agent Skills\nSKILLS", Dirs: func() []string { return []string{"/a", "/b"} }, Tree: func(d string) string { return "T" + d }}
	got := r.systemPrompt(fill("Task ${query} on ${activeModel}", map[string]string{"query": "q", "activeModel": "m"}), reg)
	want := "Task q on m\n\n# Available Agent Skills\nSKILLS\n\n# Environment Context\n- **Workspace Directories:**\n  - /a\n  - /b\n- **Directory Structure:**\n\nT/a\nT/b\nImportant Rules:\n"
	if !strings.HasPrefix(got, want) {
		t.Errorf("got\n%s", got)
	}
	if strings.Contains(r.systemPrompt("x", tool.NewRegistry()), "SKILLS") {
		t.Error("skills section without activate_skill")
	}
}
