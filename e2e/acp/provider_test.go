package acp_test

import (
	"context"
	"slices"
	"strings"
	"sync"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakeopenai"
)

// TestACPOpenAIProvider: an editor's turn runs on an OpenAI-compatible
// provider when the settings' model.name names one of its models.
func TestACPOpenAIProvider(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, fakeopenai.Text("hello from the provider"))
	e.WriteUserSettings(`{"model": {"name": "local/qwen3-coder"}, "providers": {"local": {"baseUrl": "` + srv.URL + `/v1"}}}`)
	var mu sync.Mutex
	var text strings.Builder
	c, sid, stderr := e2etest.StartACPClient(t, e, acp.Handler{Update: func(_ context.Context, n sdk.SessionNotification) {
		if u := n.Update.AgentMessageChunk; u != nil && u.Content.Text != nil {
			mu.Lock()
			text.WriteString(u.Content.Text.Text)
			mu.Unlock()
		}
	}})
	defer c.Close()
	r, err := c.PromptText(context.Background(), sid, "hi")
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	mu.Lock()
	defer mu.Unlock()
	if r.StopReason != sdk.StopReasonEndTurn || text.String() != "hello from the provider" {
		t.Errorf("stop %s, text %q", r.StopReason, text.String())
	}
	e2etest.CheckServed(t, e, srv, "qwen3-coder", 1, 0)
}

// TestACPBudget: model.maxBudgetUsd ends an editor's turn before the
// call that would cross it, the error saying so; nothing is sent.
func TestACPBudget(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, fakeopenai.Text("never"))
	e.WriteUserSettings(`{"model": {"name": "local/priced", "maxBudgetUsd": 0.000001}, "providers": {"local": {"baseUrl": "` + srv.URL + `/v1",
		"models": {"priced": {"inputPricePerMTok": 10, "outputPricePerMTok": 40}}}}}`)
	c, sid, stderr := e2etest.StartACPClient(t, e, acp.Handler{})
	defer c.Close()
	_, err := c.PromptText(context.Background(), sid, "hi")
	if err == nil || !strings.Contains(err.Error(), "budget of $") || !strings.Contains(err.Error(), "model.maxBudgetUsd") {
		t.Errorf("prompt: %v\nstderr:\n%s", err, stderr.String())
	}
	if n := len(srv.Requests()); n != 0 {
		t.Errorf("%d requests sent past the budget", n)
	}
}

// TestACPSwitchToProvider: the editor's model choices hold the providers'
// models from settings; choosing one sends the next prompt to that
// provider, and a prefix that is no provider is refused (invalid
// params) naming the setting.
func TestACPSwitchToProvider(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, fakeopenai.Text("from the provider"))
	e.WriteUserSettings(`{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1", "models": {"qwen3-coder": {}}}}}`)
	c, sid, stderr := e2etest.StartACPClient(t, e, acp.Handler{})
	defer c.Close()
	ctx := context.Background()
	_, err := c.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: sid, ConfigId: "model", Value: "nosuch/x"}})
	if err == nil || !strings.Contains(err.Error(), "no provider") || !strings.Contains(err.Error(), "providers") {
		t.Errorf("nosuch/x: %v", err)
	}
	resp, err := c.SetSessionConfigOption(ctx, sdk.SetSessionConfigOptionRequest{ValueId: &sdk.SetSessionConfigOptionValueId{
		SessionId: sid, ConfigId: "model", Value: "local/qwen3-coder"}})
	if err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	var offered []string
	for _, o := range resp.ConfigOptions {
		if o.Select != nil && o.Select.Id == "model" && o.Select.Options.Ungrouped != nil {
			for _, opt := range *o.Select.Options.Ungrouped {
				offered = append(offered, string(opt.Value))
			}
		}
	}
	if !slices.Contains(offered, "local/qwen3-coder") {
		t.Errorf("model choices %v lack local/qwen3-coder", offered)
	}
	if _, err := c.PromptText(ctx, sid, "hi"); err != nil {
		t.Fatalf("%v\nstderr:\n%s", err, stderr.String())
	}
	e2etest.CheckServed(t, e, srv, "qwen3-coder", 1, 0)
}
