package chats

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"google.golang.org/genai"
)

// The fixtures were written by hand in Gemini CLI's format (see doc.go);
// the expected histories follow Gemini CLI's convertSessionToClientHistory.
func TestLoadGeminiCLIFiles(t *testing.T) {
	tests := []struct {
		file        string
		history     string
		sessionID   string
		summary     string
		messageIDs  []string
		lastUpdated string
	}{
		{
			// Header, $set checkpoint with injected context, a model message
			// re-appended with its tool results, the duplicate function
			// response newer Gemini CLI records, notices, a slash command, a
			// rewind, a summary patch and a torn last line.
			file:      "gemini-cli-session.jsonl",
			history:   "gemini-cli-session.history.json",
			sessionID: "7c9e6679-7425-40de-944b-e07fc1f90ae7",
			summary:   "List Go files and explain main.go",
			messageIDs: []string{
				"0f1e2d3c-ctx", "a1b2c3d4-u1", "a1b2c3d4-g1", "a1b2c3d4-u2", "a1b2c3d4-g2",
				"a1b2c3d4-i1", "a1b2c3d4-u3", "a1b2c3d4-u5", "a1b2c3d4-g4",
			},
			lastUpdated: "2026-08-20T09:16:02.001Z",
		},
		{
			// Pre-JSONL single pretty-printed object, string contents and a
			// string tool result.
			file:        "legacy-session.json",
			history:     "legacy-session.history.json",
			sessionID:   "0a1b2c3d-1111-4222-8333-944455556666",
			summary:     "List files and inspect an image",
			messageIDs:  []string{"l-u1", "l-g1", "l-g2", "l-u2", "l-g3"},
			lastUpdated: "2025-11-02T14:03:00.000Z",
		},
		{
			// Content holding functionCall parts and thought signatures,
			// including Gemini CLI's non-base64 synthetic signature.
			file:        "gemini-cli-modern.jsonl",
			history:     "gemini-cli-modern.history.json",
			sessionID:   "5d6e7f80-2222-4333-8444-a55566667777",
			messageIDs:  []string{"m-u1", "m-g1", "m-u2", "m-g2", "m-i1", "m-g3"},
			lastUpdated: "2026-08-21T08:00:00.000Z",
		},
	}
	for _, tt := range tests {
		t.Run(tt.file, func(t *testing.T) {
			c, err := LoadFile(filepath.Join("testdata", tt.file))
			if err != nil {
				t.Fatal(err)
			}
			if c.SessionID != tt.sessionID {
				t.Errorf("SessionID = %q, want %q", c.SessionID, tt.sessionID)
			}
			if c.Summary != tt.summary {
				t.Errorf("Summary = %q, want %q", c.Summary, tt.summary)
			}
			if got := formatTime(c.LastUpdated); got != tt.lastUpdated {
				t.Errorf("LastUpdated = %s, want %s", got, tt.lastUpdated)
			}
			var ids []string
			for _, m := range c.Messages {
				ids = append(ids, m.ID)
			}
			if !slices.Equal(ids, tt.messageIDs) {
				t.Errorf("message ids = %v, want %v", ids, tt.messageIDs)
			}
			want, err := os.ReadFile(filepath.Join("testdata", tt.history))
			if err != nil {
				t.Fatal(err)
			}
			assertJSONEqual(t, mustMarshal(t, c.History()), want)
		})
	}
}

func TestLoadDetails(t *testing.T) {
	c, err := LoadFile(filepath.Join("testdata", "gemini-cli-session.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	g1 := c.Messages[2]
	if len(g1.ToolCalls) != 2 || g1.ToolCalls[0].DisplayName != "FindFiles" || g1.ToolCalls[1].Status != StatusSuccess {
		t.Errorf("tool calls of re-appended message not loaded: %+v", g1.ToolCalls)
	}
	if g1.Tokens == nil || *g1.Tokens != (Tokens{Input: 812, Output: 41, Thoughts: 120, Total: 973}) {
		t.Errorf("tokens = %+v", g1.Tokens)
	}
	if len(g1.Thoughts) != 1 || g1.Thoughts[0].Subject != "Planning" {
		t.Errorf("thoughts = %+v", g1.Thoughts)
	}
	if got := textOf(c.Messages[1].DisplayContent); got != "List the Go files and read @main.go" {
		t.Errorf("displayContent = %q", got)
	}
	if c.Kind != "main" || c.ProjectHash == "" {
		t.Errorf("header fields: kind %q hash %q", c.Kind, c.ProjectHash)
	}
}

func TestParseTolerance(t *testing.T) {
	const hdr = `{"sessionId":"s1","projectHash":"h","startTime":"2026-01-01T00:00:00.000Z","lastUpdated":"2026-01-01T00:00:00.000Z"}`
	const user = `{"id":"u1","timestamp":"2026-01-01T00:00:01.000Z","type":"user","content":[{"text":"hi"}]}`
	tests := []struct {
		name    string
		data    string
		wantErr error
		wantIDs []string
	}{
		{"complete", hdr + "\n" + user + "\n", nil, []string{"u1"}},
		{"no final newline", hdr + "\n" + user, nil, []string{"u1"}},
		{"torn last line", hdr + "\n" + user + "\n" + user[:30], nil, []string{"u1"}},
		{"torn header only", hdr[:20], ErrNotSession, nil},
		{"crlf", hdr + "\r\n" + user + "\r\n", nil, []string{"u1"}},
		{"garbage between", hdr + "\nnot json\n[1,2]\nnull\n" + user + "\n", nil, []string{"u1"}},
		{"empty", "", ErrNotSession, nil},
		{"header without project hash", `{"sessionId":"s1"}` + "\n" + user, ErrNotSession, nil},
		{"unknown rewind clears", hdr + "\n" + user + "\n" + `{"$rewindTo":"nope"}` + "\n", nil, nil},
		{"bad field types keep message", hdr + "\n" + `{"id":"u1","timestamp":5,"type":"user","content":{"text":"hi"},"toolCalls":"x"}`, nil, []string{"u1"}},
		{"checkpoint replaces", hdr + "\n" + user + "\n" + `{"$set":{"messages":[{"id":"c1","type":"user","content":"x"}]}}`, nil, []string{"c1"}},
	}
	// The lines each file has that are not whole records.
	skipped := map[string][]int{"torn last line": {3}, "garbage between": {2, 3, 4}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := Parse([]byte(tt.data))
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if err != nil {
				return
			}
			var ids []string
			for _, m := range c.Messages {
				ids = append(ids, m.ID)
			}
			if !slices.Equal(ids, tt.wantIDs) {
				t.Errorf("ids = %v, want %v", ids, tt.wantIDs)
			}
			if want := skipped[tt.name]; !slices.Equal(c.Skipped, want) {
				t.Errorf("skipped lines %v, want %v", c.Skipped, want)
			}
		})
	}
}

func TestSkippedNotice(t *testing.T) {
	tests := []struct {
		lines []int
		want  string
	}{
		{nil, ""},
		{[]int{7}, "session file /s.jsonl: line 7 is not a whole record (cut short by a crash?) and was skipped"},
		{[]int{2, 9}, "session file /s.jsonl: lines 2, 9 are not whole records (cut short by a crash?) and were skipped"},
		{[]int{1, 2, 3, 4, 5, 6, 7}, "session file /s.jsonl: lines 1, 2, 3, 4, 5 and 2 more are not whole records (cut short by a crash?) and were skipped"},
	}
	for _, tt := range tests {
		c := &Conversation{Skipped: tt.lines}
		if got := c.SkippedNotice("/s.jsonl"); got != tt.want {
			t.Errorf("SkippedNotice(%v) = %q, want %q", tt.lines, got, tt.want)
		}
	}
}

func TestHistoryRules(t *testing.T) {
	text := func(s string) []*genai.Part { return []*genai.Part{{Text: s}} }
	fr := func(id string) *genai.Part {
		return &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: id, Name: "t", Response: map[string]any{"output": id}}}
	}
	tests := []struct {
		name  string
		msgs  []Message
		roles string // one letter per content: u or m
	}{
		{"notices skipped", []Message{
			{Type: TypeInfo, Content: text("i")}, {Type: TypeWarning, Content: text("w")},
			{Type: TypeError, Content: text("e")}, {Type: TypeUser, Content: text("q")},
		}, "u"},
		{"commands and context skipped", []Message{
			{Type: TypeUser, Content: text("/clear")}, {Type: TypeUser, Content: text("  ?help")},
			{Type: TypeUser, Content: text("<hook_context>x</hook_context>")}, {Type: TypeUser, Content: text("  ")},
		}, ""},
		{"empty model message skipped with its calls", []Message{
			{Type: TypeUser, Content: text("q")},
			{Type: TypeGemini, Thoughts: []Thought{{Subject: "s"}}},
		}, "u"},
		{"call without result not replayed", []Message{
			{Type: TypeUser, Content: text("q")},
			{Type: TypeGemini, Content: text("a"), ToolCalls: []ToolCallRecord{{ID: "c1", Name: "t"}}},
		}, "um"},
		{"whole-turn results on every call sent once", []Message{
			{Type: TypeGemini, Content: text("a"), ToolCalls: []ToolCallRecord{
				{ID: "c1", Name: "t", Result: []*genai.Part{fr("c1"), fr("c2")}},
				{ID: "c2", Name: "t", Result: []*genai.Part{fr("c1"), fr("c2")}},
			}},
			{Type: TypeUser, Content: []*genai.Part{fr("c1"), fr("c2")}},
		}, "mu"},
		{"new function responses kept", []Message{
			{Type: TypeGemini, Content: text("a"), ToolCalls: []ToolCallRecord{{ID: "c1", Name: "t", Result: []*genai.Part{fr("c1")}}}},
			{Type: TypeUser, Content: []*genai.Part{fr("c1"), fr("c2")}},
		}, "muu"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Conversation{Messages: tt.msgs}
			var roles strings.Builder
			for _, h := range c.History() {
				roles.WriteString(h.Role[:1])
			}
			if roles.String() != tt.roles {
				t.Errorf("roles = %q, want %q", roles.String(), tt.roles)
			}
		})
	}
}

func TestHistoryDedupesWholeTurnResults(t *testing.T) {
	fr := func(id string) *genai.Part {
		return &genai.Part{FunctionResponse: &genai.FunctionResponse{ID: id, Name: "t"}}
	}
	both := []*genai.Part{fr("c1"), fr("c2")}
	c := &Conversation{Messages: []Message{{Type: TypeGemini, ToolCalls: []ToolCallRecord{
		{ID: "c1", Name: "t", Result: both}, {ID: "c2", Name: "t", Result: both},
	}}}}
	h := c.History()
	if len(h) != 2 || len(h[0].Parts) != 2 || len(h[1].Parts) != 2 {
		t.Fatalf("history = %s", mustMarshal(t, h))
	}
	if h[1].Parts[0].FunctionResponse.ID != "c1" || h[1].Parts[1].FunctionResponse.ID != "c2" {
		t.Errorf("responses out of call order: %s", mustMarshal(t, h[1]))
	}
}

func TestSignatureDecoding(t *testing.T) {
	tests := []struct{ in, out string }{
		{"c2ln", "sig"},
		{"c2lnMQ", "sig1"},   // unpadded
		{"-_8=", "\xfb\xff"}, // URL alphabet
		{"not base64!", "not base64!"},
	}
	for _, tt := range tests {
		if got := string(decodeSignature(tt.in)); got != tt.out {
			t.Errorf("decodeSignature(%q) = %q, want %q", tt.in, got, tt.out)
		}
	}
}

func TestParseTimeForms(t *testing.T) {
	tests := []struct {
		in   string
		want time.Time
	}{
		{"2026-08-20T09:15:02.311Z", time.Date(2026, 8, 20, 9, 15, 2, 311e6, time.UTC)},
		{"2026-08-20T09:15:02Z", time.Date(2026, 8, 20, 9, 15, 2, 0, time.UTC)},
		{"garbage", time.Time{}},
	}
	for _, tt := range tests {
		if got := parseTime(tt.in); !got.Equal(tt.want) {
			t.Errorf("parseTime(%q) = %v, want %v", tt.in, got, tt.want)
		}
	}
}
