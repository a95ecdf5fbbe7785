package castor_test

import (
	"context"
	"iter"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
)

// requestSpy records the requests a scripted model answers.
type requestSpy struct {
	model.Model
	mu   sync.Mutex
	reqs []*model.Request
}

func (s *requestSpy) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	s.mu.Lock()
	s.reqs = append(s.reqs, req)
	s.mu.Unlock()
	return s.Model.GenerateContentStream(ctx, req)
}

func instructionOf(r *model.Request) string {
	if si := r.Config.SystemInstruction; si != nil && len(si.Parts) > 0 {
		return si.Parts[0].Text
	}
	return ""
}

func writeSkill(t *testing.T, dir, name, body string) string {
	t.Helper()
	p := filepath.Join(dir, "SKILL.md")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte("---\nname: "+name+"\ndescription: The "+name+" skill.\n---\n"+body), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestSkillSources(t *testing.T) {
	root := t.TempDir()
	single := filepath.Join(root, "single")
	writeSkill(t, single, "solo", "solo body")
	many := filepath.Join(root, "many")
	writeSkill(t, filepath.Join(many, "a"), "alpha", "a body")
	writeSkill(t, filepath.Join(many, "b"), "beta", "b body")
	broken := filepath.Join(root, "broken")
	os.MkdirAll(filepath.Join(broken, "x"), 0o755)
	os.WriteFile(filepath.Join(broken, "x", "SKILL.md"), []byte("---\nname: [x\n---\n"), 0o644)
	empty := filepath.Join(root, "empty")
	os.MkdirAll(empty, 0o755)

	tests := []struct {
		name    string
		src     castor.SkillSource
		want    []string
		wantErr string
	}{
		{"dir", castor.SkillDir(single), []string{"<name>solo</name>", "<location>" + filepath.Join(single, "SKILL.md") + "</location>"}, ""},
		{"root", castor.SkillRoot(many), []string{"<name>alpha</name>", "<name>beta</name>"}, ""},
		{"missing dir", castor.SkillDir(filepath.Join(root, "nope")), nil, "skill " + filepath.Join(root, "nope")},
		{"empty root", castor.SkillRoot(empty), nil, "no SKILL.md in"},
		{"broken", castor.SkillRoot(broken), nil, filepath.Join(broken, "x", "SKILL.md") + ":2: invalid YAML front matter"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			spy := &requestSpy{Model: fake.Script(fake.Text("ok"))}
			a, err := castor.New(context.Background(), castor.WithClient(spy), castor.WithoutSettings(),
				castor.WithHomeDir(home), castor.WithWorkDir(home), castor.WithSkills(tt.src))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if _, err := a.Send(context.Background(), "hi"); err != nil {
				t.Fatal(err)
			}
			si := instructionOf(spy.reqs[0])
			for _, w := range tt.want {
				if !strings.Contains(si, w) {
					t.Errorf("system instruction lacks %q", w)
				}
			}
		})
	}
}

func TestSubagentDynamicInstructions(t *testing.T) {
	home := t.TempDir()
	spy := &requestSpy{Model: fake.Script(
		fake.Call("invoke_agent", map[string]any{"agent_name": "dyn", "prompt": "count"}),
		fake.Call("complete_task", map[string]any{"result": "3"}),
		fake.Text("three"),
	)}
	var seen []string
	sub := castor.Subagent{Name: "dyn", Description: "Dynamic.", InstructionsFunc: func(prompt string, sc castor.SessionContext) string {
		seen = append(seen, prompt)
		return "Dynamic instructions for " + prompt + " in " + sc.WorkDir
	}}
	a, err := castor.New(context.Background(), castor.WithClient(spy), castor.WithoutSettings(),
		castor.WithHomeDir(home), castor.WithWorkDir(home), castor.WithSubagents(sub))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	res, err := a.Send(context.Background(), "go")
	if err != nil || res.Text != "three" {
		t.Fatalf("%v %+v", err, res)
	}
	if si := instructionOf(spy.reqs[1]); !strings.HasPrefix(si, "Dynamic instructions for count in ") {
		t.Errorf("subagent system instruction %q", si)
	}
	if len(seen) != 1 || seen[0] != "count" {
		t.Errorf("instructions asked %v", seen)
	}
}

func TestSubagentWholeAgent(t *testing.T) {
	home := t.TempDir()
	inner, err := castor.New(context.Background(), castor.WithClient(fake.Script(fake.Text("inner answer"))),
		castor.WithoutSettings(), castor.WithHomeDir(home), castor.WithWorkDir(home), castor.WithInstructions("You are the expert."))
	if err != nil {
		t.Fatal(err)
	}
	defer inner.Close()
	spy := &requestSpy{Model: fake.Script(
		fake.Call("invoke_agent", map[string]any{"agent_name": "expert", "prompt": "explain"}),
		fake.Text("outer answer"),
	)}
	a, err := castor.New(context.Background(), castor.WithClient(spy), castor.WithoutSettings(),
		castor.WithHomeDir(home), castor.WithWorkDir(home),
		castor.WithSubagents(castor.Subagent{Name: "expert", Description: "Knows things.", Agent: inner}))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if res, err := a.Send(context.Background(), "go"); err != nil || res.Text != "outer answer" {
		t.Fatalf("%v %+v", err, res)
	}
	last := spy.reqs[1].Contents
	fr := last[len(last)-1].Parts[0].FunctionResponse
	if fr == nil || fr.Response["output"] != "Subagent 'expert' finished.\nTermination Reason: GOAL\nResult:\ninner answer" {
		t.Errorf("invoke_agent response %+v", fr)
	}
}

func TestSubagentInvalidName(t *testing.T) {
	home := t.TempDir()
	_, err := castor.New(context.Background(), castor.WithClient(fake.Script()), castor.WithoutSettings(),
		castor.WithHomeDir(home), castor.WithWorkDir(home),
		castor.WithSubagents(castor.Subagent{Name: "Bad Name", Description: "x"}))
	if err == nil || !strings.Contains(err.Error(), `subagent "Bad Name": name must be a valid slug`) {
		t.Errorf("error %v", err)
	}
}
