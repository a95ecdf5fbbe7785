package cli

import (
	"errors"
	"fmt"
	"io"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/model"
)

// loopWarning is Gemini CLI 0.61's warning when loop detection stops a
// turn: on stderr in text mode, in "warnings" of -o json and as a warning
// event of stream-json. The turn then ends successfully (exit 0).
const loopWarning = "Loop detected, stopping execution"

// yoloNotice is the line Gemini CLI 0.61 writes on stderr when -y (or
// --approval-mode yolo) is given.
const yoloNotice = "YOLO mode is enabled. All tool calls will be automatically approved."

// noticeLine writes a retry or fallback notice on stderr, so that a run in
// json or stream-json mode that waits on a failing service says so
// instead of staying silent (stdout keeps its one format).
func noticeLine(errw io.Writer, ev *agent.Event, c cleaner) {
	n := ev.Notice
	if errw == nil || n == nil {
		return
	}
	switch ev.Type {
	case agent.EventRetry:
		// Gemini CLI 0.61's wording for a service error; the cause for
		// anything else (a broken connection, an empty answer).
		var ae *model.APIError
		if errors.As(n.Err, &ae) {
			fmt.Fprintf(errw, "Attempt %d failed with status %d. Retrying with backoff...\n", n.Attempt, ae.StatusCode)
			return
		}
		fmt.Fprintf(errw, "Attempt %d failed: %s. Retrying with backoff...\n", n.Attempt, c.str(fmt.Sprint(n.Err)))
	case agent.EventFallback:
		fmt.Fprintf(errw, "Quota exhausted for %s; switching to %s.\n", c.str(n.From), c.str(n.To))
	}
}

// track keeps what the json output needs besides the final answer: the
// text of the response being streamed and the retry, fallback and loop
// notices.
func (r *jsonRenderer) track(ev *agent.Event) {
	switch ev.Type {
	case agent.EventContent:
		r.partial.WriteString(ev.Text)
	case agent.EventFinished:
		if r.partial.Len() > 0 {
			r.lastText = r.partial.String()
		}
		r.partial.Reset()
	case agent.EventRetry, agent.EventFallback:
		noticeLine(r.errw, ev, r.cleaner)
	case agent.EventWarning:
		// stdout holds one JSON object; the notes a person needs (a hook
		// that failed, a setting ignored) go to stderr as in text mode.
		fmt.Fprintf(r.errw, "Warning: %s\n", r.str(ev.Text))
	case agent.EventHookMessage:
		fmt.Fprintf(r.errw, "%s\n", r.str(ev.Text))
	case agent.EventLoopDetected:
		r.warnings = append(r.warnings, loopWarning)
		if r.response = r.partial.String(); r.response == "" {
			r.response = r.lastText
		}
	}
}

// turnOutcome is the error a turn ends the run with: a turn stopped by
// loop detection counts as done, as in Gemini CLI 0.61 (the renderers have
// already shown the warning).
func turnOutcome(err error) error {
	if errors.Is(err, agent.ErrLoopDetected) {
		return nil
	}
	return err
}

// toolResultOutput is stream-json's tool_result.output, present where
// Gemini CLI 0.61 writes it: when the tool's display is a string. That
// leaves it out for list_directory and grep_search (their display is a
// structure there) and for edits (a diff), gives "" for read_file, and
// always gives it for a failed call.
func toolResultOutput(c *agent.ToolCall) (string, bool) {
	res := c.Result
	if c.Status != agent.StatusSuccess {
		switch {
		case res == nil:
			return "", true
		case res.Display != "":
			return res.Display, true
		case res.Error != nil:
			return res.Error.Message, true
		}
		return "", true
	}
	switch c.Name {
	case "list_directory", "grep_search", "search_file_content":
		return "", false
	case "read_file":
		if res == nil {
			return "", true
		}
		return res.Display, true
	}
	if res == nil || res.Diff != nil || res.Display == "" {
		return "", false
	}
	return res.Display, true
}
