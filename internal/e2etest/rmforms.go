package e2etest

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/fakegemini"
)

// DenyRmPolicy is a user's policy file refusing rm whatever the mode
// (~/.gemini/policies/deny.toml).
const DenyRmPolicy = `# Never delete files, even in yolo mode.
[[rule]]
toolName = "run_shell_command"
commandPrefix = "rm"
decision = "deny"
priority = 100
denyMessage = "Deleting files is not allowed."
`

// DenyRmRefusal is how the model is told DenyRmPolicy refused a call.
const DenyRmRefusal = "Tool execution denied by policy. Deleting files is not allowed."

// ExcludeRmSetting is settings.json refusing rm through tools.exclude.
const ExcludeRmSetting = `{"tools": {"exclude": ["run_shell_command(rm)"]}}`

// RmForm is one way of writing "rm victim" (issue #25) and what its
// refusal names besides the rule ("cannot be known" for a command the
// line does not say before it runs).
type RmForm struct{ Cmd, Why string }

// RmForms are the forms of policy/testdata/rmforms.json: every way an
// adversary found to write rm under a deny rule.
func RmForms(t testing.TB) []RmForm {
	t.Helper()
	_, file, _, _ := runtime.Caller(0)
	b, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "..", "policy", "testdata", "rmforms.json"))
	if err != nil {
		t.Fatal(err)
	}
	var forms []RmForm
	if err := json.Unmarshal(b, &forms); err != nil {
		t.Fatal(err)
	}
	if len(forms) < 61 {
		t.Fatalf("rmforms.json holds %d forms, want 61 or more", len(forms))
	}
	return forms
}

// ExcludeRmForms are the 14 forms tools.exclude run_shell_command(rm)
// was tried with (8 of them ran before issue #25).
var ExcludeRmForms = []RmForm{
	{"rm victim", ""}, {`\rm victim`, ""}, {"'rm' victim", ""}, {"rm${IFS}victim", ""}, {"{rm,victim}", ""},
	{"env rm victim", ""}, {"command rm victim", ""}, {"bash -lc 'rm victim'", ""}, {"eval 'rm victim'", ""},
	{"/bin/r? victim", ""}, {"echo victim | xargs rm", ""}, {"echo 'rm victim' | sh", ""},
	{"$'\\x72m' victim", ""}, {"a=rm; $a victim", ""},
}

// GitStatusRuns are commands a deny rule for rm leaves alone: each runs
// after the forms.
var GitStatusRuns = []string{"git status", "git status --short", "git -c color.ui=never status -sb", "touch sub/made.txt"}

// RmConversation is a scripted model calling the shell with each form,
// then each of GitStatusRuns, then answering "done".
func RmConversation(forms []RmForm) []fakegemini.Reply {
	var replies []fakegemini.Reply
	for _, f := range forms {
		replies = append(replies, fakegemini.Call("run_shell_command", map[string]any{"command": f.Cmd}))
	}
	for _, c := range GitStatusRuns {
		replies = append(replies, fakegemini.Call("run_shell_command", map[string]any{"command": c}))
	}
	return append(replies, fakegemini.Text("done"))
}

// RmWorkspace readies ws for RmConversation: the victim, a list of
// commands a form pipes to a shell, and a git repository for git status
// (when git is installed).
func RmWorkspace(t *testing.T, ws string) {
	t.Helper()
	// sub: Landlock keeps the top of a repository as it is.
	WriteFiles(t, ws, map[string]string{"victim": "keep me", "victim.list": "rm victim\n", "sub/.keep": ""})
	if _, err := exec.LookPath("git"); err == nil {
		cmd := exec.Command("git", "init", "-q")
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git init: %v\n%s", err, out)
		}
	}
}

// CheckRmConversation checks what RmConversation did, given the model
// requests from the one answering the first form on (reqs[0] is the
// prompt's): the victim is still there, each form was refused with a
// message starting with refusal and naming its reason, and every one of
// GitStatusRuns ran.
func CheckRmConversation(t testing.TB, ws string, forms []RmForm, reqs []*fakegemini.Request, refusal string) {
	t.Helper()
	if _, err := os.Stat(filepath.Join(ws, "victim")); err != nil {
		t.Errorf("victim was deleted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, "sub", "made.txt")); err != nil {
		t.Errorf("touch sub/made.txt did not run: %v", err)
	}
	// The model loop check a prompt this long gets after 30 turns (the
	// fake answers it "no loop") is not the conversation's.
	reqs = slices.DeleteFunc(slices.Clone(reqs), (*fakegemini.Request).IsLoopCheck)
	if want := len(forms) + len(GitStatusRuns) + 1; len(reqs) != want {
		t.Fatalf("%d model requests, want %d", len(reqs), want)
	}
	response := func(i int) map[string]any {
		c := reqs[i].LastContent()
		if c == nil || c.Role != "user" || len(c.Parts) == 0 || c.Parts[0].FunctionResponse == nil {
			t.Fatalf("request %d carries no function response: %s", i, MustJSON(c))
		}
		return c.Parts[0].FunctionResponse.Response
	}
	for i, f := range forms {
		resp := response(i + 1)
		got, _ := resp["error"].(string)
		if !strings.HasPrefix(got, refusal) || !strings.Contains(got, f.Why) {
			t.Errorf("%q: error %q, want %q naming %q (response %s)", f.Cmd, got, refusal, f.Why, MustJSON(resp))
		}
	}
	for i, c := range GitStatusRuns {
		resp := response(len(forms) + i + 1)
		out, _ := resp["output"].(string)
		if resp["error"] != nil || strings.Contains(out, "denied") {
			t.Errorf("%q was refused: %s", c, MustJSON(resp))
		}
	}
}

// ExcludeRmRefusal is how the model is told tools.exclude refused a call.
const ExcludeRmRefusal = "Tool execution denied by policy."

// RmCase is one rule refusing rm, as a user writes it: the forms it is
// tried with, the files under the home directory that hold it, and how
// its refusals start.
type RmCase struct {
	Name      string
	Forms     []RmForm
	HomeFiles map[string]string
	Refusal   string
}

// RmCases are the rules every face is tried with: a policy file denying
// rm (every form of rmforms.json), and tools.exclude
// run_shell_command(rm) (its 14 forms).
func RmCases(t testing.TB) []RmCase {
	return []RmCase{
		{"policy file", RmForms(t), map[string]string{".gemini/policies/deny.toml": DenyRmPolicy}, DenyRmRefusal},
		{"tools.exclude", ExcludeRmForms, map[string]string{".gemini/settings.json": ExcludeRmSetting}, ExcludeRmRefusal},
	}
}
