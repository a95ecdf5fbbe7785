package fake

import "google.golang.org/genai"

// Text is a streamed model answer made of text chunks, for scripts built
// in code (tests, examples) rather than loaded from a file.
func Text(chunks ...string) Entry {
	stream := make([]*genai.GenerateContentResponse, len(chunks))
	for i, c := range chunks {
		stream[i] = response(&genai.Part{Text: c})
	}
	if n := len(stream); n > 0 {
		stream[n-1].Candidates[0].FinishReason = genai.FinishReasonStop
	}
	return Entry{Method: MethodGenerateContentStream, Stream: stream}
}

// Call is a streamed model answer that calls the tool name with args.
func Call(name string, args map[string]any) Entry {
	r := response(&genai.Part{FunctionCall: &genai.FunctionCall{Name: name, Args: args}})
	r.Candidates[0].FinishReason = genai.FinishReasonStop
	return Entry{Method: MethodGenerateContentStream, Stream: []*genai.GenerateContentResponse{r}}
}

// Script returns a Model that answers each model call with the next entry,
// in order (strict replay).
func Script(entries ...Entry) *Model { return New(entries, true) }

func response(p *genai.Part) *genai.GenerateContentResponse {
	return &genai.GenerateContentResponse{Candidates: []*genai.Candidate{{
		Content: &genai.Content{Role: genai.RoleModel, Parts: []*genai.Part{p}},
	}}}
}
