package agent

import (
	"context"
	"fmt"
	"iter"

	"google.golang.org/genai"
)

// OutputSchema asks for a turn's final answer as JSON matching a schema
// (Config.OutputSchema): every model call of the turn carries the schema
// as Gemini's responseJsonSchema (with responseMimeType
// application/json), and the answer a turn ends with is validated. An
// answer that does not validate is sent back once with the reason; if
// the second answer fails too, the turn ends with an *OutputSchemaError.
type OutputSchema struct {
	// Schema is the JSON Schema document, sent as is.
	Schema any
	// Validate checks a final answer, returning why it does not match.
	Validate func(answer string) error
}

// OutputSchemaError is the error a turn ends with when its answer did not
// match the output schema after one retry.
type OutputSchemaError struct {
	// Answer is the model's last answer.
	Answer string
	// Err says why it does not match.
	Err error
}

func (e *OutputSchemaError) Error() string {
	return fmt.Sprintf("the answer does not match the output schema after a retry: %v", e.Err)
}

func (e *OutputSchemaError) Unwrap() error { return e.Err }

// outputRetryKey marks the context of the retry's own Send, which the
// outer turn validates.
type outputRetryKey struct{}

// applyOutputSchema puts the schema in a call's config.
func (s *Session) applyOutputSchema(cfg *genai.GenerateContentConfig) {
	if o := s.cfg.OutputSchema; o != nil && o.Schema != nil {
		cfg.ResponseMIMEType = "application/json"
		cfg.ResponseJsonSchema = o.Schema
	}
}

// checkOutput validates the answer a turn of seq ends with against
// Config.OutputSchema, asking once more when it does not match. Turns
// that pause for confirmations are checked in the Resume that ends them;
// a turn the user cancelled is not checked.
func (s *Session) checkOutput(ctx context.Context, seq iter.Seq2[*Event, error]) iter.Seq2[*Event, error] {
	o := s.cfg.OutputSchema
	if o == nil || o.Validate == nil || ctx.Value(outputRetryKey{}) != nil {
		return seq
	}
	return func(yield func(*Event, error) bool) {
		for attempt := 1; ; attempt++ {
			var end *Event
			for ev, err := range seq {
				if err != nil {
					yield(nil, err)
					return
				}
				if ev.Type == EventTurnEnd && ev.Reason == TurnCompleted {
					end = ev // the last event: held until checked
					continue
				}
				if !yield(ev, nil) {
					return
				}
			}
			if end == nil {
				return
			}
			verr := o.Validate(end.Text)
			if verr == nil {
				yield(end, nil)
				return
			}
			if attempt == 2 {
				yield(nil, &OutputSchemaError{Answer: end.Text, Err: verr})
				return
			}
			if !yield(&Event{Type: EventWarning, Text: fmt.Sprintf("The answer does not match the output schema (%v); asking the model again.", verr)}, nil) {
				return
			}
			fix := fmt.Sprintf("Your answer does not match the required JSON schema: %v\n"+
				"Answer again with only the JSON value, matching the schema exactly.", verr)
			seq = s.Send(context.WithValue(ctx, outputRetryKey{}, true), &genai.Part{Text: fix})
		}
	}
}
