package hooks

import (
	"encoding/json"
	"testing"

	"github.com/castor-dev/castor/agent"
)

func TestResult(t *testing.T) {
	for _, tt := range []struct {
		name           string
		code           int
		stdout, stderr string
		want           string
	}{
		{"silent success", 0, "", "ignored", `null`},
		{"json", 0, ` {"decision":"deny","reason":"r","continue":false,"stopReason":"s","systemMessage":"m","suppressOutput":true} `, "", `{"continue":false,"stopReason":"s","suppressOutput":true,"systemMessage":"m","decision":"deny","reason":"r"}`},
		{"double-encoded json", 0, `"{\"decision\":\"block\"}"`, "", `{"decision":"block"}`},
		{"approve is allow", 0, `{"decision":"APPROVE"}`, "", `{"decision":"allow"}`},
		{"plain text", 0, "hello\n", "", `{"systemMessage":"hello","decision":"allow"}`},
		{"json array is text", 0, `[1]`, "", `{"systemMessage":"[1]","decision":"allow"}`},
		{"warning", 1, "", "careful\n", `{"systemMessage":"Warning: careful","decision":"allow"}`},
		{"silent warning", 1, "", "", `null`},
		{"block with stderr", 2, "out", "stop it\n", `{"decision":"deny","reason":"stop it"}`},
		{"block with stdout", 2, "from stdout", "", `{"decision":"deny","reason":"from stdout"}`},
		{"silent block", 3, "", "", `{"decision":"deny","reason":"hook exited with code 3"}`},
		{"not found blocks", 127, "", "sh: x: not found", `{"decision":"deny","reason":"sh: x: not found"}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := json.Marshal(Result(tt.code, tt.stdout, tt.stderr))
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

func TestParseOutputSpecific(t *testing.T) {
	o, err := ParseOutput([]byte(`{"hookSpecificOutput": {
		"hookEventName": "X", "additionalContext": "ctx", "tool_input": {"a": 1}, "tool_output": "out",
		"tailToolCallRequest": {"name": "t", "args": {"b": 2}}, "clearContext": true,
		"llm_request": {"model": "m", "messages": [{"role": "user", "content": "hi"}, 5], "config": {"temperature": 0.5}},
		"llm_response": {"candidates": [{"content": {"role": "model", "parts": ["a", {"text": "b"}, 3]}, "finishReason": "STOP"}], "usageMetadata": {"totalTokenCount": 9}},
		"toolConfig": {"functionCallingConfig": {"mode": "any", "allowedFunctionNames": ["x", 1]}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(o)
	want := `{"hookSpecificOutput":{"hookEventName":"X","additionalContext":"ctx","tool_input":{"a":1},"tool_output":"out","tailToolCallRequest":{"name":"t","args":{"b":2}},"clearContext":true,"llm_request":{"model":"m","messages":[{"role":"user","content":"hi"}],"config":{"temperature":0.5}},"llm_response":{"candidates":[{"content":{"role":"model","parts":["a","b"]},"finishReason":"STOP"}],"usageMetadata":{"totalTokenCount":9}},"toolConfig":{"mode":"ANY","allowedFunctionNames":["x"]}}}`
	if string(got) != want {
		t.Errorf("got  %s\nwant %s", got, want)
	}
	// Wrong types are ignored, not fatal.
	o, err = ParseOutput([]byte(`{"decision": 3, "continue": "no", "hookSpecificOutput": {"additionalContext": {"x": 1}, "tool_input": [1]}}`))
	if err != nil || o.Decision != "" || o.Continue != nil || o.HookSpecificOutput.AdditionalContext != "" || o.HookSpecificOutput.ToolInput != nil {
		t.Errorf("lenient parse: %+v %v", o, err)
	}
}

func TestMerge(t *testing.T) {
	f := false
	ctx := func(s string) *agent.HookSpecificOutput { return &agent.HookSpecificOutput{AdditionalContext: s} }
	for _, tt := range []struct {
		name  string
		event agent.HookEvent
		outs  []*agent.HookOutput
		want  string
	}{
		{"nothing", agent.HookBeforeTool, []*agent.HookOutput{nil, nil}, `null`},
		{"allow by default", agent.HookBeforeTool, []*agent.HookOutput{{SystemMessage: "a"}, {SystemMessage: "b"}},
			`{"systemMessage":"a\nb","decision":"allow"}`},
		{"any deny wins", agent.HookBeforeTool, []*agent.HookOutput{{Decision: "deny", Reason: "r1"}, {Decision: "allow", Reason: "r2", HookSpecificOutput: &agent.HookSpecificOutput{ToolInput: map[string]any{"a": 1}}}},
			`{"decision":"deny","reason":"r1\nr2","hookSpecificOutput":{"tool_input":{"a":1}}}`},
		{"stop wins and contexts join", agent.HookBeforeAgent, []*agent.HookOutput{{HookSpecificOutput: ctx("one")}, {Continue: &f, StopReason: "s", HookSpecificOutput: ctx("two")}},
			`{"continue":false,"stopReason":"s","hookSpecificOutput":{"additionalContext":"one\ntwo"}}`},
		{"model events replace", agent.HookBeforeModel, []*agent.HookOutput{{Decision: "deny", SystemMessage: "a"}, {Decision: "allow"}},
			`{"systemMessage":"a","decision":"allow"}`},
		{"tool selection union", agent.HookBeforeToolSelection, []*agent.HookOutput{
			{HookSpecificOutput: &agent.HookSpecificOutput{ToolConfig: &agent.HookToolConfig{Mode: "AUTO", AllowedFunctionNames: []string{"b", "a"}}}},
			{HookSpecificOutput: &agent.HookSpecificOutput{ToolConfig: &agent.HookToolConfig{Mode: "ANY", AllowedFunctionNames: []string{"c", "a"}}}}},
			`{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"ANY","allowedFunctionNames":["a","b","c"]}}}`},
		{"NONE wins", agent.HookBeforeToolSelection, []*agent.HookOutput{
			{HookSpecificOutput: &agent.HookSpecificOutput{ToolConfig: &agent.HookToolConfig{Mode: "NONE"}}},
			{HookSpecificOutput: &agent.HookSpecificOutput{ToolConfig: &agent.HookToolConfig{Mode: "ANY", AllowedFunctionNames: []string{"c"}}}}},
			`{"hookSpecificOutput":{"hookEventName":"BeforeToolSelection","toolConfig":{"mode":"NONE"}}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got, _ := json.Marshal(Merge(tt.event, tt.outs))
			if string(got) != tt.want {
				t.Errorf("got  %s\nwant %s", got, tt.want)
			}
		})
	}
}

// FuzzParseOutput: any stdout a hook prints is either an error or an
// output that marshals back to JSON; Result never panics.
func FuzzParseOutput(f *testing.F) {
	f.Add([]byte(`{"decision":"deny","hookSpecificOutput":{"llm_response":{"candidates":[{"content":{"parts":["x"]}}]}}}`))
	f.Add([]byte(`"{\"continue\":false}"`))
	f.Add([]byte(`{"hookSpecificOutput":{"toolConfig":{"functionCallingConfig":{"allowedFunctionNames":[1,"a"]}},"llm_request":{"messages":[{}]}}}`))
	f.Add([]byte("plain"))
	f.Fuzz(func(t *testing.T, data []byte) {
		o, err := ParseOutput(data)
		if err == nil {
			if _, err := json.Marshal(o); err != nil {
				t.Fatalf("output does not marshal: %v", err)
			}
		}
		for _, code := range []int{0, 1, 2} {
			Result(code, string(data), string(data))
		}
	})
}
