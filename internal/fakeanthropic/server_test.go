package fakeanthropic_test

import (
	"context"
	"strings"
	"testing"

	sdk "github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/castor-dev/castor/internal/fakeanthropic"
)

// TestSDKClient: the official SDK's client, streaming from the fake and
// accumulating the events, gets the message the script says: the fake
// speaks the wire as the SDK reads it.
func TestSDKClient(t *testing.T) {
	srv := fakeanthropic.Start(t,
		fakeanthropic.Calls(fakeanthropic.Call{Name: "read_file", Args: map[string]any{"file_path": "a"}},
			fakeanthropic.Call{Name: "ls", Args: map[string]any{}}).Thinking("hmm").Redacted(),
		fakeanthropic.Error(529, "overloaded_error", "Overloaded"))
	c := sdk.NewClient(option.WithAPIKey("k"), option.WithBaseURL(srv.URL), option.WithMaxRetries(0))
	params := sdk.MessageNewParams{Model: "claude-sonnet-4-5", MaxTokens: 4096,
		Messages: []sdk.MessageParam{sdk.NewUserMessage(sdk.NewTextBlock("hi"))},
		Thinking: sdk.ThinkingConfigParamOfEnabled(1024)}
	stream := c.Messages.NewStreaming(context.Background(), params)
	var msg sdk.Message
	for stream.Next() {
		if err := msg.Accumulate(stream.Current()); err != nil {
			t.Fatal(err)
		}
	}
	if err := stream.Err(); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, b := range msg.Content {
		switch v := b.AsAny().(type) {
		case sdk.RedactedThinkingBlock:
			got = append(got, "redacted:"+v.Data)
		case sdk.ThinkingBlock:
			got = append(got, "thinking:"+v.Thinking+":"+v.Signature)
		case sdk.ToolUseBlock:
			got = append(got, "tool_use:"+v.Name+":"+string(v.Input))
		}
	}
	want := "redacted:redacted-1,thinking:hmm:"
	if s := strings.Join(got, ","); !strings.HasPrefix(s, want) || !strings.HasSuffix(s, `tool_use:read_file:{"file_path":"a"},tool_use:ls:{}`) {
		t.Errorf("content %s", s)
	}
	u := srv.Requests()[0].Usage
	if msg.StopReason != sdk.StopReasonToolUse || msg.Usage.InputTokens != int64(u.InputTokens) || msg.Usage.OutputTokens != int64(u.OutputTokens) {
		t.Errorf("stop %q usage %+v, server said %+v", msg.StopReason, msg.Usage, u)
	}
	_, err := c.Messages.New(context.Background(), params)
	var ae *sdk.Error
	if !asError(err, &ae) || ae.StatusCode != 529 || !strings.Contains(err.Error(), "overloaded_error") {
		t.Errorf("529: %v", err)
	}
}

func asError(err error, target **sdk.Error) bool {
	e, ok := err.(*sdk.Error)
	if ok {
		*target = e
	}
	return ok
}

// TestChecks: the fake refuses what the API refuses, a body the SDK's
// types would not say the same way included.
func TestChecks(t *testing.T) {
	const user = `"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]}]`
	tests := []struct {
		name, body, want string
	}{
		{"ok", `{"model":"m","max_tokens":10,"stream":true,` + user + `}`, ""},
		{"unknown field", `{"model":"m","max_tokens":10,"stream":true,"top_kk":3,` + user + `}`, "differs from the SDK's MessageNewParams at .top_kk"},
		{"string tool result", `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"x"}]}]}`, "differs from the SDK's MessageNewParams"},
		{"no max_tokens", `{"model":"m","stream":true,` + user + `}`, "max_tokens"},
		{"thinking with temperature", `{"model":"m","max_tokens":4000,"stream":true,"temperature":0.5,"thinking":{"type":"enabled","budget_tokens":1024},` + user + `}`, "temperature"},
		{"result missing", `{"model":"m","max_tokens":10,"stream":true,"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]},{"role":"user","content":[{"type":"text","text":"x"}]}]}`, "without `tool_result`"},
		{"forged thinking", `{"model":"m","max_tokens":4000,"stream":true,"thinking":{"type":"enabled","budget_tokens":1024},"messages":[{"role":"user","content":[{"type":"text","text":"hi"}]},{"role":"assistant","content":[{"type":"thinking","thinking":"t","signature":"s"},{"type":"text","text":"x"}]},{"role":"user","content":[{"type":"text","text":"y"}]}]}`, "Invalid `signature`"},
		{"top-level anyOf", `{"model":"m","max_tokens":10,"stream":true,"tools":[{"name":"f","input_schema":{"type":"object","anyOf":[]}}],` + user + `}`, "does not support oneOf"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := fakeanthropic.Start(t, fakeanthropic.Text("ok"))
			c := sdk.NewClient(option.WithAPIKey("k"), option.WithBaseURL(srv.URL), option.WithMaxRetries(0))
			var raw []byte
			err := c.Post(context.Background(), "v1/messages", []byte(tt.body), &raw, option.WithRequestBody("application/json", []byte(tt.body)))
			refused := srv.Requests()[0].Refused
			if tt.want == "" && (refused != "" || err != nil) || tt.want != "" && !strings.Contains(refused, tt.want) {
				t.Errorf("refused %q (%v), want %q", refused, err, tt.want)
			}
		})
	}
}
