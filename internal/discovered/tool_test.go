package discovered

import (
	"context"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/tool"
)

// TestCall runs the call command for calls that succeed and fail in
// each way Gemini CLI reports.
func TestCall(t *testing.T) {
	tools, _, err := discover(t, "mixed")
	if err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry()
	for _, tt := range tools {
		reg.Register(tt)
	}
	// Tools the discovery command did not declare, to reach the call
	// script's other branches.
	for _, name := range []string{"warn", "signal", "missing", "huge"} {
		reg.Register(&Tool{decl: Declaration{Name: name, Schema: map[string]any{}}, call: []string{"./call.sh"}, dir: testdataDir(t)})
	}

	tests := []struct {
		name    string
		tool    string
		args    map[string]any
		want    string
		errType tool.ErrorType
	}{
		{"args on stdin", "discovered_tool_echo", map[string]any{"text": "a <b> & c", "n": 2}, `{"n":2,"text":"a <b> & c"}`, ""},
		{"project root", "discovered_tool_now", nil, "ran in testdata", ""},
		{"exit code", "discovered_tool_fail", map[string]any{"x": true},
			"Stdout: {\"x\":true}\nStderr: something broke\n\nError: (none)\nExit Code: 2\nSignal: (none)", tool.ErrDiscoveredToolExecutionError},
		{"stderr with exit 0", "discovered_tool_warn", nil,
			"Stdout: done\nStderr: deprecated\n\nError: (none)\nExit Code: 0\nSignal: (none)", tool.ErrDiscoveredToolExecutionError},
		{"unknown to the call command", "discovered_tool_missing", nil,
			"Stdout: (empty)\nStderr: unknown tool missing\n\nError: (none)\nExit Code: 1\nSignal: (none)", tool.ErrDiscoveredToolExecutionError},
	}
	if runtime.GOOS != "windows" {
		tests = append(tests, struct {
			name    string
			tool    string
			args    map[string]any
			want    string
			errType tool.ErrorType
		}{"signal", "discovered_tool_signal", nil,
			"Stdout: (empty)\nStderr: (empty)\nError: (none)\nExit Code: (none)\nSignal: SIGTERM", tool.ErrDiscoveredToolExecutionError})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, c, terr := reg.Prepare(tt.tool, tt.args, nil)
			if terr != nil {
				t.Fatal(terr)
			}
			r := c.Execute(context.Background(), nil)
			got, gotType := r.LLMText, tool.ErrorType("")
			if r.Error != nil {
				got, gotType = r.Error.Message, r.Error.Type
			}
			if got != tt.want || gotType != tt.errType {
				t.Errorf("got %s %q\nwant %s %q", gotType, got, tt.errType, tt.want)
			}
			if r.Display != r.LLMText {
				t.Errorf("display %q differs from the model's text %q", r.Display, r.LLMText)
			}
		})
	}

	t.Run("output over the limit", func(t *testing.T) {
		_, c, _ := reg.Prepare("discovered_tool_huge", nil, nil)
		r := c.Execute(context.Background(), nil)
		if r.Error == nil || !strings.HasSuffix(r.Error.Message, "\nError: the output exceeded the size limit of 10485760 bytes\nExit Code: (none)\nSignal: SIGKILL") {
			msg := ""
			if r.Error != nil {
				msg = r.Error.Message[max(0, len(r.Error.Message)-200):]
			}
			t.Errorf("got the end %q", msg)
		}
	})

	t.Run("call command missing", func(t *testing.T) {
		c, _ := (&Tool{decl: Declaration{Name: "echo", Schema: map[string]any{}}, call: []string{"./no-such-call"}, dir: testdataDir(t)}).Build(nil)
		r := c.Execute(context.Background(), nil)
		want := "Stdout: (empty)\nStderr: (empty)\nError: fork/exec ./no-such-call: no such file or directory\nExit Code: (none)\nSignal: (none)"
		if r.Error == nil || r.Error.Message != want {
			t.Errorf("got %+v\nwant %q", r.Error, want)
		}
	})
}

// TestCallValidated checks that arguments are validated against the
// declared schema before the command runs.
func TestCallValidated(t *testing.T) {
	tools, _, err := discover(t, "plain")
	if err != nil {
		t.Fatal(err)
	}
	reg := tool.NewRegistry(tools[0])
	_, _, terr := reg.Prepare("discovered_tool_echo", map[string]any{"text": 3}, nil)
	if terr == nil || terr.Type != tool.ErrInvalidParams || terr.Message != "params/text must be string" {
		t.Errorf("got %+v", terr)
	}
}

// TestCallConfirmation: a call shows its arguments for approval, and the
// tool is not read-only.
func TestCallConfirmation(t *testing.T) {
	tools, _, err := discover(t, "plain")
	if err != nil {
		t.Fatal(err)
	}
	echo := tools[0]
	if echo.Kind() != tool.KindOther || echo.Kind().ReadOnly() || echo.DisplayName() != "discovered_tool_echo" {
		t.Errorf("kind %s, display name %q", echo.Kind(), echo.DisplayName())
	}
	c, _ := echo.Build(map[string]any{"text": "hi"})
	d, err := c.Confirmation(context.Background())
	if err != nil || d == nil {
		t.Fatalf("confirmation %+v, %v", d, err)
	}
	want := tool.ConfirmationDetails{Type: tool.ConfirmInfo, Title: "Confirm: discovered_tool_echo", Prompt: `{"text":"hi"}`}
	if d.Type != want.Type || d.Title != want.Title || d.Prompt != want.Prompt || c.Describe() != want.Prompt {
		t.Errorf("got %+v, want %+v", d, want)
	}
}

// TestCallCancelled: cancelling a call stops its command (and what it
// started) and reports the call as cancelled.
func TestCallCancelled(t *testing.T) {
	c, _ := (&Tool{decl: Declaration{Name: "hang", Schema: map[string]any{}}, call: []string{"./call.sh"}, dir: testdataDir(t)}).Build(nil)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		time.Sleep(50 * time.Millisecond)
		cancel()
	}()
	done := make(chan *tool.Result, 1)
	go func() { done <- c.Execute(ctx, nil) }()
	select {
	case r := <-done:
		if r.Error == nil || r.Error.Type != tool.ErrCancelled {
			t.Errorf("got %+v", r)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("the cancelled call did not return")
	}
}
