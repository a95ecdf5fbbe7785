package agent

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// summariser answers the compression call with a fixed summary and keeps
// the requests it was sent.
type summariser struct {
	*scripted
	calls []*model.Request
}

func (m *summariser) GenerateContent(ctx context.Context, req *model.Request) (*genai.GenerateContentResponse, error) {
	m.calls = append(m.calls, req)
	return m.scripted.GenerateContent(ctx, req)
}

func user(n int) *genai.Content {
	return genai.NewContentFromText(strings.Repeat("u", n), genai.RoleUser)
}
func reply(n int) *genai.Content {
	return genai.NewContentFromText(strings.Repeat("m", n), genai.RoleModel)
}

// answer is a user entry holding a function response with a string value
// of n characters under the key "output" (6 characters).
func answer(n int) *genai.Content {
	return &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
		Name: "read_file", Response: map[string]any{"output": strings.Repeat("r", n)},
	}}}}
}

// pairs is n user prompts of 100 characters each answered by the model in
// 100 characters.
func pairs(n int) []*genai.Content {
	var hist []*genai.Content
	for range n {
		hist = append(hist, user(100), reply(100))
	}
	return hist
}

func TestContentChars(t *testing.T) {
	tests := []struct {
		name string
		c    *genai.Content
		want int
	}{
		{"nil", nil, 0},
		{"text", user(10), 10},
		{"texts add up", &genai.Content{Parts: []*genai.Part{{Text: "abc"}, nil, {Text: "de"}}}, 5},
		{"call: name, 64, keys and string values", &genai.Content{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{
			Name: "ls", Args: map[string]any{"dir": "src"},
		}}}}, 2 + 64 + 3 + 3},
		{"call: a value that is not a string counts 16", &genai.Content{Parts: []*genai.Part{{FunctionCall: &genai.FunctionCall{
			Name: "ls", Args: map[string]any{"n": 3},
		}}}}, 2 + 64 + 1 + 16},
		{"response: keys and values", answer(10), 6 + 10},
		{"inline data counts 1000", &genai.Content{Parts: []*genai.Part{{Text: "ab", InlineData: &genai.Blob{Data: []byte("x")}}}}, 1002},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := contentChars(tt.c); got != tt.want {
				t.Errorf("contentChars = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestEstimateTokens: four characters a token, rounded down, over all
// entries.
func TestEstimateTokens(t *testing.T) {
	tests := []struct {
		cs   []*genai.Content
		want int32
	}{
		{nil, 0},
		{[]*genai.Content{user(3)}, 0},
		{[]*genai.Content{user(4)}, 1},
		{[]*genai.Content{user(7)}, 1},
		{[]*genai.Content{user(400)}, 100},
		{[]*genai.Content{user(400), reply(401), nil}, 200},
	}
	for _, tt := range tests {
		if got := estimateTokens(tt.cs); got != tt.want {
			t.Errorf("estimateTokens(%s) = %d, want %d", mustJSON(tt.cs), got, tt.want)
		}
	}
}

func TestTokenLimit(t *testing.T) {
	for name, want := range map[string]int{
		"gemini-1.5-pro":                     2_097_152,
		"gemini-1.5-pro-002":                 2_097_152,
		"gemini-2.0-flash-preview-image-gen": 32_000,
		"gemini-2.5-pro":                     1_048_576,
		"":                                   1_048_576,
	} {
		if got := tokenLimit(name); got != want {
			t.Errorf("tokenLimit(%q) = %d, want %d", name, got, want)
		}
	}
}

func TestIsUserPrompt(t *testing.T) {
	tests := []struct {
		name string
		c    *genai.Content
		want bool
	}{
		{"nil", nil, false},
		{"user text", user(1), true},
		{"model text", reply(1), false},
		{"function response", answer(1), false},
		{"text then response", &genai.Content{Role: genai.RoleUser, Parts: []*genai.Part{{Text: "x"}, answer(1).Parts[0]}}, false},
	}
	for _, tt := range tests {
		if got := isUserPrompt(tt.c); got != tt.want {
			t.Errorf("%s: isUserPrompt = %v, want %v", tt.name, got, tt.want)
		}
	}
}

// TestSplitPoint: the first user prompt at or after 70% of the history's
// characters; else the last user prompt but the first; else the end.
func TestSplitPoint(t *testing.T) {
	tests := []struct {
		name string
		hist []*genai.Content
		want int
	}{
		// 2000 characters, 1400 of them before entry 14: exactly 70%.
		{"prompt exactly at 70%", pairs(10), 14},
		// 1900 characters: 1330 is reached at entry 14 (1400).
		{"first prompt past 70%", append(pairs(9), user(100)), 14},
		// Entry 14 is a function response, not a prompt: the next prompt.
		{"skips function responses", append(append(pairs(7), answer(94), reply(100)), pairs(2)...), 16},
		// Past 70% only model replies follow: the last prompt instead.
		{"no prompt past 70%", []*genai.Content{user(10), reply(10), user(10), reply(1000)}, 2},
		// The only prompt is the first entry: nothing to keep apart.
		{"only the first is a prompt", []*genai.Content{user(1000), reply(10)}, 2},
		{"one entry", []*genai.Content{user(10)}, 1},
		{"empty", nil, 0},
		// 1010 characters, 70% reached by the second entry.
		{"second entry", []*genai.Content{user(1000), user(10)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := splitPoint(tt.hist); got != tt.want {
				t.Errorf("splitPoint = %d, want %d", got, tt.want)
			}
		})
	}
}

// TestMaybeCompressThreshold: compression starts once the last prompt's
// tokens reach the threshold's share of the window (the defaults: half of
// the model's window), counting history when the service said nothing.
func TestMaybeCompressThreshold(t *testing.T) {
	tests := []struct {
		name       string
		limit      int
		threshold  float64
		modelName  string
		lastPrompt int32
		want       bool
	}{
		{"below", 1000, 0.5, "gemini-2.5-pro", 499, false},
		{"at the threshold", 1000, 0.5, "gemini-2.5-pro", 500, true},
		{"above", 1000, 0.5, "gemini-2.5-pro", 501, true},
		{"other threshold", 1000, 0.7, "gemini-2.5-pro", 699, false},
		{"other threshold reached", 1000, 0.7, "gemini-2.5-pro", 700, true},
		{"default threshold is half", 1000, 0, "gemini-2.5-pro", 499, false},
		{"default threshold reached", 1000, 0, "gemini-2.5-pro", 500, true},
		{"model's window", 0, 0.5, "gemini-2.0-flash-preview-image", 15_999, false},
		{"model's window reached", 0, 0.5, "gemini-2.0-flash-preview-image", 16_000, true},
		{"default window", 0, 0.5, "gemini-2.5-pro", 500_000, false},
		// TokenLimitFor below gives local/small 2,000 tokens.
		{"provider model's window", 0, 0.5, "local/small", 999, false},
		{"provider model's window reached", 0, 0.5, "local/small", 1000, true},
		// pairs(10) is 2000 characters, 500 tokens.
		{"estimated from history", 1000, 0.5, "gemini-2.5-pro", 0, true},
		{"estimate below", 1001, 0.5, "gemini-2.5-pro", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &summariser{scripted: &scripted{summary: "<state_snapshot>s</state_snapshot>"}}
			windows := func(name string) int { return map[string]int{"local/small": 2000}[name] }
			s := New(Config{Model: m, ModelName: tt.modelName, History: pairs(10), TokenLimit: tt.limit, TokenLimitFor: windows, CompressionThreshold: tt.threshold})
			s.lastPrompt = tt.lastPrompt
			var evs []*Event
			s.newRun(context.Background(), func(ev *Event, _ error) bool {
				evs = append(evs, ev)
				return true
			}).maybeCompress()
			if got := len(m.calls) > 0; got != tt.want {
				t.Fatalf("compressed = %v, want %v (events %s)", got, tt.want, mustJSON(evs))
			}
		})
	}
}

// TestCompressKeepsTail: the entries before the split point go to the
// model with the snapshot instruction; history becomes the summary (from
// its <state_snapshot> tag on), the acknowledgement and the entries from
// the split point on; the counts say what was there and what is left.
func TestCompressKeepsTail(t *testing.T) {
	hist := pairs(10)
	m := &summariser{scripted: &scripted{summary: "  thinking...\n<state_snapshot>goal</state_snapshot>\n"}}
	s := New(Config{Model: m, ModelName: "gemini-2.5-pro", History: hist})
	s.lastPrompt = 900
	info, err := s.Compress(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	const summary = "<state_snapshot>goal</state_snapshot>"
	// Summary, acknowledgement and the last 6 entries (600 characters).
	wantNew := int32((len(summary) + len(compressionAck) + 600) / 4)
	if info.Status != "COMPRESSED" || info.OriginalTokens != 900 || info.NewTokens != wantNew {
		t.Errorf("info = %+v, want COMPRESSED 900 → %d", info, wantNew)
	}
	if len(m.calls) != 1 {
		t.Fatalf("%d summary calls", len(m.calls))
	}
	sent := m.calls[0].Contents
	if len(sent) != 15 || mustJSON(sent[:14]) != mustJSON(hist[:14]) || !strings.Contains(sent[14].Parts[0].Text, "<state_snapshot>") {
		t.Errorf("sent %d entries, last %s; want history's first 14 and the instruction", len(sent), mustJSON(sent[len(sent)-1]))
	}
	if si := m.calls[0].Config.SystemInstruction; si == nil || si.Parts[0].Text != compressionPrompt {
		t.Errorf("system instruction = %s", mustJSON(si))
	}
	got := s.History()
	if len(got) != 8 || got[0].Parts[0].Text != summary || got[0].Role != genai.RoleUser ||
		got[1].Parts[0].Text != compressionAck || got[1].Role != genai.RoleModel {
		t.Fatalf("history = %d entries, head %s", len(got), mustJSON(got[:min(2, len(got))]))
	}
	for i, c := range got[2:] {
		if mustJSON(c) != mustJSON(hist[14+i]) {
			t.Errorf("kept entry %d = %s, want history's entry %d", i, mustJSON(c), 14+i)
		}
	}
	if s.lastPrompt != wantNew {
		t.Errorf("lastPrompt = %d, want the new estimate %d", s.lastPrompt, wantNew)
	}
}

// TestCompressOutcomes: what is left as it was, and why.
func TestCompressOutcomes(t *testing.T) {
	const summary = "<state_snapshot>s</state_snapshot>"
	// pairs(10) compresses to the summary, the acknowledgement and 600
	// characters.
	newTokens := int32((len(summary) + len(compressionAck) + 600) / 4)
	tests := []struct {
		name       string
		hist       []*genai.Content
		summary    string
		lastPrompt int32
		status     string
		err        error
	}{
		// (New joins adjacent user entries, so the first is the model's.)
		{"split at the second entry", []*genai.Content{reply(1000), user(10)}, summary, 900, "", ErrNothingToCompress},
		{"no split", []*genai.Content{user(1000), reply(10)}, summary, 900, "", ErrNothingToCompress},
		{"as big as before", pairs(10), summary, newTokens, "COMPRESSION_FAILED_INFLATED_TOKEN_COUNT", nil},
		{"one token smaller", pairs(10), summary, newTokens + 1, "COMPRESSED", nil},
		{"blank summary", pairs(10), " \n ", 900, "COMPRESSION_FAILED_EMPTY_SUMMARY", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &summariser{scripted: &scripted{summary: tt.summary}}
			obs := &recordingObserver{}
			s := New(Config{Model: m, ModelName: "gemini-2.5-pro", History: tt.hist, SessionID: "s1", Observer: obs})
			s.lastPrompt = tt.lastPrompt
			info, err := s.Compress(context.Background())
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if tt.err != nil {
				if len(m.calls) != 0 {
					t.Errorf("the model was asked for a summary")
				}
				return
			}
			if info.Status != tt.status || info.OriginalTokens != tt.lastPrompt {
				t.Fatalf("info = %+v, want %s", info, tt.status)
			}
			if n := len(s.History()); (tt.status == "COMPRESSED") != (n < len(tt.hist)) {
				t.Errorf("%s left %d of %d entries", tt.status, n, len(tt.hist))
			}
			// Told as Gemini CLI logs chat_compression: an empty summary
			// saved nothing.
			after := info.NewTokens
			if tt.status == "COMPRESSION_FAILED_EMPTY_SUMMARY" {
				after = tt.lastPrompt
			}
			if want := fmt.Sprintf("compressed s1 %d->%d %s", tt.lastPrompt, after, tt.status); !slices.Contains(obs.lines, want) {
				t.Errorf("observed %q, want the line %q", obs.lines, want)
			}
		})
	}
}

// unmetered answers each prompt with about 2,000 new characters and
// reports no usage, as some OpenAI-compatible servers do; its unary
// calls are summaries.
type unmetered struct{ summaries, n int }

func (m *unmetered) GenerateContent(context.Context, *model.Request) (*genai.GenerateContentResponse, error) {
	m.summaries++
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText("<state_snapshot>s</state_snapshot>", genai.RoleModel), FinishReason: genai.FinishReasonStop}}}, nil
}

func (m *unmetered) GenerateContentStream(context.Context, *model.Request) iter.Seq2[*genai.GenerateContentResponse, error] {
	return func(yield func(*genai.GenerateContentResponse, error) bool) {
		m.n++
		var b strings.Builder
		for j := 0; b.Len() < 2000; j++ {
			fmt.Fprintf(&b, "Paragraph %d of answer %d says something new. ", j, m.n)
		}
		yield(&genai.GenerateContentResponse{Candidates: []*genai.Candidate{{Content: genai.NewContentFromText(b.String(), genai.RoleModel), FinishReason: genai.FinishReasonStop}}}, nil)
	}
}

func (m *unmetered) CountTokens(context.Context, *model.Request) (int32, error) { return 0, nil }

// TestCompressWithoutUsage: a model that reports no usage has its history
// compressed each time the estimate passes the threshold, not once: the
// size the last compression left is not taken for the size ever after.
func TestCompressWithoutUsage(t *testing.T) {
	m := &unmetered{}
	s := New(Config{Model: m, ModelName: "local/model", TokenLimit: 20000})
	for range 100 {
		if _, err := collect(t, s.Send(context.Background(), genai.NewPartFromText("go on"))); err != nil {
			t.Fatal(err)
		}
	}
	// 100 answers of 500 tokens pass half of a 20,000-token window
	// about every 14 prompts once the first summary kept 30 %.
	if m.summaries < 4 {
		t.Errorf("history summarised %d times over 100 prompts", m.summaries)
	}
	if n := estimateTokens(s.History()); n >= 10000+600 {
		t.Errorf("history holds ~%d tokens, past half the window", n)
	}
}
