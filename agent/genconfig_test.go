package agent

import (
	"testing"

	"google.golang.org/genai"
)

// TestGenerationConfigFor: the config of each call is the one
// GenerationConfigFor gives the model in use, so a SetModel changes it
// from the next call on; when it gives nil, GenerationConfig applies.
func TestGenerationConfigFor(t *testing.T) {
	m := &scripted{turns: [][]*genai.Part{{{Text: "a"}}, {{Text: "b"}}, {{Text: "c"}}}}
	s := New(Config{
		Model: m, ModelName: "one", SessionID: "s1",
		GenerationConfig: &genai.GenerateContentConfig{TopK: genai.Ptr[float32](1)},
		GenerationConfigFor: func(model string) *genai.GenerateContentConfig {
			if model == "none" {
				return nil
			}
			return &genai.GenerateContentConfig{Labels: map[string]string{"for": model}}
		},
	})
	for i, name := range []string{"", "two", "none"} {
		if name != "" {
			s.SetModel(name)
		}
		if _, err := collect(t, s.Send(t.Context(), genai.NewPartFromText("hi"))); err != nil {
			t.Fatal(err)
		}
		cfg := m.reqs[i].Config
		switch name {
		case "none":
			if cfg.TopK == nil || cfg.Labels != nil {
				t.Errorf("call %d: GenerationConfig not used: %+v", i, cfg)
			}
		default:
			want := "one"
			if name != "" {
				want = name
			}
			if cfg.Labels["for"] != want || cfg.TopK != nil {
				t.Errorf("call %d: labels %v, topK %v; want the config for %q", i, cfg.Labels, cfg.TopK, want)
			}
		}
	}
}
