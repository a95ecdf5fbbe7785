package setup

import (
	"context"
	"errors"
	"iter"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
)

// TestSessionCost: a resumed session's prior spending is the total its
// file keeps, else (a file written before Castor kept it) its model
// messages' tokens priced.
func TestSessionCost(t *testing.T) {
	price := func(name string) model.Price {
		if name == "p" {
			return model.Price{InputPerMTok: 10, OutputPerMTok: 100, CacheWritePerMTok: 20}
		}
		return model.Price{}
	}
	msgs := []chats.Message{
		{Type: chats.TypeUser},
		{Type: chats.TypeGemini, Model: "p", Tokens: &chats.Tokens{Input: 1000, Output: 10}},
		{Type: chats.TypeGemini, Model: "p", Tokens: &chats.Tokens{Input: 100, CacheWrite: 100}}, // 100 written at $20
		{Type: chats.TypeGemini, Model: "free", Tokens: &chats.Tokens{Input: 1000, Output: 10}},
		{Type: chats.TypeGemini, Model: "p"},
	}
	for _, c := range []struct {
		conv chats.Conversation
		want float64
	}{
		{chats.Conversation{CostUSD: 0.5, Messages: msgs}, 0.5},
		{chats.Conversation{Messages: msgs}, 0.013},
		{chats.Conversation{}, 0},
	} {
		if got := sessionCost(&c.conv, price); got < c.want-1e-12 || got > c.want+1e-12 {
			t.Errorf("cost %v, want %v", got, c.want)
		}
	}
}

// usageModel reports every answer as 1,000 prompt tokens.
type usageModel struct{ model.Model }

func (m usageModel) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		for r, err := range m.Model.GenerateContentStream(ctx, req) {
			if r != nil {
				r.UsageMetadata = &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 1000, TotalTokenCount: 1000}
			}
			if !yield(r, err) {
				return
			}
		}
	}
}

// TestResumeChatBudget: switching the running session to a recorded one
// (the terminal's resume) makes the budget count what that session had
// spent, kept in its file.
func TestResumeChatBudget(t *testing.T) {
	home, ws := t.TempDir(), t.TempDir()
	opts := func(c model.Model, budget float64) Options {
		return Options{WorkDir: ws, HomeDir: home, Model: "gemini-2.5-pro", Client: usageModel{c}, MaxBudgetUSD: budget, Env: envOf(func(string) string { return "" })}
	}
	firstID := recordedSession(t, opts(fake.Script(fake.Text("Paris.")), 0), "capital of France?")

	// 1,000 tokens at $1.25 a million: $0.00125 spent, which the
	// refusal of the next call counts.
	a, err := New(context.Background(), opts(fake.Script(fake.Text("Berlin.")), 0.0013))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, _, err := a.ResumeChat(firstID); err != nil {
		t.Fatal(err)
	}
	var be *model.BudgetError
	if _, err := a.Send(context.Background(), "and Germany?"); !errors.As(err, &be) || be.Spent < 0.00124 || be.Spent > 0.00126 {
		t.Errorf("err %v (%+v), want a budget error counting $0.00125 spent", err, be)
	}
}

// recordedSession runs one turn of prompt in a session of o and closes
// it, returning its id.
func recordedSession(t *testing.T, o Options, prompt string) string {
	t.Helper()
	a, err := New(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	if _, err := a.Send(context.Background(), prompt); err != nil {
		t.Fatal(err)
	}
	return a.SessionID()
}
