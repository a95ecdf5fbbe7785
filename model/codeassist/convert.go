package codeassist

import (
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/model"
)

// DefaultModelMappings returns the renames of models for Code Assist, as
// Gemini CLI's CCPA_AI_MODEL_MAPPINGS: the backend knows gemini-3.5-flash
// under another name. A function, not a package-level map, so that no
// start pays for building it (a map literal is built by init code); each
// call returns a new map the caller may change.
func DefaultModelMappings() map[string]string {
	return map[string]string{
		"gemini-3.5-flash": "gemini-3-flash",
	}
}

// MapModel applies mappings to a model id, keeping a "models/" prefix.
func MapModel(mappings map[string]string, id string) string {
	bare, prefixed := strings.CutPrefix(id, "models/")
	to, ok := mappings[bare]
	if !ok {
		return id
	}
	if prefixed {
		return "models/" + to
	}
	return to
}

// ToGenerateContentRequest wraps req for generateContent and
// streamGenerateContent, as Gemini CLI's converter does.
func ToGenerateContentRequest(req *model.Request, project string) *GenerateContentRequest {
	cfg := req.Config
	if cfg == nil {
		cfg = &genai.GenerateContentConfig{}
	}
	inner := VertexGenerateContentRequest{
		Contents:          toContents(req.Contents),
		SystemInstruction: systemInstruction(cfg.SystemInstruction),
		CachedContent:     cfg.CachedContent,
		Tools:             cfg.Tools,
		ToolConfig:        cfg.ToolConfig,
		Labels:            cfg.Labels,
		SafetySettings:    cfg.SafetySettings,
		SessionID:         req.SessionID,
	}
	if req.Config != nil {
		inner.GenerationConfig = generationConfig(cfg)
	}
	return &GenerateContentRequest{
		Model:        req.Model,
		Project:      project,
		UserPromptID: req.PromptID,
		Request:      inner,
	}
}

// ToCountTokensRequest builds the body of countTokens. Only the contents
// are counted, as in Gemini CLI.
func ToCountTokensRequest(req *model.Request) *CountTokensRequest {
	return &CountTokensRequest{Request: VertexCountTokensRequest{
		Model:    "models/" + strings.TrimPrefix(req.Model, "models/"),
		Contents: toContents(req.Contents),
	}}
}

// FromGenerateContentResponse unwraps a Code Assist answer. As in Gemini
// CLI only the model output, feedback, usage and version are kept (genai
// has no automaticFunctionCallingHistory field to copy), and
// the trace id becomes the response id.
func FromGenerateContentResponse(res *GenerateContentResponse) *genai.GenerateContentResponse {
	out := &genai.GenerateContentResponse{ResponseID: res.TraceID}
	in := res.Response
	if in == nil {
		out.Candidates = []*genai.Candidate{}
		return out
	}
	out.Candidates = in.Candidates
	if out.Candidates == nil {
		out.Candidates = []*genai.Candidate{}
	}
	out.PromptFeedback = in.PromptFeedback
	out.UsageMetadata = in.UsageMetadata
	out.ModelVersion = in.ModelVersion
	return out
}

// systemInstruction gives an instruction without a role the user role,
// as Gemini CLI's toContent does for the string it passes.
func systemInstruction(c *genai.Content) *genai.Content {
	if c == nil {
		return nil
	}
	out := *c
	if out.Role == "" {
		out.Role = genai.RoleUser
	}
	out.Parts = toParts(c.Parts)
	return &out
}

func toContents(cs []*genai.Content) []*genai.Content {
	out := make([]*genai.Content, 0, len(cs))
	for _, c := range cs {
		if c == nil {
			continue
		}
		cp := *c
		cp.Parts = toParts(c.Parts)
		out = append(out, &cp)
	}
	return out
}

// toParts rewrites thought parts as Gemini CLI's converter does: the
// countTokens API rejects a part whose only content is a thought, so the
// thought flag is dropped, and a text part keeps its text with the marker
// "[Thought: true]" appended. Other parts pass unchanged.
func toParts(ps []*genai.Part) []*genai.Part {
	out := make([]*genai.Part, 0, len(ps))
	for _, p := range ps {
		if p == nil {
			continue
		}
		if !p.Thought {
			out = append(out, p)
			continue
		}
		cp := *p
		cp.Thought = false
		if cp.FunctionCall == nil && cp.FunctionResponse == nil && cp.InlineData == nil && cp.FileData == nil {
			const marker = "[Thought: true]"
			if cp.Text != "" {
				cp.Text += "\n" + marker
			} else {
				cp.Text = marker
			}
		}
		out = append(out, &cp)
	}
	return out
}

// generationConfig picks the generation parameters out of the SDK's
// flattened config, field for field as Gemini CLI's
// toVertexGenerationConfig.
func generationConfig(c *genai.GenerateContentConfig) *genai.GenerationConfig {
	g := &genai.GenerationConfig{
		Temperature:          c.Temperature,
		TopP:                 c.TopP,
		TopK:                 c.TopK,
		CandidateCount:       c.CandidateCount,
		MaxOutputTokens:      c.MaxOutputTokens,
		StopSequences:        c.StopSequences,
		ResponseLogprobs:     c.ResponseLogprobs,
		Logprobs:             c.Logprobs,
		PresencePenalty:      c.PresencePenalty,
		FrequencyPenalty:     c.FrequencyPenalty,
		Seed:                 c.Seed,
		ResponseMIMEType:     c.ResponseMIMEType,
		ResponseSchema:       c.ResponseSchema,
		ResponseJsonSchema:   c.ResponseJsonSchema,
		RoutingConfig:        c.RoutingConfig,
		ModelSelectionConfig: c.ModelSelectionConfig,
		MediaResolution:      c.MediaResolution,
		SpeechConfig:         c.SpeechConfig,
		AudioTimestamp:       c.AudioTimestamp,
		ThinkingConfig:       c.ThinkingConfig,
	}
	for _, m := range c.ResponseModalities {
		g.ResponseModalities = append(g.ResponseModalities, genai.Modality(m))
	}
	return g
}
