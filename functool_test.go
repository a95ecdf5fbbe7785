package castor_test

import (
	"context"
	"strings"
	"testing"

	"github.com/castor-dev/castor"
)

type pointIn struct {
	X int `json:"x"`
}

// TestNewToolRefusesWhatGeminiRefuses checks that NewTool reports, with
// the tool's name, what the Gemini API would otherwise refuse on every
// request of the agent: a bad function name, or an input that is not a
// JSON object.
func TestNewToolRefusesWhatGeminiRefuses(t *testing.T) {
	noop := func(ctx context.Context, in pointIn) (string, error) { return "", nil }
	tests := []struct {
		name    string
		make    func() error
		wantErr string // "" when NewTool succeeds
	}{
		{name: "struct", make: func() error { _, err := castor.NewTool("point", "d", noop); return err }},
		{name: "pointer to struct", make: func() error {
			_, err := castor.NewTool("point", "d", func(ctx context.Context, in *pointIn) (string, error) { return "", nil })
			return err
		}},
		{name: "map", make: func() error {
			_, err := castor.NewTool("m", "d", func(ctx context.Context, in map[string]any) (string, error) { return "", nil })
			return err
		}},
		{name: "namespaced name", make: func() error { _, err := castor.NewTool("ns:get.item-2", "d", noop); return err }},
		{name: "string input", make: func() error {
			_, err := castor.NewTool("echo", "d", func(ctx context.Context, in string) (string, error) { return in, nil })
			return err
		}, wantErr: "tool echo: input string must be a struct or a map"},
		{name: "any input", make: func() error {
			_, err := castor.NewTool("echo", "d", func(ctx context.Context, in any) (string, error) { return "", nil })
			return err
		}, wantErr: "tool echo: input interface {} must be a struct or a map"},
		{name: "space in name", make: func() error { _, err := castor.NewTool("my tool", "d", noop); return err }, wantErr: `tool name "my tool"`},
		{name: "leading digit", make: func() error { _, err := castor.NewTool("2fa", "d", noop); return err }, wantErr: `tool name "2fa"`},
		{name: "empty name", make: func() error { _, err := castor.NewTool("", "d", noop); return err }, wantErr: `tool name ""`},
		{name: "long name", make: func() error { _, err := castor.NewTool(strings.Repeat("a", 65), "d", noop); return err }, wantErr: "up to 64"},
		{name: "nil function", make: func() error {
			_, err := castor.NewTool[pointIn, string]("point", "d", nil)
			return err
		}, wantErr: "tool point: nil function"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.make()
			if tt.wantErr == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("NewTool: %v, want %q", err, tt.wantErr)
			}
		})
	}
}
