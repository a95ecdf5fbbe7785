package castor

import (
	"fmt"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/outschema"
	"github.com/castor-dev/castor/internal/setup"
)

// WithOutputSchema asks for every answer as JSON matching a JSON Schema
// (draft 2020-12 or draft-07), given as the document ([]byte,
// json.RawMessage or string) or a value that marshals to it (a map, a
// *jsonschema.Schema). The model is constrained through Gemini's
// structured output (responseJsonSchema); the answer is validated, and
// one that does not match is sent back once with the reason. If the
// second answer misses too, Send fails with an *agent.OutputSchemaError.
// A schema that cannot be read makes New fail with a *ConfigError.
func WithOutputSchema(schema any) Option {
	return func(o *options) { o.OutputSchema = &agent.OutputSchema{Schema: schema} }
}

// compileOutputSchema turns WithOutputSchema's document into the
// engine's validator.
func compileOutputSchema(o *setup.Options) error {
	if o.OutputSchema == nil || o.OutputSchema.Validate != nil {
		return nil
	}
	c, err := outschema.Compile(o.OutputSchema.Schema)
	if err != nil {
		return &ConfigError{Err: fmt.Errorf("WithOutputSchema: %w", err)}
	}
	o.OutputSchema = c
	return nil
}
