package model_test

import (
	"errors"
	"testing"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

func TestHasFinish(t *testing.T) {
	for _, tt := range []struct {
		name string
		resp *genai.GenerateContentResponse
		want bool
	}{
		{"nil", nil, false},
		{"no candidates", &genai.GenerateContentResponse{}, false},
		{"nil candidate", &genai.GenerateContentResponse{Candidates: []*genai.Candidate{nil}}, false},
		{"unspecified", &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonUnspecified}}}, false},
		{"stop", &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{FinishReason: genai.FinishReasonStop}}}, true},
		{"blocked prompt", &genai.GenerateContentResponse{PromptFeedback: &genai.GenerateContentResponsePromptFeedback{BlockReason: genai.BlockedReasonSafety}}, true},
	} {
		if got := model.HasFinish(tt.resp); got != tt.want {
			t.Errorf("%s: HasFinish = %v, want %v", tt.name, got, tt.want)
		}
	}
}

func TestUnfinishedStreamError(t *testing.T) {
	for chunks, want := range map[int]string{
		0: "model stream ended before it was complete: the model sent no response",
		3: "model stream ended before it was complete: no finish reason after 3 chunks",
	} {
		err := model.UnfinishedStreamError(chunks)
		if !errors.Is(err, model.ErrStreamCut) || err.Error() != want {
			t.Errorf("UnfinishedStreamError(%d) = %v, want %q wrapping ErrStreamCut", chunks, err, want)
		}
	}
}
