package headless_test

import (
	"encoding/base64"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakeanthropic"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model/anthropic"
)

// anthropicEnv is a workspace whose user settings name the fake as the
// Anthropic provider "work", its model "claude-x" thinking with a budget
// and priced (claude-cheap too, at a hundredth of a cent per million
// tokens, so a first call fits a budget of $0.0001). Its key is read from GEMINI_API_KEY, which every e2e run
// has ("test-key").
func anthropicEnv(t *testing.T, replies ...fakeanthropic.Reply) (*e2etest.Env, *fakeanthropic.Server) {
	t.Helper()
	e := e2etest.New(t)
	srv := fakeanthropic.Start(t, replies...)
	e.WriteUserSettings(`{"providers": {"work": {"type": "anthropic", "baseUrl": "` + srv.URL + `", "apiKeyEnv": "GEMINI_API_KEY",
		"headers": {"anthropic-beta": "castor-test"},
		"models": {"claude-x": {"maxTokens": 8192, "thinkingBudget": 2048,
			"inputPricePerMTok": 3, "cachedInputPricePerMTok": 0.3, "outputPricePerMTok": 15},
			"claude-cheap": {"thinkingBudget": 2048, "inputPricePerMTok": 0.01, "outputPricePerMTok": 0.04}}}}}`)
	return e, srv
}

// blockTypes lists the types of a message's blocks.
func blockTypes(m anthropic.Message) string {
	var types []string
	for _, b := range m.Content {
		types = append(types, b.Type)
	}
	return strings.Join(types, ",")
}

// TestAnthropicMultiTool: -m work/claude-x from settings runs a stream-json
// turn of parallel and single tool calls over the Messages wire to its
// end: list and read at once, an edit and a shell command each approved
// by a permission_response. Thinking is on, so every call must send the
// assistant turn's thinking blocks back first, with the signatures the
// server gave (the fake refuses any other); the tool results answer
// their calls by id, first in the next user turn.
func TestAnthropicMultiTool(t *testing.T) {
	t.Parallel()
	e, srv := anthropicEnv(t)
	e.Write("a.txt", "alpha\n")
	a := filepath.Join(e.WS, "a.txt")
	srv.Enqueue(
		fakeanthropic.Calls(fakeanthropic.Call{Name: "list_directory", Args: map[string]any{"dir_path": e.WS}},
			fakeanthropic.Call{Name: "read_file", Args: map[string]any{"file_path": a}}).Thinking("First look around.").Redacted(),
		fakeanthropic.Calls(fakeanthropic.Call{Name: "replace", Args: map[string]any{"file_path": a, "old_string": "alpha", "new_string": "omega"}}).Thinking("Now rename alpha."),
		fakeanthropic.Calls(fakeanthropic.Call{Name: "run_shell_command", Args: map[string]any{"command": "cp a.txt b.txt && cat b.txt"}}).Thinking("Check it."),
		fakeanthropic.Text("done: a.txt says omega").Thinking("It says omega."),
	)
	p := e.StartStream("-m", "work/claude-x", "--input-format", "stream-json", "-o", "stream-json")
	p.Send(`{"type":"user","message":"rename alpha"}`)
	for _, tool := range []string{"replace", "run_shell_command"} {
		req := p.Until("permission_request")
		if req["tool_name"] != tool {
			t.Fatalf("permission_request for %v, want %s; requests refused: %v", req["tool_name"], tool, refusals(srv))
		}
		p.Send(`{"type":"permission_response","tool_id":"` + req["tool_id"].(string) + `","decision":"proceed_once"}`)
	}
	res := p.Until("result")
	if code := p.Close(); code != 0 || res["status"] != "success" {
		t.Fatalf("exit %d, result %v\nstderr: %s\nrefused: %v", code, res, p.Stderr.String(), refusals(srv))
	}
	var text strings.Builder
	for _, ev := range p.All {
		if ev["type"] == "message" && ev["role"] == "assistant" {
			s, _ := ev["content"].(string)
			text.WriteString(s)
		}
	}
	if !strings.Contains(text.String(), "done: a.txt says omega") {
		t.Errorf("answer %q", text.String())
	}
	if b, _ := os.ReadFile(a); string(b) != "omega\n" {
		t.Errorf("a.txt = %q, want the edit made", b)
	}
	if b, _ := os.ReadFile(filepath.Join(e.WS, "b.txt")); string(b) != "omega\n" {
		t.Errorf("b.txt = %q, want the approved command run", b)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d requests, want 4; refused: %v", len(reqs), refusals(srv))
	}
	for i, rq := range reqs {
		t.Logf("call %d: %d bytes sent", i+1, len(rq.Body))
		m := rq.Message
		if rq.Refused != "" || m.Model != "claude-x" || rq.Header.Get("x-api-key") != "test-key" || rq.Header.Get("anthropic-beta") != "castor-test" ||
			rq.Header.Get("anthropic-version") != "2023-06-01" || len(m.Tools) == 0 || !m.Stream || m.MaxTokens != 8192 ||
			m.Thinking == nil || m.Thinking.BudgetTokens != 2048 || len(m.System) != 1 || m.System[0].CacheControl == nil {
			t.Errorf("call %d: refused %q, model %q, headers %v, max_tokens %d, thinking %+v", i+1, rq.Refused, m.Model, rq.Header, m.MaxTokens, m.Thinking)
		}
	}
	// The second call sends back the first answer whole: redacted and
	// signed thinking, then both calls; then both results, by id.
	m := reqs[1].Message
	asst, results := m.Messages[len(m.Messages)-2], m.Messages[len(m.Messages)-1]
	if got := blockTypes(asst); got != "redacted_thinking,thinking,tool_use,tool_use" {
		t.Errorf("assistant turn sent back as %s", got)
	}
	if got := blockTypes(results); got != "tool_result,tool_result" || results.Content[0].ToolUseID != asst.Content[2].ID ||
		results.Content[1].ToolUseID != asst.Content[3].ID || !strings.Contains(results.Content[1].Content[0].Text, "alpha") {
		t.Errorf("results %s: %+v", got, results.Content)
	}
	last := reqs[3].Message.Messages
	if r := last[len(last)-1].Content[0]; r.Type != "tool_result" || !strings.Contains(r.Content[0].Text, "omega") {
		t.Errorf("last block = %+v, want the shell's output", r)
	}
	if n := len(e.Srv.Requests()); n != 0 {
		t.Errorf("Gemini was called %d times", n)
	}
}

func refusals(srv *fakeanthropic.Server) []string {
	var out []string
	for _, r := range srv.Requests() {
		if r.Refused != "" {
			out = append(out, r.Refused)
		}
	}
	return out
}

// TestAnthropicBuiltin: anthropic/<model> needs no settings: the key and
// base URL come from ANTHROPIC_API_KEY and ANTHROPIC_BASE_URL; without a
// key the run ends with the authentication exit code and says which
// variable to set; an overloaded API (529) is retried.
func TestAnthropicBuiltin(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeanthropic.Start(t, fakeanthropic.Error(529, "overloaded_error", "Overloaded"), fakeanthropic.Text("hello from claude"))
	r := e.RunExtraEnv([]string{"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + srv.URL}, "-m", "anthropic/claude-sonnet-4-5", "-p", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "hello from claude") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[1].Header.Get("x-api-key") != "sk-ant-test" || reqs[1].Message.Model != "claude-sonnet-4-5" || reqs[1].Message.MaxTokens != 32000 {
		t.Errorf("%d requests; last: key %q, model %q, max_tokens %d", len(reqs), reqs[len(reqs)-1].Header.Get("x-api-key"), reqs[len(reqs)-1].Message.Model, reqs[len(reqs)-1].Message.MaxTokens)
	}
	r = e.Run("-m", "anthropic/claude-sonnet-4-5", "-p", "hi")
	if r.Code != 41 || !strings.Contains(r.Stderr, "set ANTHROPIC_API_KEY") {
		t.Errorf("without a key: exit %d\nstderr: %s", r.Code, r.Stderr)
	}
}

// TestAnthropicWithoutTools: a server refusing tool declarations gets the
// call again without them, the model told it has none, and its answer
// ends the run.
func TestAnthropicWithoutTools(t *testing.T) {
	t.Parallel()
	e, srv := anthropicEnv(t, fakeanthropic.Text("I can only talk."))
	srv.RejectTools()
	r := e.Run("-m", "work/small", "-p", "list files")
	if r.Code != 0 || !strings.Contains(r.Stdout, "I can only talk.") {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || len(reqs[0].Message.Tools) == 0 || len(reqs[1].Message.Tools) != 0 || !strings.Contains(reqs[1].Message.System[0].Text, "cannot call tools") {
		t.Fatalf("%d requests, want one with tools refused then one without, told so", len(reqs))
	}
}

// TestAnthropicCost: -o json prices the tokens the server reported with
// the provider's models entry: plain input at the input price, cache
// writes at 1.25× it (the entry names no cacheWritePricePerMTok), cache
// reads at the cached price, output (thinking included) at the output
// price.
func TestAnthropicCost(t *testing.T) {
	t.Parallel()
	e, srv := anthropicEnv(t)
	e.Write("a.txt", "alpha\n")
	srv.Enqueue(fakeanthropic.Calls(fakeanthropic.Call{Name: "read_file", Args: map[string]any{"file_path": filepath.Join(e.WS, "a.txt")}}).Thinking("Read it."),
		fakeanthropic.Text("it says alpha"))
	// Only what is priced is read of -o json.
	var out struct {
		Stats struct {
			Cost struct {
				TotalUSD float64 `json:"totalUsd"`
			}
			Models map[string]struct {
				Tokens struct{ Prompt, Candidates, Cached, Thoughts, CacheWrite int64 }
			}
		}
	}
	r := e.Run("-m", "work/claude-x", "-o", "json", "-p", "read a.txt")
	if err := json.Unmarshal([]byte(r.Stdout), &out); err != nil || r.Code != 0 {
		t.Fatalf("exit %d (%v)\nstdout: %s\nstderr: %s", r.Code, err, r.Stdout, r.Stderr)
	}
	var want float64
	var prompt, cached, written, output int64
	for _, rq := range srv.Requests() {
		u := rq.Usage
		want += (float64(u.InputTokens)*3 + float64(u.CacheCreationInputTokens)*3.75 + float64(u.CacheReadInputTokens)*0.3 + float64(u.OutputTokens)*15) / 1e6
		written += int64(u.CacheCreationInputTokens)
		prompt += int64(u.InputTokens + u.CacheCreationInputTokens + u.CacheReadInputTokens)
		cached += int64(u.CacheReadInputTokens)
		output += int64(u.OutputTokens)
	}
	tok := out.Stats.Models["work/claude-x"].Tokens
	if cached == 0 || written == 0 || tok.Prompt != prompt || tok.Cached != cached || tok.CacheWrite != written || tok.Candidates+tok.Thoughts != output || tok.Thoughts == 0 ||
		math.Abs(out.Stats.Cost.TotalUSD-want) > 1e-12 {
		t.Errorf("tokens %+v (want prompt %d, cached %d, written %d, output %d), cost %v, want %v\n%s", tok, prompt, cached, written, output, out.Stats.Cost.TotalUSD, want, r.Stdout)
	}
}

// TestAnthropicBudget: a budget the first call fits but the second would
// cross ends the run before that call, with exit code 56; resumed with
// the budget raised, the call goes out with the history intact, the
// first answer's thinking sent back with its signature from the session
// file.
func TestAnthropicBudget(t *testing.T) {
	t.Parallel()
	e, srv := anthropicEnv(t)
	e.Write("a.txt", "alpha\n")
	srv.Enqueue(fakeanthropic.Calls(fakeanthropic.Call{Name: "read_file", Args: map[string]any{"file_path": filepath.Join(e.WS, "a.txt")}}).Thinking("Read it first."))
	r := e.Run("-m", "work/claude-cheap", "--max-budget-usd", "0.0001", "-o", "json", "-p", "read a.txt")
	if r.Code != 56 || !strings.Contains(r.Stdout, "FatalBudgetExceededError") || !strings.Contains(r.Stdout, "budget of $0.0001 reached") {
		t.Fatalf("exit %d, want 56 and the reason\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	if len(srv.Requests()) != 1 {
		t.Errorf("%d calls made, want the first only", len(srv.Requests()))
	}
	srv.Enqueue(fakeanthropic.Text("resumed"))
	r = e.Run("-m", "work/claude-cheap", "--max-budget-usd", "1", "--resume", "latest", "-p", "go on")
	if r.Code != 0 || !strings.Contains(r.Stdout, "resumed") {
		t.Fatalf("resume: exit %d\nstdout: %s\nstderr: %s\nrefused: %v", r.Code, r.Stdout, r.Stderr, refusals(srv))
	}
	msgs := srv.Requests()[1].Message.Messages
	var asst string
	var sawRead bool
	for _, m := range msgs {
		if m.Role == "assistant" {
			asst = blockTypes(m)
		}
		for _, b := range m.Content {
			sawRead = sawRead || b.Type == "tool_result" && len(b.Content) > 0 && strings.Contains(b.Content[0].Text, "alpha")
		}
	}
	if asst != "thinking,tool_use" || !sawRead {
		t.Errorf("resumed history: assistant %s, read result sent %v\n%s", asst, sawRead, srv.Requests()[1].Body)
	}
}

// TestAnthropicImageAndSchema: an image named with @ in the prompt goes as
// a base64 image block; --output-schema goes as output_config.format, and
// the answer is checked against it as on Gemini.
func TestAnthropicImageAndSchema(t *testing.T) {
	t.Parallel()
	e, srv := anthropicEnv(t, fakeanthropic.Text(`{"name": "Ada", "age": 36}`))
	png := "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR\x00\x00\x00\x01\x00\x00\x00\x01\x08\x06\x00\x00\x00\x1f\x15\xc4\x89"
	e.Write("ada.png", png)
	e.Write("person.json", personSchema)
	r := e.Run("-m", "work/claude-x", "--output-schema", "person.json", "-p", "Who is in @ada.png?")
	if r.Code != 0 || r.Stdout != `{"name": "Ada", "age": 36}`+"\n" {
		t.Fatalf("exit %d\nstdout: %q\nstderr: %s\nrefused: %v", r.Code, r.Stdout, r.Stderr, refusals(srv))
	}
	m := srv.Requests()[0].Message
	var image *anthropic.Block
	for _, b := range m.Messages[0].Content {
		if b.Type == "image" {
			image = &b
		}
	}
	if image == nil || image.Source.MediaType != "image/png" || image.Source.Data != base64.StdEncoding.EncodeToString([]byte(png)) {
		t.Errorf("first message %s, want the image as a base64 block", blockTypes(m.Messages[0]))
	}
	if f := m.OutputConfig; f == nil || f.Format == nil || f.Format.Type != "json_schema" || !strings.Contains(e2etest.MustJSON(f.Format.Schema), `"required":["name","age"]`) {
		t.Errorf("output_config %+v", m.OutputConfig)
	}
}

// TestAnthropicThenGemini: a session whose Claude turn called a tool with
// thinking on goes on with a Gemini 3 model: the Anthropic thinking that
// rides on the history's parts is never sent to Gemini, and the function
// call carries the signature Gemini takes for a call it did not make.
func TestAnthropicThenGemini(t *testing.T) {
	t.Parallel()
	e, srv := anthropicEnv(t)
	e.Write("a.txt", "alpha\n")
	srv.Enqueue(fakeanthropic.Calls(fakeanthropic.Call{Name: "read_file", Args: map[string]any{"file_path": filepath.Join(e.WS, "a.txt")}}).Thinking("Read it."),
		fakeanthropic.Text("it says alpha").Thinking("Done."))
	if r := e.Run("-m", "work/claude-x", "-p", "read a.txt"); r.Code != 0 {
		t.Fatalf("claude: exit %d\nstderr: %s", r.Code, r.Stderr)
	}
	e.Srv.Enqueue(fakegemini.Text("still alpha"))
	r := e.Run("-m", "gemini-3-pro-preview", "--resume", "latest", "-p", "and now?")
	if r.Code != 0 || !strings.Contains(r.Stdout, "still alpha") {
		t.Fatalf("gemini: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	var calls int
	for _, c := range e.Srv.LastRequest().Contents {
		for _, p := range c.Parts {
			if strings.HasPrefix(string(p.ThoughtSignature), "castor.") {
				t.Errorf("a %s part sent to Gemini carries Anthropic's thinking: %.60s", c.Role, p.ThoughtSignature)
			}
			if p.FunctionCall != nil {
				calls++
				if string(p.ThoughtSignature) != "skip_thought_signature_validator" {
					t.Errorf("the function call's signature is %q", p.ThoughtSignature)
				}
			}
		}
	}
	if calls != 1 {
		t.Errorf("%d function calls in the history sent to Gemini, want 1", calls)
	}
}
