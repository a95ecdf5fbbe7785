package acp

import (
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/tool"
)

// toolKind maps a tool's kind to ACP's, as Gemini CLI does: subagents
// think, plans and messages are "other".
func toolKind(k tool.Kind) sdk.ToolKind {
	switch k {
	case tool.KindRead, tool.KindEdit, tool.KindDelete, tool.KindMove, tool.KindSearch,
		tool.KindExecute, tool.KindThink, tool.KindFetch, tool.KindSwitchMode:
		return sdk.ToolKind(k)
	case tool.KindAgent:
		return sdk.ToolKindThink
	}
	return sdk.ToolKindOther
}

// callKind is the ACP kind of a call; an unknown tool is "other".
func callKind(c *agent.ToolCall) sdk.ToolKind {
	if c.Tool == nil {
		return sdk.ToolKindOther
	}
	return toolKind(c.Tool.Kind())
}

// callTitle is what the client shows for a call: the call's own one-line
// description, else the tool's display name.
func callTitle(c *agent.ToolCall) string {
	if d := strings.TrimSpace(c.Description); d != "" {
		return d
	}
	if c.Tool != nil && c.Tool.DisplayName() != "" {
		return c.Tool.DisplayName()
	}
	return c.Name
}

// callStatus maps the engine's status to ACP's four.
func callStatus(s agent.Status) sdk.ToolCallStatus {
	switch s {
	case agent.StatusExecuting:
		return sdk.ToolCallStatusInProgress
	case agent.StatusSuccess:
		return sdk.ToolCallStatusCompleted
	case agent.StatusError, agent.StatusCancelled:
		return sdk.ToolCallStatusFailed
	}
	return sdk.ToolCallStatusPending
}

// pathArgs are the argument names built-in tools use for the file or
// directory they touch.
var pathArgs = []string{"file_path", "absolute_path", "path", "dir_path", "directory"}

// callLocations are the files a call touches, made absolute against root,
// so that the editor can follow along.
func callLocations(name string, args map[string]any, root string) []sdk.ToolCallLocation {
	var out []sdk.ToolCallLocation
	for _, k := range pathArgs {
		p, ok := args[k].(string)
		if !ok || strings.TrimSpace(p) == "" {
			continue
		}
		if !filepath.IsAbs(p) && root != "" {
			p = filepath.Join(root, p)
		}
		loc := sdk.ToolCallLocation{Path: filepath.Clean(p)}
		if name == "read_file" {
			if n, ok := args["offset"].(float64); ok && n >= 0 {
				loc.Line = sdk.Ptr(int(n) + 1)
			} else if n, ok := args["start_line"].(float64); ok && n >= 1 {
				loc.Line = sdk.Ptr(int(n))
			}
		}
		out = append(out, loc)
		break
	}
	return out
}

// diffContent is ACP's diff of one file; a nil old text is a new file.
// Like Gemini CLI it says in _meta.kind whether the file is added,
// deleted (emptied) or modified, for clients that label diffs.
func diffContent(path string, oldText *string, newText string) sdk.ToolCallContent {
	kind := "modify"
	switch {
	case oldText == nil || *oldText == "":
		kind = "add"
	case newText == "":
		kind = "delete"
	}
	return sdk.ToolCallContent{Diff: &sdk.ToolCallContentDiff{Type: "diff", Path: path, OldText: oldText, NewText: newText, Meta: map[string]any{"kind": kind}}}
}

// textContent is tool-call content holding text.
func textContent(s string) sdk.ToolCallContent { return sdk.ToolContent(sdk.TextBlock(s)) }

// confirmationContent shows what a call awaiting approval would do: the
// diff of an edit, the command of a shell call, the prompt of the rest.
func confirmationContent(c *agent.ToolCall) []sdk.ToolCallContent {
	if c.Confirmation == nil || c.Confirmation.Details == nil {
		return nil
	}
	d := c.Confirmation.Details
	switch d.Type {
	case tool.ConfirmEdit:
		path := d.FilePath
		if path == "" {
			path = d.FileName
		}
		old := d.OriginalContent
		if old != nil && *old == "" {
			// An empty original is a new file to the client too.
			old = nil
		}
		return []sdk.ToolCallContent{diffContent(path, old, d.NewContent)}
	case tool.ConfirmExec:
		if d.Command != "" {
			return []sdk.ToolCallContent{textContent(d.Command)}
		}
	case tool.ConfirmInfo:
		if d.Prompt != "" {
			return []sdk.ToolCallContent{textContent(d.Prompt)}
		}
	case tool.ConfirmExitPlanMode:
		return []sdk.ToolCallContent{textContent(d.Plan)}
	}
	return nil
}

// resultContent is what a finished call shows: its diff, else its display
// text, else its error.
func resultContent(c *agent.ToolCall) []sdk.ToolCallContent {
	r := c.Result
	if r == nil {
		return nil
	}
	if r.Diff != nil {
		path := r.Diff.FilePath
		if path == "" {
			path = r.Diff.FileName
		}
		content := []sdk.ToolCallContent{diffContent(path, r.Diff.OriginalContent, r.Diff.NewContent)}
		if r.Notes != "" {
			// The language server's new problems after the edit.
			content = append(content, textContent(r.Notes))
		}
		return content
	}
	text := r.Display
	if text == "" && r.Error != nil {
		text = r.Error.Message
	}
	if strings.TrimSpace(text) == "" {
		return nil
	}
	return []sdk.ToolCallContent{textContent(text)}
}

// startUpdate is the tool_call update announcing a call the client has
// not seen yet.
func startUpdate(c *agent.ToolCall, root string) sdk.SessionUpdate {
	content := confirmationContent(c)
	if c.Status.Terminal() {
		content = resultContent(c)
	}
	return sdk.SessionUpdate{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: sdk.ToolCallId(c.ID),
		Title:      callTitle(c),
		Kind:       callKind(c),
		Status:     callStatus(c.Status),
		Locations:  callLocations(c.Name, c.Args, root),
		RawInput:   rawArgs(c.Args),
		Content:    content,
	}}
}

// progressUpdate is the tool_call_update for a call the client knows.
func progressUpdate(c *agent.ToolCall) sdk.SessionUpdate {
	u := &sdk.SessionToolCallUpdate{
		ToolCallId: sdk.ToolCallId(c.ID),
		Status:     sdk.Ptr(callStatus(c.Status)),
	}
	switch {
	case c.Status.Terminal():
		u.Content = resultContent(c)
		if c.Result != nil && c.Result.LLMText != "" && c.Result.Diff == nil {
			u.RawOutput = map[string]any{"output": c.Result.LLMText}
		}
	case c.Status == agent.StatusAwaitingApproval:
		u.Content = confirmationContent(c)
	}
	return sdk.SessionUpdate{ToolCallUpdate: u}
}

// rawArgs keeps the client's rawInput an object even for calls without
// arguments.
func rawArgs(args map[string]any) any {
	if args == nil {
		return map[string]any{}
	}
	return args
}

// planUpdate turns write_todos arguments into ACP's plan; cancelled items
// are left out, since ACP has no such status.
func planUpdate(args map[string]any) (sdk.SessionUpdate, bool) {
	raw, ok := args["todos"].([]any)
	if !ok {
		return sdk.SessionUpdate{}, false
	}
	entries := []sdk.PlanEntry{}
	for _, it := range raw {
		m, ok := it.(map[string]any)
		if !ok {
			continue
		}
		desc, _ := m["description"].(string)
		st := sdk.PlanEntryStatusPending
		switch m["status"] {
		case "in_progress":
			st = sdk.PlanEntryStatusInProgress
		case "completed":
			st = sdk.PlanEntryStatusCompleted
		case "cancelled":
			continue
		}
		entries = append(entries, sdk.PlanEntry{Content: desc, Priority: sdk.PlanEntryPriorityMedium, Status: st})
	}
	return sdk.UpdatePlan(entries...), true
}

// thoughtText renders a parsed thought back as the model wrote it.
func thoughtText(t *agent.Thought) string {
	if t == nil {
		return ""
	}
	if t.Subject == "" {
		return t.Description
	}
	if t.Description == "" {
		return "**" + t.Subject + "**"
	}
	return "**" + t.Subject + "**\n" + t.Description
}

// refusal reports finish reasons that mean the model declined to answer.
func refusal(r genai.FinishReason) bool {
	switch r {
	case genai.FinishReasonSafety, genai.FinishReasonProhibitedContent, genai.FinishReasonBlocklist,
		genai.FinishReasonSPII, genai.FinishReasonRecitation, genai.FinishReasonImageSafety:
		return true
	}
	return false
}

// mapper turns one turn's engine events into ACP updates; it remembers
// which calls the client has seen and how the turn should stop.
type mapper struct {
	root string
	seen map[string]agent.Status // the last status sent of each call
	stop sdk.StopReason
	// usage sums the token counts of the turn's model responses; nil
	// until one reports them.
	usage *sdk.Usage
}

func newMapper(root string) *mapper {
	return &mapper{root: root, seen: map[string]agent.Status{}, stop: sdk.StopReasonEndTurn}
}

// updates returns the ACP updates of ev, in order.
func (m *mapper) updates(ev *agent.Event) []sdk.SessionUpdate {
	switch ev.Type {
	case agent.EventContent:
		if ev.Text != "" {
			return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(ev.Text)}
		}
	case agent.EventThought:
		if t := thoughtText(ev.Thought); t != "" {
			return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(t)}
		}
	case agent.EventToolCall:
		c := ev.Call
		if c == nil {
			return nil
		}
		if c.Status == agent.StatusValidating {
			// The tool and its description are not known yet.
			return nil
		}
		var out []sdk.SessionUpdate
		last, seen := m.seen[c.ID]
		switch {
		case !seen:
			out = append(out, startUpdate(c, m.root))
		case c.Status == last:
		case c.Status == agent.StatusAwaitingApproval || callStatus(c.Status) != callStatus(last):
			out = append(out, progressUpdate(c))
		}
		m.seen[c.ID] = c.Status
		if c.Name == "write_todos" && c.Status == agent.StatusSuccess {
			if u, ok := planUpdate(c.Args); ok {
				out = append(out, u)
			}
		}
		return out
	case agent.EventToolOutput:
		// Live output replaces the call's content as it grows (the
		// engine throttles it), so that a long command shows progress.
		c := ev.Call
		if c == nil {
			return nil
		}
		if _, seen := m.seen[c.ID]; !seen || c.Status.Terminal() {
			return nil
		}
		out := c.LiveOutput
		if out == "" {
			out = ev.Text
		}
		if out == "" {
			return nil
		}
		return []sdk.SessionUpdate{{ToolCallUpdate: &sdk.SessionToolCallUpdate{
			ToolCallId: sdk.ToolCallId(c.ID),
			Content:    []sdk.ToolCallContent{textContent(out)},
		}}}
	case agent.EventMaxSessionTurns:
		m.stop = sdk.StopReasonMaxTurnRequests
	case agent.EventFinished:
		m.addUsage(ev.Usage)
		switch {
		case refusal(ev.FinishReason):
			m.stop = sdk.StopReasonRefusal
		case ev.FinishReason == genai.FinishReasonMaxTokens:
			m.stop = sdk.StopReasonMaxTokens
		default:
			m.stop = sdk.StopReasonEndTurn
		}
	case agent.EventLoopDetected:
		// Gemini CLI reports a loop as running out of turns.
		m.stop = sdk.StopReasonMaxTurnRequests
		if ev.Text != "" {
			return []sdk.SessionUpdate{sdk.UpdateAgentMessageText("\n\n" + ev.Text)}
		}
	}
	return nil
}

// addUsage adds one response's token counts to the turn's, which the
// prompt's answer reports as ACP's usage.
func (m *mapper) addUsage(u *genai.GenerateContentResponseUsageMetadata) {
	if u == nil {
		return
	}
	if m.usage == nil {
		m.usage = &sdk.Usage{}
	}
	add := func(p **int, n int32) {
		if n == 0 {
			return
		}
		if *p == nil {
			*p = new(int)
		}
		**p += int(n)
	}
	m.usage.InputTokens += int(u.PromptTokenCount)
	m.usage.OutputTokens += int(u.CandidatesTokenCount)
	m.usage.TotalTokens += int(u.TotalTokenCount)
	add(&m.usage.CachedReadTokens, u.CachedContentTokenCount)
	add(&m.usage.ThoughtTokens, u.ThoughtsTokenCount)
}
