package castor_test

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/internal/fakeopenai"
	"github.com/castor-dev/castor/model"
)

// providerAgent is an SDK agent on model local/priced of an
// OpenAI-compatible provider (the fake) from the user's settings, the
// model costing $10 per million input tokens and $40 per million output.
func providerAgent(t *testing.T, srv *fakeopenai.Server, opts ...castor.Option) *castor.Agent {
	t.Helper()
	dir := t.TempDir()
	home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
	for _, d := range []string{filepath.Join(home, ".gemini"), ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	settings := `{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1",
		"models": {"priced": {"inputPricePerMTok": 10, "outputPricePerMTok": 40}}}}}`
	if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
		t.Fatal(err)
	}
	a, err := castor.New(context.Background(), append([]castor.Option{castor.WithHomeDir(home), castor.WithWorkDir(ws),
		castor.WithModel("local/priced"), castor.WithEnv(func(string) (string, bool) { return "", false })}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { a.Close() })
	return a
}

// TestSDKOpenAIProvider: an SDK agent runs a turn on an OpenAI-compatible
// provider named in settings, and Result carries its cost: the tokens
// the server reported times the models entry's prices, the session's
// and the turn's.
func TestSDKOpenAIProvider(t *testing.T) {
	srv := fakeopenai.Start(t, fakeopenai.Text("twelve chars"), fakeopenai.Text("again"))
	a := providerAgent(t, srv)
	res, err := a.Send(context.Background(), "hi")
	if err != nil || res.Text != "twelve chars" || res.StopReason != castor.StopCompleted {
		t.Fatalf("Send: %+v, %v", res, err)
	}
	tok := res.Stats.Models["local/priced"].Tokens
	want := (float64(tok.Prompt)*10 + float64(tok.Candidates)*40) / 1e6
	if tok.Prompt == 0 || res.CostUSD != want || res.TurnCostUSD != want {
		t.Errorf("cost %v (turn %v), want %v from %+v", res.CostUSD, res.TurnCostUSD, want, tok)
	}
	res2, err := a.Send(context.Background(), "again")
	if err != nil {
		t.Fatal(err)
	}
	if res2.TurnCostUSD <= 0 || math.Abs(res2.CostUSD-(res.CostUSD+res2.TurnCostUSD)) > 1e-12 {
		t.Errorf("second turn: cost %v, turn %v, first %v", res2.CostUSD, res2.TurnCostUSD, res.CostUSD)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("%d requests, want 2", n)
	}
}

// TestSDKBudgetOnProvider: WithMaxBudgetUSD ends the turn before the call
// that would cross it (StopBudget, a *model.BudgetError), nothing sent.
func TestSDKBudgetOnProvider(t *testing.T) {
	srv := fakeopenai.Start(t, fakeopenai.Text("never"))
	a := providerAgent(t, srv, castor.WithMaxBudgetUSD(0.000001))
	res, err := a.Send(context.Background(), "hi")
	var be *model.BudgetError
	if !errors.As(err, &be) || res.StopReason != castor.StopBudget || len(srv.Requests()) != 0 {
		t.Fatalf("Send: %+v, %v after %d requests", res, err, len(srv.Requests()))
	}
}
