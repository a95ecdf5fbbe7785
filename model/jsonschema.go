package model

import (
	"strings"

	"google.golang.org/genai"
)

// FunctionParameters is a declaration's parameters as JSON Schema, for
// services that take JSON Schema rather than Gemini's Schema: the raw
// schema when it has one, else its genai.Schema in JSON Schema's words
// (lower-case types, nullable as a type list). A function without
// parameters gets an empty object, which OpenAI and Anthropic require.
func FunctionParameters(fd *genai.FunctionDeclaration) any {
	if fd.ParametersJsonSchema != nil {
		return fd.ParametersJsonSchema
	}
	if fd.Parameters == nil {
		return map[string]any{"type": "object", "properties": map[string]any{}}
	}
	return JSONSchema(fd.Parameters)
}

// JSONSchema says s in JSON Schema's words.
func JSONSchema(s *genai.Schema) map[string]any {
	out := map[string]any{}
	if s.Type != "" && s.Type != genai.TypeUnspecified {
		t := strings.ToLower(string(s.Type))
		if s.Nullable != nil && *s.Nullable {
			out["type"] = []string{t, "null"}
		} else {
			out["type"] = t
		}
	}
	if s.Description != "" {
		out["description"] = s.Description
	}
	if len(s.Enum) > 0 {
		out["enum"] = s.Enum
	}
	if s.Items != nil {
		out["items"] = JSONSchema(s.Items)
	}
	if len(s.Properties) > 0 || s.Type == genai.TypeObject {
		props := make(map[string]any, len(s.Properties))
		for k, v := range s.Properties {
			props[k] = JSONSchema(v)
		}
		out["properties"] = props
	}
	if len(s.Required) > 0 {
		out["required"] = s.Required
	}
	if len(s.AnyOf) > 0 {
		alts := make([]any, 0, len(s.AnyOf))
		for _, a := range s.AnyOf {
			alts = append(alts, JSONSchema(a))
		}
		out["anyOf"] = alts
	}
	if s.Minimum != nil {
		out["minimum"] = *s.Minimum
	}
	if s.Maximum != nil {
		out["maximum"] = *s.Maximum
	}
	if s.Default != nil {
		out["default"] = s.Default
	}
	return out
}
