package a2a

import (
	"cmp"
	"strings"
	"time"

	"github.com/google/uuid"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/tool"
)

// updateKind says what an update reports.
type updateKind int

const (
	uTask     updateKind = iota // the task was created (first event)
	uState                      // a state change
	uText                       // model text
	uThought                    // a model thought
	uCitation                   // citations of a response
	uTool                       // a tool call changed
	uOutput                     // live output of an executing call
	uError                      // an error that does not end the turn
	uElicit                     // an MCP server asks the client (question)
	uRelay                      // events of a turn running on another replica
)

// stateReason says why the task changed state, which decides whether the
// extension format reports it.
type stateReason int

const (
	reasonPrompt    stateReason = iota // a prompt starts the model
	reasonTools                        // a batch of tool calls is scheduled
	reasonToolsDone                    // tool results go back to the model
	reasonEnd                          // the turn ended
)

// update is one thing that happened in a task, independent of the wire
// format; each stream renders it in its own format.
type update struct {
	kind    updateKind
	state   TaskState
	final   bool
	reason  stateReason
	text    string
	thought *agent.Thought
	// call is a snapshot of a tool call (uTool, uOutput). Its status and
	// outcome say what happened: an awaiting or scheduled call with an
	// outcome is one the user answered (a re-sent confirmation, an
	// approved call), a scheduled one without was scheduled unasked.
	call      *agent.ToolCall
	messageID string
	traceID   string
	model     string
	errMsg    string
	usage     *genai.GenerateContentResponseUsageMetadata
	time      time.Time
	// task is the snapshot sent as the first event of a new task.
	task *Task
	// workspace is the task's workspace, for execute details.
	workspace string
	// question is an MCP server's question to the client (uElicit).
	question *elicitation
	// relayed is a turn's update as another replica rendered it (uRelay),
	// and follower marks the final update a replica following another's
	// turn makes up: neither sends push notifications.
	relayed  *relayed
	follower bool
}

// renderer turns updates into A2A events for one stream. It keeps what a
// format needs to remember between events.
type renderer struct {
	ext bool
	// plain renders for a plain A2A client (plainclient.go): readable
	// text only.
	plain     bool
	taskID    string
	contextID string
	// sent is what was last sent per call, to send each change once: the
	// extension's status, or the live output in Gemini CLI's format.
	sent map[string]string
}

func newRenderer(ext bool, taskID, contextID string) *renderer {
	return &renderer{ext: ext, taskID: taskID, contextID: contextID, sent: map[string]string{}}
}

// render returns the events for u; it may be none.
func (r *renderer) render(u *update) []any {
	switch u.kind {
	case uRelay:
		evs := u.relayed.Ev[r.format()]
		out := make([]any, len(evs))
		for i, ev := range evs {
			out[i] = ev
		}
		return out
	case uTask:
		return []any{u.task}
	case uElicit:
		return r.message(u, "", devElicitation, DataPart(u.question.data()))
	case uOutput, uTool:
		if r.plain {
			return r.plainCall(u)
		}
		if r.ext {
			return r.extCall(u)
		}
		if u.kind == uOutput {
			return r.geminiOutput(u)
		}
		return r.geminiTool(u)
	case uState:
		// The extension's flow reports the start of work and the end of
		// the exchange; scheduling and feeding results back are visible
		// in the tool calls themselves.
		if r.ext && !u.final && u.reason != reasonPrompt {
			return nil
		}
		if u.text == "" {
			return r.message(u, "state-change", devStateChange)
		}
		return r.message(u, "state-change", devStateChange, TextPart(u.text))
	case uError:
		msg := u.text
		if !r.ext {
			msg = "Agent Error, unknown agent message: " + msg
		}
		return r.message(u, "state-change", devStateChange, TextPart(msg))
	case uText:
		if u.text != "" {
			return r.message(u, "text-content", devTextContent, TextPart(u.text))
		}
	case uCitation:
		// Gemini CLI reports citations apart and drops blank ones; the
		// extension reports them as text.
		if u.text != "" && (r.ext || strings.TrimSpace(u.text) != "") {
			return r.message(u, "citation", devTextContent, TextPart(u.text))
		}
	case uThought:
		if r.plain {
			return nil
		}
		if th := u.thought; th != nil && (th.Subject != "" || th.Description != "") {
			return r.message(u, "thought", devThought, DataPart(map[string]any{"subject": th.Subject, "description": th.Description}))
		}
	}
	return nil
}

// message is the status event for u, with an agent message of parts if
// there are any, and metadata of kind gemini or ext by the stream's
// format.
func (r *renderer) message(u *update, gemini, ext string, parts ...Part) []any {
	var msg *Message
	if len(parts) > 0 {
		msg = &Message{Kind: "message", Role: "agent", MessageID: cmp.Or(u.messageID, uuid.NewString()), Parts: parts, TaskID: r.taskID, ContextID: r.contextID}
	}
	return []any{&StatusUpdateEvent{
		Kind: "status-update", TaskID: r.taskID, ContextID: r.contextID,
		Status:   TaskStatus{State: u.state, Message: msg, Timestamp: stamp(u.time)},
		Final:    u.final,
		Metadata: r.meta(u, gemini, ext),
	}}
}

// meta is a status event's metadata: Gemini CLI's coderAgent of kind
// gemini with the model, trace and final usage, or the development-tool
// extension's event of kind ext keyed by its URI. An event Gemini CLI's
// format does not know (gemini "") is always the extension's.
func (r *renderer) meta(u *update, gemini, ext string) map[string]any {
	m := map[string]any{"model": u.model}
	if u.errMsg != "" {
		m["error"] = u.errMsg
	}
	if r.ext || gemini == "" {
		m["kind"] = ext
		return map[string]any{ExtensionURI: m}
	}
	m["coderAgent"] = map[string]any{"kind": gemini}
	if u.traceID != "" {
		m["traceId"] = u.traceID
	}
	if usage := u.usage; u.final && usage != nil {
		m["usageMetadata"] = map[string]any{
			"promptTokenCount":        usage.PromptTokenCount,
			"candidatesTokenCount":    usage.CandidatesTokenCount,
			"totalTokenCount":         usage.TotalTokenCount,
			"cachedContentTokenCount": usage.CachedContentTokenCount,
		}
	}
	return m
}

// --- Gemini CLI's wire format -------------------------------------------

func (r *renderer) geminiTool(u *update) []any {
	c := u.call
	kind := "tool-call-update"
	switch c.Status {
	case agent.StatusAwaitingApproval:
		if c.Outcome != "" {
			// The user's own answer (or a modify_with_editor that keeps
			// the call waiting): the client already got this
			// confirmation, and Gemini CLI's server reports only status
			// changes, so a second stream does not repeat it.
			return nil
		}
		kind = "tool-call-confirmation"
	}
	// The status goes out as the engine names it: Gemini CLI's released
	// A2A server (0.25.2) reports a new call as validating, then each
	// status once (newer sources remap validating to scheduled).
	data := geminiToolCall(c, string(c.Status), u.traceID)
	return r.message(u, kind, "", DataPart(data))
}

// geminiOutput reports live output as Gemini CLI's server does: each
// artifact-update carries the whole output so far (the shell tool hands
// its scheduler the accumulated output), marked append and not the last
// chunk. Clients written against it replace what they show with each
// update; sending fragments made them show only the newest line.
func (r *renderer) geminiOutput(u *update) []any {
	c := u.call
	if r.sent[c.ID] == u.text {
		return nil
	}
	r.sent[c.ID] = u.text
	return []any{&ArtifactUpdateEvent{
		Kind: "artifact-update", TaskID: r.taskID, ContextID: r.contextID,
		Artifact: Artifact{ArtifactID: "tool-" + c.ID + "-output", Parts: []Part{TextPart(u.text)}},
		Append:   true,
	}}
}

// geminiToolCall serialises a call as Gemini CLI's Task.toolStatusMessage
// does: the request, status, confirmation details, live output, response,
// outcome and the tool's description.
func geminiToolCall(c *agent.ToolCall, status, traceID string) map[string]any {
	args := c.Args
	if args == nil {
		args = map[string]any{}
	}
	req := map[string]any{
		"callId":            c.ID,
		"name":              c.Name,
		"args":              args,
		"isClientInitiated": false,
		"prompt_id":         c.PromptID,
	}
	if traceID != "" {
		req["traceId"] = traceID
	}
	if c.Checkpoint != "" {
		// Gemini CLI names the checkpoint taken before an edit here; Castor
		// takes it as the edit is written, so the call's updates carry it
		// from its result on.
		req["checkpoint"] = c.Checkpoint
	}
	m := map[string]any{"request": req, "status": status}
	if c.Confirmation != nil && c.Confirmation.Details != nil {
		m["confirmationDetails"] = c.Confirmation.Details
	}
	if c.LiveOutput != "" {
		m["liveOutput"] = c.LiveOutput
	}
	if c.Result != nil {
		resp := map[string]any{"callId": c.ID, "responseParts": c.Response}
		if c.Result.Diff != nil {
			resp["resultDisplay"] = c.Result.Diff
		} else if c.Result.Display != "" {
			resp["resultDisplay"] = c.Result.Display
		}
		if e := c.Result.Error; e != nil {
			// Gemini CLI serialises a JS Error as {}; the message is more
			// use to a client.
			resp["error"] = map[string]any{"message": e.Message}
			resp["errorType"] = string(e.Type)
		}
		m["response"] = resp
	}
	if c.Outcome != "" {
		m["outcome"] = string(c.Outcome)
	}
	if t := c.Tool; t != nil {
		m["tool"] = map[string]any{
			"name":             t.Name(),
			"displayName":      t.DisplayName(),
			"description":      t.Description(),
			"kind":             string(t.Kind()),
			"isOutputMarkdown": t.Kind() != tool.KindExecute,
			"canUpdateOutput":  t.Kind() == tool.KindExecute,
			"schema":           tool.Declaration(t),
			"parameterSchema":  t.Schema(),
		}
	}
	return m
}

// --- the development-tool extension ------------------------------------

// extCall reports a tool call's change, or its live output, as the
// extension's ToolCall, each status once.
func (r *renderer) extCall(u *update) []any {
	c := u.call
	tc := extToolCall(c, u.workspace)
	if u.kind == uOutput {
		tc.LiveContent = new(u.text)
		tc.Status = devExecuting
		r.sent[c.ID] = devExecuting
		return r.message(u, "", devToolCallUpdate, DataPart(tc))
	}
	// The RFC's flow shows neither validation nor the user's own answers
	// (a re-sent confirmation, the approved call scheduled).
	if c.Status == agent.StatusValidating || (c.Outcome != "" && (c.Status == agent.StatusAwaitingApproval || c.Status == agent.StatusScheduled)) {
		return nil
	}
	key := tc.Status
	if tc.ConfirmationRequest != nil {
		key += "+confirm"
	}
	if r.sent[c.ID] == key {
		return nil
	}
	r.sent[c.ID] = key
	return r.message(u, "", devToolCallUpdate, DataPart(tc))
}

// extStatuses are the extension's names of the engine's statuses; the
// others are all PENDING.
var extStatuses = lazy.Value[map[agent.Status]string]{New: func() map[agent.Status]string {
	return map[agent.Status]string{
		agent.StatusExecuting: devExecuting, agent.StatusSuccess: devSucceeded,
		agent.StatusError: devFailed, agent.StatusCancelled: devCancelled,
	}
}}

// extToolCall builds the extension's ToolCall for c.
func extToolCall(c *agent.ToolCall, workspace string) *devToolCall {
	args := c.Args
	if args == nil {
		args = map[string]any{}
	}
	tc := &devToolCall{ToolCallID: c.ID, Status: cmp.Or(extStatuses.Get()[c.Status], devPending), ToolName: c.Name, InputParameters: args}
	if c.Tool != nil {
		tc.ToolName = c.Tool.Name()
	}
	if c.Description != "" {
		tc.Description = new(c.Description)
	}
	if c.Status == agent.StatusExecuting && c.LiveOutput != "" {
		tc.LiveContent = new(c.LiveOutput)
	}
	if c.Status == agent.StatusAwaitingApproval && c.Confirmation != nil && c.Confirmation.Details != nil {
		tc.ConfirmationRequest = extConfirmation(c.Confirmation, workspace)
	}
	if res := c.Result; res != nil && c.Status.Terminal() {
		if res.Error != nil {
			tc.Error = &devErrorDetails{Message: res.Error.Message, Type: string(res.Error.Type)}
		} else {
			tc.Output = extOutput(c)
		}
	}
	return tc
}

func extOutput(c *agent.ToolCall) *devToolOutput {
	res := c.Result
	if d := res.Diff; d != nil {
		return &devToolOutput{Diff: &devFileDiff{
			FileName: d.FileName, FilePath: d.FilePath, OldContent: d.OriginalContent,
			NewContent: d.NewContent, FormattedDiff: d.FileDiff,
		}}
	}
	// A tool that answered with a structured functionResponse (other than
	// the plain {"output": text}) keeps its structure.
	if p := res.LLMPart; p != nil && p.FunctionResponse != nil {
		if _, plain := p.FunctionResponse.Response["output"]; !plain || len(p.FunctionResponse.Response) > 1 {
			return &devToolOutput{StructuredData: p.FunctionResponse.Response}
		}
	}
	text := res.Display
	if text == "" {
		text = res.ResponseText()
	}
	return &devToolOutput{Text: &text}
}

// extOptions are the choices offered for a confirmation; their ids are
// Gemini CLI's outcome names, which is what a ToolCallConfirmation sends
// back. Under security.disableAlwaysAllow only once and reject are.
func extOptions(d *tool.ConfirmationDetails, onceOnly bool) []devConfirmationOption {
	once := devConfirmationOption{ID: string(tool.ProceedOnce), Name: "Allow once"}
	reject := devConfirmationOption{ID: string(tool.Cancel), Name: "Reject", Description: "Do not run this call; the rest of the batch is cancelled too."}
	if onceOnly {
		return []devConfirmationOption{once, reject}
	}
	switch d.Type {
	case tool.ConfirmExec:
		root := d.RootCommand
		if root == "" {
			root = strings.Join(d.RootCommands, ", ")
		}
		return []devConfirmationOption{once, {ID: string(tool.ProceedAlways), Name: "Always allow " + root, Description: "Run " + root + " without asking for the rest of the task."}, reject}
	case tool.ConfirmMCP:
		return []devConfirmationOption{once,
			{ID: string(tool.ProceedAlwaysTool), Name: "Always allow tool " + d.ToolName},
			{ID: string(tool.ProceedAlwaysServer), Name: "Always allow server " + d.ServerName},
			reject}
	}
	return []devConfirmationOption{once, {ID: string(tool.ProceedAlways), Name: "Allow for this task", Description: "Run calls of this tool without asking for the rest of the task."}, reject}
}

func extConfirmation(c *agent.Confirmation, workspace string) *devConfirmationRequest {
	d := c.Details
	cr := &devConfirmationRequest{Options: extOptions(d, c.OnceOnly)}
	switch d.Type {
	case tool.ConfirmEdit:
		cr.FileEditDetails = &devFileDiff{FileName: d.FileName, FilePath: d.FilePath, OldContent: d.OriginalContent, NewContent: d.NewContent, FormattedDiff: d.FileDiff}
	case tool.ConfirmExec:
		cr.ExecuteDetails = &devExecuteDetails{Command: d.Command, WorkingDirectory: workspace}
	case tool.ConfirmMCP:
		cr.McpDetails = &devMcpDetails{ServerName: d.ServerName, ToolName: d.ToolName}
	default:
		desc := d.Title
		if d.Prompt != "" {
			desc = strings.TrimSpace(desc + "\n" + d.Prompt)
		}
		if len(d.URLs) > 0 {
			desc += "\nURLs: " + strings.Join(d.URLs, ", ")
		}
		desc += questionText(d) // questions.go
		cr.GenericDetails = &devGenericDetails{Description: desc}
	}
	return cr
}
