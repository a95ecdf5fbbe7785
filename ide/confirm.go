package ide

import (
	"context"
	"errors"
	"fmt"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// ConfirmFunc answers a confirmation synchronously; it has the type of
// agent.Config.Confirm and castor.Options.Confirm.
type ConfirmFunc = func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error)

// Confirm wraps next so that an edit awaiting approval is shown as a diff
// in the IDE, as Gemini CLI does in IDE mode. The user may answer in
// either place: accepting in the IDE proceeds once with the content the
// user accepted there, rejecting cancels; an answer from next closes the
// diff, and a proceed keeps the edits the user made in the diff view.
// Calls that are not edits, and edits when no diff can be opened, go to
// next unchanged.
//
// next may be nil (a headless run, where nobody else can answer): edits
// then wait for the IDE alone, and everything else is refused (Cancel).
// Edits that need no approval never reach a Confirm function, so they
// open no diff.
func (c *Client) Confirm(next ConfirmFunc) ConfirmFunc {
	fallback := func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
		if next != nil {
			return next(ctx, call)
		}
		return tool.Decision{Outcome: tool.Cancel}, nil
	}
	return func(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
		var d *tool.ConfirmationDetails
		if call != nil && call.Confirmation != nil {
			d = call.Confirmation.Details
		}
		if d == nil || d.Type != tool.ConfirmEdit || d.FilePath == "" {
			return fallback(ctx, call)
		}
		if !c.DiffingEnabled() {
			if next == nil {
				return c.gone(d.FilePath, errNoDiffs), nil
			}
			return next(ctx, call)
		}
		diff, err := c.openDiff(ctx, d.FilePath, d.NewContent)
		if err != nil {
			if next == nil {
				return c.gone(d.FilePath, err), nil
			}
			c.opts.warn(err.Error() + "; the edit is confirmed without the IDE")
			return next(ctx, call)
		}
		defer diff.release()

		var answered chan answer
		cctx, cancel := context.WithCancel(ctx)
		defer cancel()
		if next != nil {
			answered = make(chan answer, 1)
			go func() {
				dec, err := next(cctx, call)
				answered <- answer{dec, err}
			}()
		}
		ideCh := diff.ch
		for {
			select {
			case r := <-ideCh:
				if r.err != nil {
					// The IDE went away: the terminal, if any, still decides.
					if next == nil {
						return c.goneMidDiff(d.FilePath), nil
					}
					ideCh = nil
					continue
				}
				return ideDecision(r, d.NewContent), nil
			case a := <-answered:
				content, ok, _ := c.closeDiff(context.WithoutCancel(ctx), d.FilePath)
				if a.err == nil && a.dec.Outcome != tool.Cancel && a.dec.NewContent == nil && ok && content != d.NewContent {
					a.dec.NewContent = &content
				}
				return a.dec, a.err
			case <-ctx.Done():
				c.closeDiff(context.WithoutCancel(ctx), d.FilePath)
				return tool.Decision{}, ctx.Err()
			}
		}
	}
}

type answer struct {
	dec tool.Decision
	err error
}

// ideDecision maps the IDE's answer to a decision. Content equal to the
// proposal is a plain approval, so that the model is not told the user
// changed what they did not.
func ideDecision(r diffResult, proposed string) tool.Decision {
	if !r.accepted {
		return tool.Decision{Outcome: tool.Cancel}
	}
	dec := tool.Decision{Outcome: tool.ProceedOnce}
	if r.content != nil && *r.content != proposed {
		content := *r.content
		dec.NewContent = &content
	}
	return dec
}

// goneMidDiff is the answer for an edit whose diff was open in an IDE
// that went away when no one else could answer (a headless run). The
// edit is not made, as on a refusal, but neither the model nor the user
// is told the user refused it. (Gemini CLI shows no diffs in headless
// runs, and in its terminal the user still answers when the IDE goes.)
func (c *Client) goneMidDiff(path string) tool.Decision {
	c.opts.warn(fmt.Sprintf("the IDE closed while showing the diff of %s; the edit was not made", path))
	return tool.Decision{
		Outcome: tool.Cancel,
		Reason:  fmt.Sprintf("The IDE closed before the user answered the diff of %s, so the edit was not made. The user did not refuse it.", path),
	}
}

// errNoDiffs is why an edit found no IDE to show its diff.
var errNoDiffs = errors.New("IDE mode: no connected IDE can show diffs")

// gone is goneMidDiff for a diff the IDE could not show (it went away as
// the diff was being opened, or refused to open it), with no one else to
// answer.
func (c *Client) gone(path string, err error) tool.Decision {
	c.opts.warn(fmt.Sprintf("%v; the edit of %s was not made", err, path))
	return tool.Decision{
		Outcome: tool.Cancel,
		Reason:  fmt.Sprintf("The IDE could not show the diff of %s, so the edit was not made. The user did not refuse it.", path),
	}
}
