package model

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"

	"google.golang.org/genai"
)

// Price is what a model costs, in US dollars per million tokens.
type Price struct {
	InputPerMTok  float64
	CachedPerMTok float64 // cached input; 0 means the input price
	OutputPerMTok float64 // output, thoughts included
	// CacheWritePerMTok prices input written to a provider's prompt cache
	// (Anthropic bills it at 1.25× input); 0 means the input price.
	CacheWritePerMTok float64
}

// cacheWriteModality marks, among a usage's PromptTokensDetails, the
// prompt tokens written to the provider's prompt cache: genai's usage has
// no field for them (Gemini does not bill writes), and the usage is what
// travels from a provider to the budget, the stats and the session file.
const cacheWriteModality genai.MediaModality = "CACHE_WRITE"

// SetCacheWriteTokens records in u that n of its prompt tokens were
// written to the provider's prompt cache.
func SetCacheWriteTokens(u *genai.GenerateContentResponseUsageMetadata, n int32) {
	if u == nil || n <= 0 {
		return
	}
	u.PromptTokensDetails = append(u.PromptTokensDetails, &genai.ModalityTokenCount{Modality: cacheWriteModality, TokenCount: n})
}

// CacheWriteTokens is how many of u's prompt tokens were written to the
// provider's prompt cache (SetCacheWriteTokens), 0 for Gemini.
func CacheWriteTokens(u *genai.GenerateContentResponseUsageMetadata) int32 {
	if u == nil {
		return 0
	}
	var n int32
	for _, d := range u.PromptTokensDetails {
		if d != nil && d.Modality == cacheWriteModality {
			n += d.TokenCount
		}
	}
	return n
}

// Cost is the price of the tokens u counts.
func (p Price) Cost(u *genai.GenerateContentResponseUsageMetadata) float64 {
	if u == nil {
		return 0
	}
	cachedPrice := p.CachedPerMTok
	if cachedPrice == 0 {
		cachedPrice = p.InputPerMTok
	}
	writePrice := p.CacheWritePerMTok
	if writePrice == 0 {
		writePrice = p.InputPerMTok
	}
	written := CacheWriteTokens(u)
	in := float64(u.PromptTokenCount - u.CachedContentTokenCount - written)
	out := float64(u.CandidatesTokenCount + u.ThoughtsTokenCount)
	return (in*p.InputPerMTok + float64(u.CachedContentTokenCount)*cachedPrice + float64(written)*writePrice + out*p.OutputPerMTok) / 1e6
}

// geminiPrices are Gemini API's public paid-tier prices (prompts up to
// 200k tokens), by model name prefix, longest first.
var geminiPrices = []struct {
	prefix string
	price  Price
}{
	{"gemini-2.5-flash-lite", Price{InputPerMTok: 0.10, CachedPerMTok: 0.025, OutputPerMTok: 0.40}},
	{"gemini-2.5-flash", Price{InputPerMTok: 0.30, CachedPerMTok: 0.075, OutputPerMTok: 2.50}},
	{"gemini-2.5-pro", Price{InputPerMTok: 1.25, CachedPerMTok: 0.31, OutputPerMTok: 10}},
	// Gemini 3's generations (3, 3.1, 3.5…) share a price per kind;
	// geminiKinds picks it by the name's kind.
	{"gemini-3", Price{InputPerMTok: 2, CachedPerMTok: 0.20, OutputPerMTok: 12}}, // pro
}

// gemini3Kinds are Gemini 3's prices by kind, flash-lite before flash:
// Gemini 3 Flash's and 3.1 Flash-Lite's public prices.
var gemini3Kinds = []struct {
	kind  string
	price Price
}{
	{"-flash-lite", Price{InputPerMTok: 0.25, CachedPerMTok: 0.025, OutputPerMTok: 1.50}},
	{"-flash", Price{InputPerMTok: 0.50, CachedPerMTok: 0.05, OutputPerMTok: 3}},
}

// DefaultPrice is the shipped price of a Gemini model, ok false for a
// model without one.
func DefaultPrice(name string) (Price, bool) {
	name = strings.TrimPrefix(name, "models/")
	for _, g := range geminiPrices {
		if strings.HasPrefix(name, g.prefix) {
			if g.prefix == "gemini-3" {
				for _, k := range gemini3Kinds {
					if strings.Contains(name, k.kind) {
						return k.price, true
					}
				}
			}
			return g.price, true
		}
	}
	return Price{}, false
}

// BudgetError ends a call that would have crossed a spending limit;
// nothing was sent.
type BudgetError struct {
	// Limit is the budget in dollars, Spent what it had counted, Next the
	// estimated input cost of the refused call.
	Limit, Spent, Next float64
	// Daily is true when the limit is the day's, across the project's
	// sessions (the ledger's), false for this session's.
	Daily bool
	// Setting names what set the limit ("--max-budget-usd",
	// "model.dailyBudgetUsd in /home/u/.gemini/settings.json"), so the
	// message says what to raise; "" says --max-budget-usd.
	Setting string
}

func (e *BudgetError) Error() string {
	setting := e.Setting
	if setting == "" {
		setting = "--max-budget-usd"
	}
	if e.Daily {
		return fmt.Sprintf("daily budget of $%.4f reached: $%.4f spent today in this project, the next model call would cost about $%.4f more (raise %s to go on, or wait for tomorrow)", e.Limit, e.Spent, e.Next, setting)
	}
	return fmt.Sprintf("budget of $%.4f reached: $%.4f spent, the next model call would cost about $%.4f more (raise %s to go on)", e.Limit, e.Spent, e.Next, setting)
}

// Is makes every BudgetError match ErrBudget.
func (e *BudgetError) Is(target error) bool { return target == ErrBudget }

// ErrBudget is matched (errors.Is) by every *BudgetError.
var ErrBudget = errors.New("budget reached")

// Ledger keeps what was spent beyond one session: a day's spending in a
// project, shared by its sessions (and processes).
type Ledger interface {
	// Spent is the total the ledger holds now.
	Spent() (float64, error)
	// Add adds usd to the total.
	Add(usd float64) error
}

// Budget is a Model that counts what its calls cost and refuses a call
// whose input alone would take the session's total, or the ledger's,
// past its limit.
type Budget struct {
	m     Model
	price func(model string) Price
	limit float64
	// setting names the session limit's source (BudgetError.Setting).
	setting string

	daily        float64
	dailySetting string
	ledger       Ledger
	// warn hears a ledger that cannot be written; the call's answer is
	// kept.
	warn func(error)

	mu    sync.Mutex
	spent float64
	// onSpend hears the session's new total after each priced call;
	// saveMu orders those, so the last heard is the latest total.
	onSpend func(total float64)
	saveMu  sync.Mutex
}

// WithBudget wraps m; price gives each model's price, limit is in dollars
// (0: no limit, costs still counted).
func WithBudget(m Model, price func(model string) Price, limit float64) *Budget {
	return &Budget{m: m, price: price, limit: limit}
}

// SessionSetting names what set the session's limit, for the message of
// the call it refuses.
func (b *Budget) SessionSetting(name string) *Budget {
	b.setting = name
	return b
}

// Daily adds a limit on ledger's total (0: none, costs still added to
// the ledger); setting names where it was set. A ledger that cannot be
// written is told to warn.
func (b *Budget) Daily(limit float64, setting string, ledger Ledger, warn func(error)) *Budget {
	b.daily, b.dailySetting, b.ledger, b.warn = limit, setting, ledger, warn
	return b
}

// Resume makes prior the session's spending so far (a resumed
// session's, from before this process or this switch), counted toward
// its limit; onSpend hears the session's total after each priced call,
// so it can be kept for the next resume.
func (b *Budget) Resume(prior float64, onSpend func(total float64)) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.spent = prior
	b.onSpend = onSpend
}

// Spent is the cost of the calls so far.
func (b *Budget) Spent() float64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.spent
}

// admit estimates the call's input (four characters a token) and refuses
// it when that would cross a limit.
func (b *Budget) admit(req *Request) error {
	if b.limit <= 0 && (b.daily <= 0 || b.ledger == nil) {
		return nil
	}
	n := 0
	for _, c := range req.Contents {
		raw, _ := json.Marshal(c)
		n += len(raw)
	}
	if req.Config != nil {
		raw, _ := json.Marshal(req.Config)
		n += len(raw)
	}
	next := b.price(req.Model).Cost(&genai.GenerateContentResponseUsageMetadata{PromptTokenCount: int32((n + 3) / 4)})
	b.mu.Lock()
	spent := b.spent
	b.mu.Unlock()
	if b.limit > 0 && spent+next > b.limit {
		return &BudgetError{Limit: b.limit, Spent: spent, Next: next, Setting: b.setting}
	}
	if b.daily > 0 && b.ledger != nil {
		today, err := b.ledger.Spent()
		if err != nil {
			// A budget that cannot be read is not a budget kept: refuse.
			return fmt.Errorf("daily budget (%s): %w", b.dailySetting, err)
		}
		if today+next > b.daily {
			return &BudgetError{Limit: b.daily, Spent: today, Next: next, Daily: true, Setting: b.dailySetting}
		}
	}
	return nil
}

func (b *Budget) add(name string, resp *genai.GenerateContentResponse) {
	if resp == nil || resp.UsageMetadata == nil {
		return
	}
	c := b.price(name).Cost(resp.UsageMetadata)
	b.mu.Lock()
	b.spent += c
	onSpend := b.onSpend
	b.mu.Unlock()
	if c > 0 && onSpend != nil {
		b.saveMu.Lock()
		onSpend(b.Spent())
		b.saveMu.Unlock()
	}
	if c > 0 && b.ledger != nil {
		if err := b.ledger.Add(c); err != nil && b.warn != nil {
			b.warn(err)
		}
	}
}

// GenerateContent makes the call if the budget admits it.
func (b *Budget) GenerateContent(ctx context.Context, req *Request) (*genai.GenerateContentResponse, error) {
	if err := b.admit(req); err != nil {
		return nil, err
	}
	resp, err := b.m.GenerateContent(ctx, req)
	b.add(req.Model, resp)
	return resp, err
}

// GenerateContentStream makes the call if the budget admits it; the
// usage of its last chunk that reports one is counted.
func (b *Budget) GenerateContentStream(ctx context.Context, req *Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		if err := b.admit(req); err != nil {
			yield(nil, err)
			return
		}
		var last *genai.GenerateContentResponse
		defer func() { b.add(req.Model, last) }()
		for resp, err := range b.m.GenerateContentStream(ctx, req) {
			if resp != nil && resp.UsageMetadata != nil {
				last = resp
			}
			if !yield(resp, err) {
				return
			}
		}
	}
}

// CountTokens is free.
func (b *Budget) CountTokens(ctx context.Context, req *Request) (int32, error) {
	return b.m.CountTokens(ctx, req)
}

// Unwrap is the model the budget guards.
func (b *Budget) Unwrap() Model { return b.m }
