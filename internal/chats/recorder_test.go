package chats

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/genai"
)

const goldenSessionID = "3f8a2c1e-5b7d-4e9f-a0c1-2d3e4f5a6b7c"

// recordSample plays a short conversation with one tool call through a
// Recorder, the way the engine drives it.
func recordSample(t *testing.T, s *Store) *Recorder {
	t.Helper()
	r, err := s.Create(goldenSessionID, CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RecordUser("", []*genai.Part{{Text: "Read go.mod <please> & summarise"}}, "Read @go.mod <please> & summarise"); err != nil {
		t.Fatal(err)
	}
	modelID, err := r.RecordModel(Message{
		Content: []*genai.Part{
			{Text: "Reasoning about go.mod", Thought: true},
			{Text: "I'll read it."},
			{FunctionCall: &genai.FunctionCall{ID: "call-1", Name: "read_file", Args: map[string]any{"file_path": "go.mod"}}, ThoughtSignature: []byte("sig-1")},
		},
		Thoughts: []Thought{{Subject: "Reading", Description: "The module file answers this."}},
		Tokens:   &Tokens{Input: 100, Output: 20, Cached: 0, Thoughts: 7, Tool: 0, Total: 127},
		Model:    "gemini-2.5-pro",
	})
	if err != nil {
		t.Fatal(err)
	}
	err = r.UpdateToolCalls(modelID, []ToolCallRecord{{
		ID:   "call-1",
		Name: "read_file",
		Args: map[string]any{"file_path": "go.mod"},
		Result: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{
			ID: "call-1", Name: "read_file", Response: map[string]any{"output": "module example.com/x\n\ngo 1.26\n"},
		}}},
		Status:                 StatusSuccess,
		ResultDisplay:          "",
		DisplayName:            "ReadFile",
		Description:            "go.mod",
		RenderOutputAsMarkdown: true,
	}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RecordModel(Message{
		Content: []*genai.Part{{Text: "It declares module example.com/x for Go 1.26."}},
		Tokens:  &Tokens{Input: 150, Output: 12, Total: 162},
		Model:   "gemini-2.5-pro",
	}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.RecordWarning("Loop detection is off."); err != nil {
		t.Fatal(err)
	}
	if err := r.SetSummary("Summarise go.mod"); err != nil {
		t.Fatal(err)
	}
	return r
}

var (
	isoTime = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z`)
	seqID   = regexp.MustCompile(`msg-\d{4}`)
)

// normalise hides timestamps and generated ids so that the golden file
// pins the format, not the clock.
func normalise(b []byte) []byte {
	b = isoTime.ReplaceAll(b, []byte("<TIME>"))
	return seqID.ReplaceAll(b, []byte("<ID>"))
}

func TestRecorderGolden(t *testing.T) {
	s := testStore(t, "2026-08-21T10:00:00Z")
	r := recordSample(t, s)
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	if got, want := filepath.Base(r.Path()), "session-2026-08-21T10-00-3f8a2c1e.jsonl"; got != want {
		t.Errorf("file name = %s, want %s", got, want)
	}
	data, err := os.ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		if !json.Valid(line) {
			t.Errorf("line %d is not JSON: %s", i+1, line)
		}
	}
	assertGolden(t, "recorded.golden.jsonl", normalise(data))

	c, err := LoadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	assertGolden(t, "recorded.history.golden.json", append(mustIndent(t, c.History()), '\n'))
	if c.Summary != "Summarise go.mod" || len(c.Messages) != 4 {
		t.Errorf("reloaded summary %q, %d messages", c.Summary, len(c.Messages))
	}
}

func mustIndent(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
}

func TestRecorderRoundTrip(t *testing.T) {
	s := testStore(t, "2026-08-21T10:00:00Z")
	r := recordSample(t, s)
	live := r.Conversation()
	r.Close()
	loaded, err := LoadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	// What the recorder holds in memory and what a reader gets from disk
	// must agree, or a resumed session would differ from the live one.
	assertJSONEqual(t, mustMarshal(t, loaded.History()), mustMarshal(t, live.History()))
	if len(loaded.Messages) != len(live.Messages) {
		t.Fatalf("loaded %d messages, recorded %d", len(loaded.Messages), len(live.Messages))
	}
	tc := loaded.Messages[1].ToolCalls[0]
	if string(tc.ThoughtSignature) != "sig-1" || tc.DisplayName != "ReadFile" {
		t.Errorf("tool call after reload: %+v", tc)
	}
}

func TestRecorderCapsToolOutput(t *testing.T) {
	s := testStore(t, "2026-08-21T10:00:00Z")
	r, err := s.Create("", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	big := strings.Repeat("é", MaxToolOutputSize) // two bytes per rune
	id, err := r.RecordModel(Message{Model: "m"})
	if err != nil {
		t.Fatal(err)
	}
	result := []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c", Name: "shell", Response: map[string]any{"output": big}}}}
	display := map[string]any{"fileDiff": big}
	if err := r.UpdateToolCalls(id, []ToolCallRecord{{ID: "c", Name: "shell", Result: result, ResultDisplay: display, Status: StatusSuccess}}); err != nil {
		t.Fatal(err)
	}
	if result[0].FunctionResponse.Response["output"] != big || display["fileDiff"] != big {
		t.Fatal("capping modified the caller's values")
	}
	c, err := LoadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	tc := c.Messages[0].ToolCalls[0]
	out := tc.Result[0].FunctionResponse.Response["output"].(string)
	if len(out) > MaxToolOutputSize+100 || !strings.Contains(out, "[truncated:") {
		t.Errorf("stored output is %d bytes, not capped", len(out))
	}
	if !strings.HasPrefix(out, "éé") || strings.Contains(out, "\ufffd") {
		t.Error("cap split a rune")
	}
	if d := tc.ResultDisplay.(map[string]any)["fileDiff"].(string); len(d) > MaxToolOutputSize+100 {
		t.Errorf("stored display is %d bytes, not capped", len(d))
	}
}

func TestRecorderUpdateToolCallsTargets(t *testing.T) {
	call := ToolCallRecord{ID: "c1", Name: "ls", Status: StatusSuccess}
	tests := []struct {
		name      string
		setup     func(r *Recorder) string // returns the id to update
		wantErr   bool
		wantMsgs  int
		wantOnIdx int
	}{
		{"explicit id", func(r *Recorder) string {
			id, _ := r.RecordModel(Message{Content: textParts("a")})
			r.RecordUser("", textParts("b"), "")
			return id
		}, false, 2, 0},
		{"empty id uses last model message", func(r *Recorder) string {
			r.RecordUser("", textParts("q"), "")
			r.RecordModel(Message{Content: textParts("a")})
			return ""
		}, false, 2, 1},
		{"empty id after user message creates one", func(r *Recorder) string {
			r.RecordUser("", textParts("q"), "")
			return ""
		}, false, 2, 1},
		{"unknown id", func(r *Recorder) string { return "nope" }, true, 0, 0},
		{"user message id", func(r *Recorder) string {
			id, _ := r.RecordUser("", textParts("q"), "")
			return id
		}, true, 1, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := testStore(t, "2026-08-21T10:00:00Z")
			r, err := s.Create("", CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			defer r.Close()
			id := tt.setup(r)
			err = r.UpdateToolCalls(id, []ToolCallRecord{call})
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, wantErr %v", err, tt.wantErr)
			}
			if tt.wantMsgs == 0 {
				// Nothing recorded: the session never got a file.
				if _, err := os.Stat(r.Path()); !errors.Is(err, fs.ErrNotExist) {
					t.Errorf("session file after no record: %v", err)
				}
				return
			}
			c, err := LoadFile(r.Path())
			if err != nil {
				t.Fatal(err)
			}
			if len(c.Messages) != tt.wantMsgs {
				t.Fatalf("%d messages, want %d", len(c.Messages), tt.wantMsgs)
			}
			if !tt.wantErr && len(c.Messages[tt.wantOnIdx].ToolCalls) != 1 {
				t.Errorf("tool call not on message %d", tt.wantOnIdx)
			}
		})
	}
}

func TestRecorderRewind(t *testing.T) {
	s := testStore(t, "2026-08-21T10:00:00Z")
	r, err := s.Create("", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	r.RecordUser("", textParts("one"), "")
	id2, _ := r.RecordUser("", textParts("two"), "")
	r.RecordModel(Message{Content: textParts("reply")})
	if err := r.RewindTo(id2); err != nil {
		t.Fatal(err)
	}
	r.RecordUser("", textParts("three"), "")
	c, err := LoadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, m := range c.Messages {
		got = append(got, textOf(m.Content))
	}
	if strings.Join(got, ",") != "one,three" {
		t.Errorf("after rewind: %v", got)
	}
	if live := r.Conversation(); len(live.Messages) != 2 {
		t.Errorf("live conversation has %d messages", len(live.Messages))
	}
	if err := r.RewindTo("missing"); err == nil {
		t.Error("rewind to unknown id succeeded")
	}
}

func TestRecorderConcurrent(t *testing.T) {
	s := testStore(t, "2026-08-21T10:00:00Z")
	r, err := s.Create("", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	const n = 50
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := r.RecordInfo(fmt.Sprintf("notice %d %s", i, strings.Repeat("x", 5000))); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	r.Close()
	if _, err := r.RecordInfo("late"); err != ErrClosed {
		t.Errorf("after Close: %v", err)
	}
	data, err := os.ReadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	if len(lines) != 1+2*n {
		t.Errorf("%d lines, want %d", len(lines), 1+2*n)
	}
	for i, l := range lines {
		if !json.Valid(l) {
			t.Fatalf("line %d interleaved or torn", i+1)
		}
	}
	c, err := LoadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Messages) != n {
		t.Errorf("%d messages, want %d", len(c.Messages), n)
	}
}

func TestCreateRejectsClash(t *testing.T) {
	s := testStore(t, "2026-08-21T10:00:00Z")
	fixed := newFakeClock("2026-08-21T10:00:00Z").t
	s.now = func() time.Time { return fixed }
	r, err := s.Create("abcdefgh-1", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.RecordUser("", textParts("hi"), ""); err != nil {
		t.Fatal(err)
	}
	r.Close()
	if _, err := s.Create("abcdefgh-1", CreateOptions{}); err == nil {
		t.Error("second session with the same id and file name was created")
	}
	// Two sessions of one id started together both pass Create; the
	// second to record is refused rather than merged into the first one's
	// file. (Ids that only share their first 8 characters get two files:
	// TestIDsSharingAPrefix.)
	a, err := s.Create("ijklmnop-1", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := s.Create("ijklmnop-1", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	if _, err := a.RecordUser("", textParts("first"), ""); err != nil {
		t.Fatal(err)
	}
	if _, err := b.RecordUser("", textParts("second"), ""); err == nil {
		t.Error("second session recorded into the first one's file")
	}
	if c, err := LoadFile(a.Path()); err != nil || c.SessionID != "ijklmnop-1" || len(c.Messages) != 1 {
		t.Errorf("first session's file: %+v, %v", c, err)
	}
}

// TestCreateDefersFile checks that a session leaves no file until its
// first record, even with metadata set, and that the first record then
// writes the header, the metadata and the message together.
func TestCreateDefersFile(t *testing.T) {
	for _, kind := range []string{"main", "subagent"} {
		t.Run(kind, func(t *testing.T) {
			s := testStore(t, "2026-08-21T10:00:00Z")
			r, err := s.Create("sess-1", CreateOptions{Kind: kind, ParentSessionID: "p"})
			if err != nil {
				t.Fatal(err)
			}
			if err := r.SetSummary("a summary"); err != nil {
				t.Fatal(err)
			}
			if err := r.SetDirectories([]string{"/w"}); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(r.Path()); !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("file before the first record: %v", err)
			}
			if _, err := r.RecordUser("", textParts("hello"), ""); err != nil {
				t.Fatal(err)
			}
			c, err := LoadFile(r.Path())
			if err != nil {
				t.Fatal(err)
			}
			if c.SessionID != "sess-1" || c.Summary != "a summary" || len(c.Directories) != 1 || len(c.Messages) != 1 {
				t.Errorf("loaded %+v", c)
			}
			if err := r.Close(); err != nil {
				t.Fatal(err)
			}

			unused, err := s.Create("sess-2", CreateOptions{Kind: kind, ParentSessionID: "p"})
			if err != nil {
				t.Fatal(err)
			}
			if err := unused.Close(); err != nil {
				t.Fatal(err)
			}
			if _, err := os.Stat(unused.Path()); !errors.Is(err, fs.ErrNotExist) {
				t.Errorf("a session closed without a record left %s: %v", unused.Path(), err)
			}
		})
	}
}

func TestCreateSubagent(t *testing.T) {
	s := testStore(t, "2026-08-21T10:00:00Z")
	r, err := s.Create("child-1", CreateOptions{Kind: "subagent", ParentSessionID: "parent/1", Directories: []string{"/w"}})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if want := filepath.Join(s.Dir(), "parent_1", "child-1.jsonl"); r.Path() != want {
		t.Errorf("path = %s, want %s", r.Path(), want)
	}
	if _, err := r.RecordInfo("started"); err != nil {
		t.Fatal(err)
	}
	c, err := LoadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if c.Kind != "subagent" || len(c.Directories) != 1 {
		t.Errorf("header: %+v", c)
	}
}

// TestRecorderSurvivesAbruptExit records from a child process that exits
// without closing anything, as a kill would leave it; every record made
// before the exit must load.
func TestRecorderSurvivesAbruptExit(t *testing.T) {
	if dir := os.Getenv("CHATS_CRASH_DIR"); dir != "" {
		s := NewStore(dir, "h")
		r, err := s.Create("crash-session", CreateOptions{})
		if err != nil {
			os.Exit(3)
		}
		r.RecordUser("", textParts("before the crash"), "")
		id, _ := r.RecordModel(Message{Content: textParts("partial")})
		r.UpdateToolCalls(id, []ToolCallRecord{{ID: "c", Name: "t", Status: StatusSuccess,
			Result: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c", Name: "t", Response: map[string]any{"output": "ok"}}}}}})
		os.Exit(0)
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestRecorderSurvivesAbruptExit$")
	cmd.Env = append(os.Environ(), "CHATS_CRASH_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("child: %v\n%s", err, out)
	}
	infos, err := NewStore(dir, "h").List()
	if err != nil || len(infos) != 1 {
		t.Fatalf("List = %v, %v", infos, err)
	}
	c, err := LoadFile(infos[0].Path)
	if err != nil {
		t.Fatal(err)
	}
	if h := c.History(); len(h) != 3 {
		t.Errorf("history after crash has %d contents, want 3", len(h))
	}
}

// TestSetCost: the session's cost is kept in the file, the last one set
// winning, and read back for a resumed session's budget, as are a
// message's cache writes.
func TestSetCost(t *testing.T) {
	s := testStore(t, "2026-08-21T10:00:00Z")
	r := recordSample(t, s)
	if _, err := r.RecordModel(Message{Content: []*genai.Part{{Text: "cached"}}, Tokens: &Tokens{Input: 10, CacheWrite: 7, Total: 10}, Model: "anthropic/claude-x"}); err != nil {
		t.Fatal(err)
	}
	for _, usd := range []float64{0.25, 0.5} {
		if err := r.SetCost(usd); err != nil {
			t.Fatal(err)
		}
	}
	if err := r.Close(); err != nil {
		t.Fatal(err)
	}
	conv, err := LoadFile(r.Path())
	if err != nil {
		t.Fatal(err)
	}
	if conv.CostUSD != 0.5 || len(conv.Messages) == 0 {
		t.Fatalf("cost %v over %d messages, want 0.5", conv.CostUSD, len(conv.Messages))
	}
	if tok := conv.Messages[len(conv.Messages)-1].Tokens; tok == nil || tok.CacheWrite != 7 {
		t.Errorf("cache writes recorded as %+v, want 7", tok)
	}
}

// TestRecorderSyncsWhenATurnEnds: every record is in the file when its
// call returns (another process reading it, or this one killed, finds
// it), but the file is fsynced only when a turn ends (a response that
// calls no tool, an error), at a rewind and at Close, once for all the
// writes since the last sync.
func TestRecorderSyncsWhenATurnEnds(t *testing.T) {
	s := testStore(t, "2026-12-07T10:00:00Z")
	r, err := s.Create("sync-session", CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	syncs := 0
	r.fsync = func(f *os.File) error { syncs++; return f.Sync() }
	call := &genai.FunctionCall{ID: "c1", Name: "read_file", Args: map[string]any{"file_path": "a"}}
	var modelID, userID string
	for _, step := range []struct {
		name  string
		do    func() error
		wrote string // in the file once do returned, "" for nothing new
		syncs int    // syncs so far
	}{
		{"prompt", func() (err error) {
			userID, err = r.RecordUser("", textParts("first prompt"), "")
			return err
		}, "first prompt", 0},
		{"response calling a tool", func() (err error) {
			modelID, err = r.RecordModel(Message{Content: []*genai.Part{{Text: "reading"}, {FunctionCall: call}}})
			return err
		}, "reading", 0},
		{"the call's result", func() error {
			return r.UpdateToolCalls(modelID, []ToolCallRecord{{ID: "c1", Name: "read_file", Status: StatusSuccess,
				Result: []*genai.Part{{FunctionResponse: &genai.FunctionResponse{ID: "c1", Name: "read_file", Response: map[string]any{"output": "file a"}}}}}})
		}, "file a", 0},
		{"the cost", func() error { return r.SetCost(0.125) }, "0.125", 0},
		{"the turn's last response", func() error {
			_, err := r.RecordModel(Message{Content: textParts("the answer")})
			return err
		}, "the answer", 1},
		{"nothing new to sync", r.Sync, "", 1},
		{"next prompt", func() error { _, err := r.RecordUser("", textParts("second prompt"), ""); return err }, "second prompt", 1},
		{"an error ends the turn", func() error { _, err := r.RecordError("quota exceeded"); return err }, "quota exceeded", 2},
		{"an info line", func() error { _, err := r.RecordInfo("a notice"); return err }, "a notice", 2},
		{"a rewind", func() error { return r.RewindTo(userID) }, "$rewindTo", 3},
		{"a prompt after it", func() error { _, err := r.RecordUser("", textParts("third prompt"), ""); return err }, "third prompt", 3},
		{"close", r.Close, "", 4},
	} {
		before, _ := os.ReadFile(r.Path())
		if err := step.do(); err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		after, err := os.ReadFile(r.Path())
		if err != nil {
			t.Fatalf("%s: %v", step.name, err)
		}
		if news := string(after[len(before):]); step.wrote != "" && !strings.Contains(news, step.wrote) {
			t.Errorf("%s: the file did not get %q on return: %q", step.name, step.wrote, news)
		}
		if syncs != step.syncs {
			t.Errorf("%s: %d syncs so far, want %d", step.name, syncs, step.syncs)
		}
	}
	if err := r.Sync(); !errors.Is(err, ErrClosed) {
		t.Errorf("Sync after Close: %v", err)
	}
}
