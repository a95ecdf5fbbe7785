package castor

import (
	"context"
	"errors"
	"time"

	"github.com/castor-dev/castor/internal/subagents"
)

// Subagent is a specialist the agent's model may delegate a task to with
// the invoke_agent tool, as Gemini CLI's subagents. Unless Agent is set,
// the subagent runs its own conversation on the same engine, model,
// tools and approval rules, with its own system instruction, until it
// submits its result with the complete_task tool; its result becomes
// the answer of the invoke_agent call.
type Subagent struct {
	// Name is what the model passes as agent_name: lowercase letters,
	// digits, "-" and "_".
	Name string
	// Description tells the model when to use the subagent.
	Description string
	// Instructions is the subagent's system prompt; ${query} stands for
	// the task it was given.
	Instructions string
	// InstructionsFunc computes the system prompt before each of the
	// subagent's model calls instead, from the task and the subagent's
	// session so far.
	InstructionsFunc func(prompt string, sc SessionContext) string
	// Agent, when set, answers instead: the task is sent to it as a
	// prompt and its answer returned. It keeps its own conversation from
	// one delegation to the next.
	Agent *Agent
	// Tools names the tools the subagent may use ("*" for all, "mcp_*",
	// "mcp_<server>_*"); nil gives it every tool. It never gets
	// invoke_agent: subagents cannot start subagents.
	Tools []string
	// Model is the model it asks (default: the agent's).
	Model string
	// Temperature defaults to 1.
	Temperature *float64
	// MaxTurns (default 30) and Timeout (default 10 minutes) bound its
	// run; past them it gets one short last chance to submit its result.
	MaxTurns int
	Timeout  time.Duration
}

// WithSubagents gives the agent subagents besides those defined in the
// user's and the workspace's .gemini/agents folders (which
// WithoutSettings leaves out); a subagent given here wins over a file of
// the same name. An invalid name makes New fail.
func WithSubagents(subs ...Subagent) Option {
	return func(o *options) {
		for _, s := range subs {
			o.Subagents = append(o.Subagents, s.definition())
		}
	}
}

func (s Subagent) definition() *subagents.Definition {
	d := &subagents.Definition{
		Name: s.Name, Description: s.Description, Tools: s.Tools, Model: s.Model,
		Temperature: s.Temperature, MaxTurns: s.MaxTurns, Timeout: s.Timeout,
		SystemPrompt: s.Instructions,
	}
	if f := s.InstructionsFunc; f != nil {
		d.Instructions = func(i subagents.Info) string {
			return f(i.Prompt, SessionContext{SessionID: i.SessionID, WorkDir: i.WorkDir, Timestamp: i.Timestamp, Transcript: i.Transcript})
		}
	}
	if a := s.Agent; a != nil {
		d.Run = func(ctx context.Context, prompt string) (string, error) {
			res, err := a.Send(ctx, prompt)
			if err != nil {
				return "", err
			}
			if len(res.Pending) > 0 {
				return res.Text, errors.New("the subagent is waiting for confirmations nobody can give")
			}
			return res.Text, nil
		}
	}
	return d
}
