package agent

import (
	"context"
	"errors"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// TestCompressNow: Compress summarises below the automatic threshold,
// fires PreCompress with trigger "manual", and reports a too-short
// conversation and a busy session as errors.
func TestCompressNow(t *testing.T) {
	long := func(n int) []*genai.Content {
		var hist []*genai.Content
		for i := range n {
			hist = append(hist, genai.NewContentFromText(strings.Repeat("x", 400)+string(rune('a'+i)), genai.RoleUser),
				genai.NewContentFromText(strings.Repeat("y", 400), genai.RoleModel))
		}
		return hist
	}
	tests := []struct {
		name    string
		hist    []*genai.Content
		summary string
		status  string
		err     error
	}{
		{"compressed", long(10), "<state_snapshot>all of it</state_snapshot>", "COMPRESSED", nil},
		{"too short", long(1), "<state_snapshot>x</state_snapshot>", "", ErrNothingToCompress},
		{"empty summary", long(10), "", "COMPRESSION_FAILED_EMPTY_SUMMARY", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := &scripted{summary: tt.summary}
			h := &fakeHooks{on: map[HookEvent]func(*HookInput) (*HookOutput, error){
				HookPreCompress: out(&HookOutput{SystemMessage: "compressing"}),
			}}
			s := New(Config{Model: m, ModelName: "gemini-2.5-pro", History: tt.hist, Hooks: h})
			info, err := s.Compress(context.Background())
			if !errors.Is(err, tt.err) {
				t.Fatalf("err = %v, want %v", err, tt.err)
			}
			if p := h.inputs(HookPreCompress); len(p) != 1 || p[0].Trigger != "manual" {
				t.Errorf("precompress %s", mustJSON(p))
			}
			if tt.err != nil {
				return
			}
			if info.Status != tt.status || info.OriginalTokens == 0 {
				t.Fatalf("info = %+v", info)
			}
			got := s.History()
			if tt.status == "COMPRESSED" {
				if len(got) >= len(tt.hist) || got[0].Parts[0].Text != tt.summary || info.NewTokens >= info.OriginalTokens {
					t.Errorf("history not compressed: %d entries, info %+v", len(got), info)
				}
			} else if len(got) != len(tt.hist) {
				t.Errorf("history changed on failure: %d entries", len(got))
			}
		})
	}
}

func TestCompressBusy(t *testing.T) {
	s := New(Config{Model: &scripted{}, ModelName: "gemini-2.5-pro"})
	s.turn.Lock()
	defer s.turn.Unlock()
	if _, err := s.Compress(context.Background()); !errors.Is(err, ErrBusy) {
		t.Fatalf("err = %v, want ErrBusy", err)
	}
}
