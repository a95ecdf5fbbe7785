package headless_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/internal/fakeopenai"
)

// providerEnv is a workspace whose user settings name the fake as the
// OpenAI-compatible provider "local".
func providerEnv(t *testing.T, replies ...fakeopenai.Reply) (*e2etest.Env, *fakeopenai.Server) {
	t.Helper()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, replies...)
	e.WriteUserSettings(`{"providers": {"local": {"type": "openai", "baseUrl": "` + srv.URL + `/v1", "apiKeyEnv": "LOCAL_KEY",
		"headers": {"X-Team": "castor"},
		"models": {"qwen3-coder": {"contextWindow": 32768, "inputPricePerMTok": 0, "outputPricePerMTok": 0}}}}}`)
	return e, srv
}

// TestProviderMultiTool: -m local/<model> from settings runs a turn of
// parallel and single tool calls (list, read, edit, shell) over the
// OpenAI chat-completions wire to its end, each result going back as a
// "tool" message naming its call.
func TestProviderMultiTool(t *testing.T) {
	t.Parallel()
	e, srv := providerEnv(t)
	e.Write("a.txt", "alpha\n")
	a := filepath.Join(e.WS, "a.txt")
	srv.Enqueue(
		fakeopenai.Calls(fakeopenai.Call{Name: "list_directory", Args: map[string]any{"dir_path": e.WS}},
			fakeopenai.Call{Name: "read_file", Args: map[string]any{"file_path": a}}),
		fakeopenai.Calls(fakeopenai.Call{Name: "replace", Args: map[string]any{"file_path": a, "old_string": "alpha", "new_string": "omega"}}),
		fakeopenai.Calls(fakeopenai.Call{Name: "run_shell_command", Args: map[string]any{"command": "cat a.txt"}}),
		fakeopenai.Thought("the file now says omega", "done: a.txt says omega"),
	)
	r := e.RunExtraEnv([]string{"LOCAL_KEY=sekrit"}, "-m", "local/qwen3-coder", "-y", "-o", "json", "-p", "rename alpha")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var out struct{ Response string }
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || out.Response != "done: a.txt says omega" {
		t.Errorf("response = %q (%v), stdout %s", out.Response, err, r.Stdout)
	}
	if b, _ := os.ReadFile(a); string(b) != "omega\n" {
		t.Errorf("a.txt = %q, want the edit made", b)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4", len(reqs))
	}
	for i, rq := range reqs {
		t.Logf("call %d: %d bytes sent", i+1, len(rq.Body))
		if rq.Chat.Model != "qwen3-coder" || rq.Header.Get("Authorization") != "Bearer sekrit" || rq.Header.Get("X-Team") != "castor" {
			t.Errorf("call %d: model %q, auth %q, X-Team %q", i+1, rq.Chat.Model, rq.Header.Get("Authorization"), rq.Header.Get("X-Team"))
		}
		if len(rq.Chat.Tools) == 0 || !rq.Chat.Stream {
			t.Errorf("call %d: %d tools, stream %v", i+1, len(rq.Chat.Tools), rq.Chat.Stream)
		}
	}
	// The second request answers both parallel calls, by their ids.
	var answered []string
	var results []string
	for _, m := range reqs[1].Chat.Messages {
		if m.Role == "tool" {
			answered = append(answered, m.ToolCallID)
			s, _ := m.Content.(string)
			results = append(results, s)
		}
	}
	if strings.Join(answered, ",") != "call_1_0,call_1_1" || !strings.Contains(results[1], "alpha") {
		t.Errorf("tool results answer %v, with %q", answered, results)
	}
	last := reqs[3].Chat.Messages
	if s, _ := last[len(last)-1].Content.(string); last[len(last)-1].Role != "tool" || !strings.Contains(s, "omega") {
		t.Errorf("last message = %+v, want the shell's output", last[len(last)-1])
	}
	if e.Srv.Pending() != 0 || len(e.Srv.Requests()) != 0 {
		t.Errorf("Gemini was called %d times", len(e.Srv.Requests()))
	}
}

// TestProviderWithoutTools: a server refusing tool declarations gets the
// call again without them, the model told it has none, and its answer
// ends the run.
func TestProviderWithoutTools(t *testing.T) {
	t.Parallel()
	e, srv := providerEnv(t, fakeopenai.Text("I can only talk."))
	srv.RejectTools()
	r := e.Run("-m", "local/gemma", "-p", "list files")
	if r.Code != 0 || !strings.Contains(r.Stdout, "I can only talk.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[0].Chat.Tools) == 0 || len(reqs[1].Chat.Tools) != 0 {
		t.Fatalf("requests %d, want one with tools refused then one without", len(reqs))
	}
	if sys, _ := reqs[1].Chat.Messages[0].Content.(string); !strings.Contains(sys, "cannot call tools") {
		t.Errorf("system prompt does not tell the model it has no tools")
	}
}

// TestProviderBudget: with prices from the provider's models entry, a
// budget the first call fits but the second would cross ends the run
// before that call, with exit code 56 and the reason, the first call's
// tool work done.
func TestProviderBudget(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t)
	e.WriteUserSettings(`{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1",
		"models": {"priced": {"inputPricePerMTok": 0.01, "outputPricePerMTok": 0.04}}}}}`)
	e.Write("a.txt", "alpha\n")
	srv.Enqueue(fakeopenai.Calls(fakeopenai.Call{Name: "read_file", Args: map[string]any{"file_path": filepath.Join(e.WS, "a.txt")}}))
	r := e.Run("-m", "local/priced", "--max-budget-usd", "0.0001", "-o", "json", "-p", "read a.txt")
	if r.Code != 56 {
		t.Fatalf("exit %d, want 56\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d calls made, want the first only", len(srv.Requests()))
	}
	if !strings.Contains(r.Stdout, "FatalBudgetExceededError") || !strings.Contains(r.Stdout, "budget of $0.0001 reached") {
		t.Errorf("stdout does not give the reason: %s", r.Stdout)
	}
	// With the budget raised, the session resumes where it stopped: the
	// read's result is in the history sent.
	srv.Enqueue(fakeopenai.Text("resumed"))
	r = e.Run("-m", "local/priced", "--max-budget-usd", "1", "--resume", "latest", "-p", "go on")
	if r.Code != 0 || !strings.Contains(r.Stdout, "resumed") {
		t.Fatalf("resume: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := srv.Requests()
	var sawRead bool
	for _, m := range reqs[len(reqs)-1].Chat.Messages {
		if s, _ := m.Content.(string); m.Role == "tool" && strings.Contains(s, "alpha") {
			sawRead = true
		}
	}
	if !sawRead {
		t.Errorf("the resumed call lacks the read's result: %s", reqs[len(reqs)-1].Body)
	}
}

// TestProviderCost: -o json prices the tokens the server reported with
// the provider's models entry, per model and in total.
func TestProviderCost(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, fakeopenai.Text("twelve chars"))
	e.WriteUserSettings(`{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1",
		"models": {"priced": {"inputPricePerMTok": 2, "outputPricePerMTok": 8}}}}}`)
	r := e.Run("-m", "local/priced", "-o", "json", "-p", "hi")
	if r.Code != 0 {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var out struct {
		Stats struct {
			Models map[string]struct {
				Tokens struct{ Prompt, Candidates int64 }
			}
			Cost struct {
				TotalUSD float64 `json:"totalUsd"`
				Models   map[string]float64
			}
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil {
		t.Fatal(err)
	}
	// The fake reports a token per four bytes of the body and the answer.
	prompt, cand := int64((len(srv.Requests()[0].Body)+3)/4), int64(3)
	tok := out.Stats.Models["local/priced"].Tokens
	want := float64(prompt*2+cand*8) / 1e6
	if tok.Prompt != prompt || tok.Candidates != cand || out.Stats.Cost.TotalUSD != want || out.Stats.Cost.Models["local/priced"] != want {
		t.Errorf("tokens %+v (want %d, %d), cost %+v, want %v\n%s", tok, prompt, cand, out.Stats.Cost, want, r.Stdout)
	}
	// stream-json's result line carries the same cost.
	srv.Enqueue(fakeopenai.Text("twelve chars"))
	r = e.Run("-m", "local/priced", "-o", "stream-json", "-p", "hi")
	lines := strings.Split(strings.TrimSpace(r.Stdout), "\n")
	var res struct {
		Type  string
		Stats struct {
			CostUSD *float64 `json:"cost_usd"`
		}
	}
	if err := json.Unmarshal([]byte(lines[len(lines)-1]), &res); err != nil || res.Type != "result" || res.Stats.CostUSD == nil || *res.Stats.CostUSD != want {
		t.Errorf("result line %s (%v), want cost_usd %v", lines[len(lines)-1], err, want)
	}
}

// TestGeminiCost: Gemini's models are priced with the shipped table.
func TestGeminiCost(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t, fakegemini.Text("hello"))
	e.Srv.SetModelVersion("gemini-2.5-flash")
	r := e.Run("-m", "gemini-2.5-flash", "-o", "json", "-p", "hi")
	var out struct {
		Stats struct {
			Models map[string]struct {
				Tokens struct{ Prompt, Candidates, Cached, Thoughts int64 }
			}
			Cost struct {
				TotalUSD float64 `json:"totalUsd"`
			}
		}
	}
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || r.Code != 0 {
		t.Fatalf("exit %d (%v)\n%s", r.Code, err, r.Stdout)
	}
	tok := out.Stats.Models["gemini-2.5-flash"].Tokens
	want := (float64(tok.Prompt-tok.Cached)*0.30 + float64(tok.Cached)*0.075 + float64(tok.Candidates+tok.Thoughts)*2.50) / 1e6
	if tok.Prompt == 0 || out.Stats.Cost.TotalUSD != want {
		t.Errorf("cost %v, want %v for %+v", out.Stats.Cost.TotalUSD, want, tok)
	}
}
