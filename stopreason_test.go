package castor_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model"
	"github.com/castor-dev/castor/model/fake"
)

// TestStopReason: Result.StopReason says why each kind of turn ended, so
// that a caller of Send tells an answer from a pause, a stop by the
// engine or a cancelled turn.
func TestStopReason(t *testing.T) {
	same := func(n int) []fake.Entry {
		var rs []fake.Entry
		for range n {
			rs = append(rs, fake.Call("read_file", map[string]any{"file_path": "a.txt"}))
		}
		return rs
	}
	tests := []struct {
		name     string
		replies  []fake.Entry
		settings string
		opts     []castor.Option
		cancel   bool
		want     castor.StopReason
		wantErr  error
	}{
		{name: "answer", replies: []fake.Entry{fake.Text("hi")}, want: castor.StopCompleted},
		{name: "paused", replies: []fake.Entry{fake.Call("write_file", map[string]any{"file_path": "b.txt", "content": "x"})},
			opts: []castor.Option{castor.WithPausedConfirmations()}, want: castor.StopPaused},
		{name: "max turns", replies: []fake.Entry{fake.Call("read_file", map[string]any{"file_path": "a.txt"}), fake.Text("never")},
			settings: `{"model": {"maxSessionTurns": 1}}`, want: castor.StopMaxTurns, wantErr: agent.ErrMaxSessionTurns},
		{name: "loop", replies: same(6), want: castor.StopLoop, wantErr: agent.ErrLoopDetected},
		{name: "budget", replies: []fake.Entry{fake.Text("never")}, opts: []castor.Option{castor.WithMaxBudgetUSD(1e-9)}, want: castor.StopBudget, wantErr: model.ErrBudget},
		{name: "daily budget", replies: []fake.Entry{fake.Text("never")}, settings: `{"model": {"dailyBudgetUsd": 1e-9}}`, want: castor.StopBudget, wantErr: model.ErrBudget},
		{name: "cancelled", replies: []fake.Entry{fake.Text("never")}, cancel: true, want: castor.StopCancelled, wantErr: context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
			for _, d := range []string{filepath.Join(home, ".gemini"), ws} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644)
			if tt.settings != "" {
				os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(tt.settings), 0o644)
			}
			opts := append([]castor.Option{castor.WithClient(fake.Script(tt.replies...)), castor.WithHomeDir(home), castor.WithWorkDir(ws),
				castor.WithoutRecording(), castor.WithEnv(func(string) (string, bool) { return "", false })}, tt.opts...)
			a, err := castor.New(context.Background(), opts...)
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			res, err := a.Send(ctx, "go")
			if (tt.wantErr == nil) != (err == nil) || (tt.wantErr != nil && !errors.Is(err, tt.wantErr)) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if res == nil || res.StopReason != tt.want {
				t.Errorf("StopReason %+v, want %q", res, tt.want)
			}
		})
	}
}

// TestSettingsHookFailureWarnsUnderSend: under Send, a settings-file hook
// that fails with exit 1 (a warning, the turn going on), or whose command
// cannot run, reaches WithWarnings with its words, instead of nothing.
func TestSettingsHookFailureWarnsUnderSend(t *testing.T) {
	for _, tt := range []struct{ name, command, want string }{
		{"exit 1", "echo the audit log is full >&2; exit 1", "Warning: the audit log is full"},
		{"command not found", "no-such-hook-command-xyz", "no-such-hook-command-xyz"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			home, ws := filepath.Join(dir, "home"), filepath.Join(dir, "ws")
			for _, d := range []string{filepath.Join(home, ".gemini"), ws} {
				if err := os.MkdirAll(d, 0o755); err != nil {
					t.Fatal(err)
				}
			}
			settings := `{"hooks": {"BeforeAgent": [{"hooks": [{"type": "command", "command": ` + strconv.Quote(tt.command) + `}]}]}}`
			if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
				t.Fatal(err)
			}
			var warns []string
			a, err := castor.New(context.Background(), castor.WithClient(fake.Script(fake.Text("ok"))), castor.WithHomeDir(home), castor.WithWorkDir(ws),
				castor.WithoutRecording(), castor.WithEnv(func(string) (string, bool) { return "", false }),
				castor.WithWarnings(func(s string) { warns = append(warns, s) }))
			if err != nil {
				t.Fatal(err)
			}
			defer a.Close()
			if _, err := a.Send(context.Background(), "go"); err != nil {
				t.Fatal(err)
			}
			if all := strings.Join(warns, "\n"); !strings.Contains(all, tt.want) {
				t.Errorf("warnings lack %q:\n%s", tt.want, all)
			}
		})
	}
}
