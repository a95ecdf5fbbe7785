package model_test

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/gemini"
	"google.golang.org/genai"
)

// clock records the waits a Retrier asks for and returns at once, so
// tests check the chosen delays without spending them.
type clock struct {
	mu    sync.Mutex
	waits []time.Duration
}

func (c *clock) sleep(ctx context.Context, d time.Duration) error {
	c.mu.Lock()
	c.waits = append(c.waits, d)
	c.mu.Unlock()
	return ctx.Err()
}

func (c *clock) got() []time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]time.Duration(nil), c.waits...)
}

type notices struct {
	mu   sync.Mutex
	list []model.Notice
}

func (n *notices) observe(x model.Notice) {
	n.mu.Lock()
	defer n.mu.Unlock()
	n.list = append(n.list, x)
}

func (n *notices) kinds() string {
	n.mu.Lock()
	defer n.mu.Unlock()
	var s []string
	for _, x := range n.list {
		s = append(s, string(x.Kind))
	}
	return strings.Join(s, ",")
}

type harness struct {
	srv     *fakegemini.Server
	clock   *clock
	notices *notices
	r       *model.Retrier
}

func newHarness(t *testing.T, opts model.RetryOptions, replies ...fakegemini.Reply) *harness {
	t.Helper()
	srv := fakegemini.Start(t, replies...)
	m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: srv.URL, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	h := &harness{srv: srv, clock: &clock{}, notices: &notices{}}
	if opts.Sleep == nil {
		opts.Sleep = h.clock.sleep
	}
	if opts.Rand == nil {
		opts.Rand = func() float64 { return 0.5 } // no jitter
	}
	if opts.InitialDelay == 0 {
		opts.InitialDelay = time.Millisecond
	}
	if opts.MaxDelay == 0 {
		opts.MaxDelay = 8 * time.Millisecond
	}
	h.r = model.NewRetrier(m, opts)
	return h
}

func (h *harness) req(modelID string) *model.Request {
	return &model.Request{
		Model:    modelID,
		Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
		Observe:  h.notices.observe,
	}
}

func streamText(t *testing.T, r model.Model, req *model.Request) (string, int, error) {
	t.Helper()
	var b strings.Builder
	n := 0
	for c, err := range r.GenerateContentStream(context.Background(), req) {
		if err != nil {
			return b.String(), n, err
		}
		n++
		for _, p := range c.Candidates[0].Content.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String(), n, nil
}

func TestRetryThenSuccess(t *testing.T) {
	tests := []struct {
		name      string
		replies   []fakegemini.Reply
		wantWaits []time.Duration
		wantReqs  int
	}{
		{
			name:      "503 then success",
			replies:   []fakegemini.Reply{fakegemini.Error(503, "overloaded"), fakegemini.Text("ok")},
			wantWaits: []time.Duration{time.Millisecond},
			wantReqs:  2,
		},
		{
			name:      "429 honours Retry-After",
			replies:   []fakegemini.Reply{fakegemini.Error(429, "slow down").WithRetryAfter("20"), fakegemini.Text("ok")},
			wantWaits: []time.Duration{20 * time.Second},
			wantReqs:  2,
		},
		{
			name:      "429 honours RetryInfo",
			replies:   []fakegemini.Reply{fakegemini.Error(429, "slow down").WithDetails(fakegemini.RetryInfo(1500 * time.Millisecond)), fakegemini.Text("ok")},
			wantWaits: []time.Duration{1500 * time.Millisecond},
			wantReqs:  2,
		},
		{
			name:      "stream failing before first chunk",
			replies:   []fakegemini.Reply{fakegemini.Text("lost").CutAfter(0), fakegemini.Chunks(), fakegemini.Text("ok")},
			wantWaits: []time.Duration{time.Millisecond, 2 * time.Millisecond},
			wantReqs:  3,
		},
		{
			name: "backoff doubles up to the cap",
			replies: []fakegemini.Reply{
				fakegemini.Error(500, "a"), fakegemini.Error(502, "b"), fakegemini.Error(503, "c"),
				fakegemini.Error(504, "d"), fakegemini.Error(499, "e"), fakegemini.Text("ok"),
			},
			wantWaits: []time.Duration{1 * time.Millisecond, 2 * time.Millisecond, 4 * time.Millisecond, 8 * time.Millisecond, 8 * time.Millisecond},
			wantReqs:  6,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, model.RetryOptions{}, tt.replies...)
			got, _, err := streamText(t, h.r, h.req("gemini-2.5-pro"))
			if err != nil {
				t.Fatal(err)
			}
			if got != "ok" {
				t.Errorf("text = %q, want ok", got)
			}
			if waits := h.clock.got(); !equalDurations(waits, tt.wantWaits) {
				t.Errorf("waits = %v, want %v", waits, tt.wantWaits)
			}
			if n := len(h.srv.Requests()); n != tt.wantReqs {
				t.Errorf("requests = %d, want %d", n, tt.wantReqs)
			}
			h.notices.mu.Lock()
			defer h.notices.mu.Unlock()
			if len(h.notices.list) != len(tt.wantWaits) {
				t.Fatalf("notices = %+v", h.notices.list)
			}
			for i, n := range h.notices.list {
				if n.Kind != model.NoticeRetry || n.Attempt != i+1 || n.Delay != tt.wantWaits[i] || n.Err == nil {
					t.Errorf("notice %d = %+v", i, n)
				}
			}
		})
	}
}

func equalDurations(a, b []time.Duration) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestStreamCutMidwayIsNotRetried(t *testing.T) {
	h := newHarness(t, model.RetryOptions{},
		fakegemini.Text("a", "b", "c").CutAfter(2),
		fakegemini.Text("must not be requested"),
	)
	got, n, err := streamText(t, h.r, h.req("gemini-2.5-pro"))
	if !errors.Is(err, model.ErrStreamCut) {
		t.Fatalf("err = %v, want ErrStreamCut", err)
	}
	if got != "ab" || n != 2 {
		t.Errorf("got %q in %d chunks", got, n)
	}
	if r := len(h.srv.Requests()); r != 1 {
		t.Errorf("requests = %d, want 1", r)
	}
	if k := h.notices.kinds(); k != "" {
		t.Errorf("notices = %s", k)
	}
}

func TestErrorFrameMidwayIsNotRetried(t *testing.T) {
	h := newHarness(t, model.RetryOptions{},
		fakegemini.Text("a", "b").FailAfter(1, fakegemini.Error(503, "overloaded")),
		fakegemini.Text("unused"))
	got, _, err := streamText(t, h.r, h.req("gemini-2.5-pro"))
	var ae *model.APIError
	if !errors.As(err, &ae) || ae.StatusCode != 503 || got != "a" {
		t.Fatalf("got %q, err %v", got, err)
	}
	if h.srv.Pending() != 1 {
		t.Errorf("stream was retried")
	}
}

func TestFallbackCycleEnds(t *testing.T) {
	cycle := func(m string) string {
		if m == "a" {
			return "b"
		}
		return "a"
	}
	daily := fakegemini.Error(429, "daily").WithDetails(fakegemini.QuotaFailure("RequestsPerDay"))
	h := newHarness(t, model.RetryOptions{Fallback: cycle}, daily, daily, fakegemini.Text("unused"))
	_, err := h.r.GenerateContent(context.Background(), h.req("a"))
	if !model.IsQuotaExhausted(err) {
		t.Fatalf("err = %v", err)
	}
	if k := h.notices.kinds(); k != "fallback" {
		t.Errorf("notices = %s", k)
	}
	if n := len(h.srv.Requests()); n != 2 {
		t.Errorf("requests = %d", n)
	}
}

func TestNoFinishReasonMidwayIsNotRetried(t *testing.T) {
	h := newHarness(t, model.RetryOptions{}, fakegemini.Text("a", "b").NoFinish(), fakegemini.Text("unused"))
	_, _, err := streamText(t, h.r, h.req("gemini-2.5-pro"))
	if !errors.Is(err, model.ErrStreamCut) {
		t.Fatalf("err = %v", err)
	}
	if h.srv.Pending() != 1 {
		t.Errorf("stream was retried")
	}
}

func TestGivesUp(t *testing.T) {
	tests := []struct {
		name     string
		opts     model.RetryOptions
		replies  []fakegemini.Reply
		wantCode int
		wantReqs int
	}{
		{
			name:     "not retryable",
			replies:  []fakegemini.Reply{fakegemini.Error(400, "bad request"), fakegemini.Text("unused")},
			wantCode: 400,
			wantReqs: 1,
		},
		{
			name:     "attempts exhausted",
			opts:     model.RetryOptions{MaxAttempts: 3},
			replies:  []fakegemini.Reply{fakegemini.Error(503, "x"), fakegemini.Error(503, "x"), fakegemini.Error(503, "x"), fakegemini.Text("unused")},
			wantCode: 503,
			wantReqs: 3,
		},
		{
			name:     "persistent 429 without fallback",
			opts:     model.RetryOptions{MaxAttempts: 2},
			replies:  []fakegemini.Reply{fakegemini.Error(429, "q"), fakegemini.Error(429, "q"), fakegemini.Text("unused")},
			wantCode: 429,
			wantReqs: 2,
		},
		{
			name:     "retry-after beyond the limit",
			replies:  []fakegemini.Reply{fakegemini.Error(503, "x").WithRetryAfter("3600"), fakegemini.Text("unused")},
			wantCode: 503,
			wantReqs: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, tt.opts, tt.replies...)
			_, err := h.r.GenerateContent(context.Background(), h.req("gemini-2.5-pro"))
			var ae *model.APIError
			if !errors.As(err, &ae) || ae.StatusCode != tt.wantCode {
				t.Fatalf("err = %v, want API error %d", err, tt.wantCode)
			}
			if n := len(h.srv.Requests()); n != tt.wantReqs {
				t.Errorf("requests = %d, want %d", n, tt.wantReqs)
			}
		})
	}
}

func TestFallback(t *testing.T) {
	daily := fakegemini.Error(429, "daily quota").WithDetails(fakegemini.QuotaFailure("GenerateRequestsPerDayPerProjectPerModel"))
	tests := []struct {
		name      string
		replies   []fakegemini.Reply
		from, to  string
		wantKinds string
	}{
		{
			name:      "persistent 429",
			replies:   []fakegemini.Reply{fakegemini.Error(429, "q"), fakegemini.Error(429, "q"), fakegemini.Error(429, "q"), fakegemini.Text("from flash")},
			from:      "gemini-2.5-pro",
			to:        "gemini-2.5-flash",
			wantKinds: "retry,retry,fallback",
		},
		{
			name:      "exhausted quota falls back at once",
			replies:   []fakegemini.Reply{daily, fakegemini.Text("from flash")},
			from:      "gemini-3.1-pro-preview",
			to:        "gemini-3.8-flash",
			wantKinds: "fallback",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, model.RetryOptions{MaxAttempts: 3, Fallback: model.DefaultFallback}, tt.replies...)
			got, _, err := streamText(t, h.r, h.req(tt.from))
			if err != nil {
				t.Fatal(err)
			}
			if got != "from flash" {
				t.Errorf("text = %q", got)
			}
			if k := h.notices.kinds(); k != tt.wantKinds {
				t.Errorf("notices = %s, want %s", k, tt.wantKinds)
			}
			h.notices.mu.Lock()
			last := h.notices.list[len(h.notices.list)-1]
			h.notices.mu.Unlock()
			if last.From != tt.from || last.To != tt.to || !model.IsQuotaError(last.Err) {
				t.Errorf("fallback notice = %+v", last)
			}
			if m := h.srv.LastRequest().Model; m != tt.to {
				t.Errorf("last request went to %s", m)
			}
			if m := h.r.CurrentModel(tt.from); m != tt.to {
				t.Errorf("CurrentModel = %s, want %s", m, tt.to)
			}
			// Later calls skip the exhausted model.
			h.srv.Enqueue(fakegemini.Text("again"))
			if _, err := h.r.GenerateContent(context.Background(), h.req(tt.from)); err != nil {
				t.Fatal(err)
			}
			if m := h.srv.LastRequest().Model; m != tt.to {
				t.Errorf("later call went to %s", m)
			}
			h.r.ResetFallbacks()
			if m := h.r.CurrentModel(tt.from); m != tt.from {
				t.Errorf("after reset CurrentModel = %s", m)
			}
		})
	}
}

func TestJitter(t *testing.T) {
	tests := []struct {
		name string
		rand float64
		want time.Duration
	}{
		{"low", 0, 700 * time.Millisecond},
		{"middle", 0.5, time.Second},
		{"high", 0.75, 1150 * time.Millisecond},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := newHarness(t, model.RetryOptions{InitialDelay: time.Second, Rand: func() float64 { return tt.rand }},
				fakegemini.Error(503, "x"), fakegemini.Text("ok"))
			if _, err := h.r.GenerateContent(context.Background(), h.req("m")); err != nil {
				t.Fatal(err)
			}
			if w := h.clock.got(); len(w) != 1 || w[0] != tt.want {
				t.Errorf("waits = %v, want [%v]", w, tt.want)
			}
		})
	}
}

func TestCancelDuringBackoff(t *testing.T) {
	srv := fakegemini.Start(t, fakegemini.Error(503, "x"), fakegemini.Text("unused"))
	m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: srv.URL})
	if err != nil {
		t.Fatal(err)
	}
	// The real sleep with an hour-long delay: only cancellation can end it.
	r := model.WithRetry(m, model.RetryOptions{InitialDelay: time.Hour, MaxDelay: time.Hour})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req := &model.Request{
		Model:    "gemini-2.5-pro",
		Contents: []*genai.Content{genai.NewContentFromText("hi", genai.RoleUser)},
		Observe:  func(model.Notice) { cancel() },
	}
	_, err = r.GenerateContent(ctx, req)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("requests = %d", n)
	}
}

func TestConsumerStopsEarly(t *testing.T) {
	h := newHarness(t, model.RetryOptions{}, fakegemini.Text("a", "b", "c"))
	n := 0
	for _, err := range h.r.GenerateContentStream(context.Background(), h.req("m")) {
		if err != nil {
			t.Fatalf("err after break: %v", err)
		}
		n++
		break
	}
	if n != 1 || len(h.srv.Requests()) != 1 {
		t.Errorf("n = %d, requests = %d", n, len(h.srv.Requests()))
	}
}

func TestCountTokensRetried(t *testing.T) {
	h := newHarness(t, model.RetryOptions{},
		fakegemini.Error(503, "x").For(fakegemini.RPCCountTokens), fakegemini.Tokens(7))
	n, err := h.r.CountTokens(context.Background(), h.req("m"))
	if err != nil || n != 7 {
		t.Fatalf("CountTokens = %d, %v", n, err)
	}
}

func TestIsRetryable(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"429", &model.APIError{StatusCode: http.StatusTooManyRequests}, true},
		{"499", &model.APIError{StatusCode: 499}, true},
		{"500", &model.APIError{StatusCode: 500}, true},
		{"400", &model.APIError{StatusCode: 400}, false},
		{"404", &model.APIError{StatusCode: 404}, false},
		{"stream cut", model.ErrStreamCut, true},
		{"canceled", context.Canceled, false},
		{"deadline", context.DeadlineExceeded, false},
		{"auth", &model.AuthError{Err: errors.New("no key")}, false},
		{"other", errors.New("boom"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := model.IsRetryable(tt.err); got != tt.want {
				t.Errorf("IsRetryable(%v) = %v, want %v", tt.err, got, tt.want)
			}
		})
	}
}

func TestDefaultFallback(t *testing.T) {
	tests := []struct{ in, want string }{
		{"gemini-2.5-pro", "gemini-2.5-flash"},
		{"models/gemini-2.5-pro", "gemini-2.5-flash"},
		{"gemini-3.1-pro-preview", "gemini-3.8-flash"},
		{"gemini-3.1-pro-preview-customtools", "gemini-3.8-flash"},
		{"gemini-3.5-flash-lite", "gemini-3.8-flash"},
		{"gemini-3.8-flash", ""},
		{"gemini-2.5-flash", ""},
		{"gemini-3-flash-preview", ""},
		{"gemini-2.0-flash", ""},
	}
	for _, tt := range tests {
		if got := model.DefaultFallback(tt.in); got != tt.want {
			t.Errorf("DefaultFallback(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
