package cli

import (
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/outschema"
	"github.com/castor-dev/castor/internal/setup"
)

// applyOutputSchema reads --output-schema FILE into the session's
// options. A schema shapes a headless answer; the interactive terminal
// has no final answer to shape, so it is refused there.
func applyOutputSchema(f *flags, interactive bool, opts *setup.Options) error {
	if f.outputSchema == "" {
		return nil
	}
	if interactive {
		return &usageError{msg: "--output-schema needs a headless run: give the prompt with -p or on stdin"}
	}
	o, err := outschema.Load(f.outputSchema)
	if err != nil {
		return &inputError{msg: err.Error()}
	}
	opts.OutputSchema = o
	return nil
}

// answerRenderer is text output under --output-schema: only the final,
// validated answer is printed (the JSON value), not the text of a
// rejected first answer streamed before it.
type answerRenderer struct{ *textRenderer }

func (r answerRenderer) event(ev *agent.Event) {
	switch ev.Type {
	case agent.EventContent, agent.EventFinished:
	case agent.EventTurnEnd:
		r.write(r.str(ev.Text))
	default:
		r.textRenderer.event(ev)
	}
}
