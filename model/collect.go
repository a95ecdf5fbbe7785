package model

import (
	"encoding/json"
	"iter"

	"google.golang.org/genai"
)

// Collect is a unary call made of a streaming one, for transports whose
// wire only streams: the chunks merged into one response (parts in order,
// the last finish reason, usage and model version).
func Collect(stream iter.Seq2[*genai.GenerateContentResponse, error]) (*genai.GenerateContentResponse, error) {
	var out *genai.GenerateContentResponse
	for c, err := range stream {
		if err != nil {
			return nil, err
		}
		out = mergeChunk(out, c)
	}
	if out == nil {
		return nil, UnfinishedStreamError(0)
	}
	return out, nil
}

func mergeChunk(into, c *genai.GenerateContentResponse) *genai.GenerateContentResponse {
	if into == nil {
		return c
	}
	if len(c.Candidates) > 0 {
		if len(into.Candidates) == 0 {
			into.Candidates = c.Candidates
		} else {
			ic, cc := into.Candidates[0], c.Candidates[0]
			if cc.Content != nil {
				if ic.Content == nil {
					ic.Content = &genai.Content{Role: genai.RoleModel}
				}
				ic.Content.Parts = append(ic.Content.Parts, cc.Content.Parts...)
			}
			if cc.FinishReason != "" {
				ic.FinishReason = cc.FinishReason
			}
		}
	}
	if c.UsageMetadata != nil {
		into.UsageMetadata = c.UsageMetadata
	}
	if c.ModelVersion != "" {
		into.ModelVersion = c.ModelVersion
	}
	return into
}

// EstimateTokens counts req's contents at four characters a token, as
// Gemini CLI estimates, for services without a counting endpoint (or
// where asking would cost a round trip for a guess the engine only uses
// to plan).
func EstimateTokens(req *Request) int32 {
	n := 0
	for _, ct := range req.Contents {
		b, _ := json.Marshal(ct)
		n += len(b)
	}
	return int32((n + 3) / 4)
}
