package model_test

import (
	"context"
	"errors"
	"iter"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// usageModel answers every call with the same usage.
type usageModel struct{ calls int }

func (m *usageModel) GenerateContent(context.Context, *model.Request) (*genai.GenerateContentResponse, error) {
	m.calls++
	return &genai.GenerateContentResponse{UsageMetadata: &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 1000, CandidatesTokenCount: 100, CachedContentTokenCount: 400}}, nil
}

func (m *usageModel) GenerateContentStream(ctx context.Context, req *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		r, err := m.GenerateContent(ctx, req)
		yield(r, err)
	}
}

func (m *usageModel) CountTokens(context.Context, *model.Request) (int32, error) { return 0, nil }

// TestBudget: costs add up per the price (cached input at its own
// price), and the call that would cross the limit is never made.
func TestBudget(t *testing.T) {
	price := func(string) model.Price { return model.Price{InputPerMTok: 10, CachedPerMTok: 1, OutputPerMTok: 100} }
	inner := &usageModel{}
	b := model.WithBudget(inner, price, 0.035)
	req := &model.Request{Model: "m", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}}
	// One call: 600×10 + 400×1 + 100×100 = 16400 per million = $0.0164.
	for range b.GenerateContentStream(context.Background(), req) {
	}
	if got := b.Spent(); got < 0.01639 || got > 0.01641 {
		t.Fatalf("spent %v, want 0.0164", got)
	}
	if _, err := b.GenerateContent(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	// 0.0328 spent; the next call's input estimate (~$0.0001) fits, its
	// answer does not, so it is made; the one after is refused.
	if _, err := b.GenerateContent(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	var be *model.BudgetError
	if _, err := b.GenerateContent(context.Background(), req); !errors.As(err, &be) || inner.calls != 3 {
		t.Errorf("err %v after %d calls, want a BudgetError after 3", err, inner.calls)
	}
}

func TestDefaultPrice(t *testing.T) {
	for name, want := range map[string]float64{"gemini-2.5-pro": 1.25, "gemini-2.5-flash": 0.30, "gemini-2.5-flash-lite": 0.10, "models/gemini-3-pro-preview": 2, "gemini-3.1-pro-preview": 2, "gemini-3.8-flash": 0.50, "gemini-3.5-flash-lite": 0.25} {
		if p, ok := model.DefaultPrice(name); !ok || p.InputPerMTok != want {
			t.Errorf("%s: %v %v, want input %v", name, p, ok, want)
		}
	}
	if _, ok := model.DefaultPrice("local/x"); ok {
		t.Error("a provider's model has a Gemini price")
	}
}

// memLedger is a day's spending in memory.
type memLedger struct{ total float64 }

func (l *memLedger) Spent() (float64, error) { return l.total, nil }
func (l *memLedger) Add(usd float64) error   { l.total += usd; return nil }

// TestDailyBudget: every call's cost goes to the ledger, and a call that
// would take the ledger's total past the daily limit is refused, the
// error saying it is the day's and naming the setting.
func TestDailyBudget(t *testing.T) {
	price := func(string) model.Price { return model.Price{InputPerMTok: 10, CachedPerMTok: 1, OutputPerMTok: 100} }
	inner := &usageModel{}
	// Another session spent $0.02 today; each call costs $0.0164.
	l := &memLedger{total: 0.02}
	b := model.WithBudget(inner, price, 0).Daily(0.03, "model.dailyBudgetUsd in s.json", l, nil)
	req := &model.Request{Model: "m", Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)}}
	if _, err := b.GenerateContent(context.Background(), req); err != nil {
		t.Fatal(err)
	}
	if l.total < 0.0363 || l.total > 0.0365 {
		t.Errorf("ledger %v, want 0.0364", l.total)
	}
	_, err := b.GenerateContent(context.Background(), req)
	var be *model.BudgetError
	if !errors.As(err, &be) || !be.Daily || !errors.Is(err, model.ErrBudget) || inner.calls != 1 {
		t.Fatalf("err %v after %d calls, want a daily BudgetError after 1", err, inner.calls)
	}
	if msg := err.Error(); !strings.Contains(msg, "daily budget of $0.0300") || !strings.Contains(msg, "raise model.dailyBudgetUsd in s.json") {
		t.Errorf("message: %s", msg)
	}
}

// TestPriceCacheWrites: prompt tokens written to the cache cost the
// cache-write price (the input price when none is set), the rest of the
// prompt as before.
func TestPriceCacheWrites(t *testing.T) {
	u := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: 1000, CachedContentTokenCount: 200, CandidatesTokenCount: 10}
	model.SetCacheWriteTokens(u, 300)
	model.SetCacheWriteTokens(u, 0)
	if n := model.CacheWriteTokens(u); n != 300 {
		t.Fatalf("cache writes %d, want 300", n)
	}
	for _, c := range []struct {
		p    model.Price
		want float64
	}{
		// 500×4 + 200×0.4 + 300×5 + 10×20
		{model.Price{InputPerMTok: 4, CachedPerMTok: 0.4, OutputPerMTok: 20, CacheWritePerMTok: 5}, 3780},
		// 800×4 + 200×0.4 + 10×20
		{model.Price{InputPerMTok: 4, CachedPerMTok: 0.4, OutputPerMTok: 20}, 3480},
	} {
		if got := c.p.Cost(u) * 1e6; got < c.want-1e-6 || got > c.want+1e-6 {
			t.Errorf("%+v: %v per million, want %v", c.p, got, c.want)
		}
	}
}
