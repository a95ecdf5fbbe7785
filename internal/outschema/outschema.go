// Package outschema reads the JSON Schema a final answer must match
// (`--output-schema FILE`, castor.WithOutputSchema) and checks answers
// against it, for agent.OutputSchema. Validation is
// github.com/google/jsonschema-go, the library tool arguments are
// already checked with (draft 2020-12 and draft-07).
package outschema

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/jsonerr"
)

// Load reads a schema file; its errors name the file.
func Load(file string) (*agent.OutputSchema, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("--output-schema: %w", err)
	}
	o, err := Compile(b)
	if err != nil {
		return nil, fmt.Errorf("--output-schema %s: %w", file, err)
	}
	return o, nil
}

// Compile turns a schema into an agent.OutputSchema: schema is the JSON
// document ([]byte, json.RawMessage or string) or a Go value that
// marshals to it (a map, a *jsonschema.Schema). The schema goes to the
// model exactly as written.
func Compile(schema any) (*agent.OutputSchema, error) {
	var doc []byte
	switch v := schema.(type) {
	case nil:
		return nil, fmt.Errorf("no schema")
	case []byte:
		doc = v
	case json.RawMessage:
		doc = v
	case string:
		doc = []byte(v)
	default:
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("the schema is not JSON: %v", err)
		}
		doc = b
	}
	var wire map[string]any
	if err := json.Unmarshal(doc, &wire); err != nil {
		return nil, fmt.Errorf("not a JSON Schema object: %v", jsonerr.Describe(err))
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(doc, &s); err != nil {
		return nil, fmt.Errorf("not a JSON Schema: %v", err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		return nil, fmt.Errorf("not a usable JSON Schema: %v", err)
	}
	return &agent.OutputSchema{
		Schema: wire,
		Validate: func(answer string) error {
			return validate(rs, answer)
		},
	}, nil
}

// validate checks that answer is one JSON value matching the schema.
func validate(rs *jsonschema.Resolved, answer string) error {
	text := strings.TrimSpace(answer)
	if text == "" {
		return fmt.Errorf("the answer is empty, not JSON")
	}
	dec := json.NewDecoder(bytes.NewReader([]byte(text)))
	var v any
	if err := dec.Decode(&v); err != nil {
		return fmt.Errorf("the answer is not JSON: %v", jsonerr.Describe(err))
	}
	if dec.More() {
		return fmt.Errorf("the answer holds more than one JSON value")
	}
	return rs.Validate(v)
}
