package cli

// One long-lived headless process: with --input-format stream-json, castor
// reads JSON lines on stdin and answers each user message as a turn of the
// same session, until stdin closes. Gemini CLI has no such mode (its issue
// #2023), so the input lines follow the shape Claude Code's users know
// ({"type":"user","message":{"role":"user","content":...}}), while the
// output stays Castor's stream-json, Gemini CLI's event shapes, with one
// result per turn. Two events are added for confirmations: castor writes a
// permission_request line and waits for a permission_response line. MCP
// servers' questions go the same way (streamelicit.go).

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/jsonerr"
	"github.com/castor-dev/castor/internal/memtrim"
	"github.com/castor-dev/castor/internal/setup"
	"github.com/castor-dev/castor/mcp"
	"github.com/castor-dev/castor/tool"
)

// Input formats, as --input-format names them.
const (
	InputText       = "text"
	InputStreamJSON = "stream-json"
)

// maxInputLine bounds one stream-json input line, as maxPipedInput bounds
// piped text: a longer line is reported and skipped, not buffered whole.
const maxInputLine = maxPipedInput

// checkInputFormat validates --input-format against the output format:
// stream-json input answers with stream-json events only, as in Claude
// Code, because a host reading them needs to tell turns apart.
func checkInputFormat(f *flags) error {
	switch f.inputFormat {
	case "", InputText:
		return nil
	case InputStreamJSON:
		if f.output != FormatStreamJSON {
			return &usageError{msg: "--input-format stream-json needs --output-format stream-json"}
		}
		return nil
	}
	return &usageError{msg: fmt.Sprintf("invalid input format %q: use text or stream-json", f.inputFormat)}
}

// firstStreamPrompt is the prompt given with -p or as words, which a
// stream-json input session runs before reading stdin; it may be empty.
func firstStreamPrompt(f *flags, args []string) string {
	if f.prompt != "" {
		return f.prompt
	}
	return strings.Join(args, " ")
}

// inputKind says what an input line asks for.
type inputKind int

const (
	inputUser       inputKind = iota + 1 // a user message: a turn
	inputPermission                      // an answer to a permission_request
	inputControl                         // a control request (interrupt)
	inputElicit                          // an answer to an elicitation_request (streamelicit.go)
)

// inputLine is one parsed stream-json input line.
type inputLine struct {
	kind inputKind
	// text and images are a user message's content.
	text   string
	images []*genai.Part
	// toolID and outcome answer a permission request.
	toolID  string
	outcome tool.Outcome
	// answers and plan are the rest of the answer to an ask_user or
	// exit_plan_mode request (streamanswers.go).
	answers map[string]string
	plan    *tool.PlanVerdict
	// subtype names a control request; requestID is set when it came in
	// Claude Code's control_request envelope, which expects a
	// control_response.
	subtype   string
	requestID string
	// interrupted marks a user message an interrupt reached before its
	// turn started: the turn ends at once as cancelled.
	interrupted bool
	// action and content answer an elicitation request (requestID).
	action  mcp.ElicitAction
	content json.RawMessage
}

// rawInput is every field an input line may carry; unknown fields (a
// Claude Code host's session_id, parent_tool_use_id, uuid) are ignored.
type rawInput struct {
	Type      string          `json:"type"`
	Message   json.RawMessage `json:"message"`
	ToolID    string          `json:"tool_id"`
	Decision  string          `json:"decision"`
	Subtype   string          `json:"subtype"`
	RequestID string          `json:"request_id"`
	Request   *struct {
		Subtype string `json:"subtype"`
	} `json:"request"`
	Action  string          `json:"action"`
	Content json.RawMessage `json:"content"`
	// An ask_user or exit_plan_mode answer (streamanswers.go).
	Answers      map[string]string `json:"answers"`
	Approved     *bool             `json:"approved"`
	ApprovalMode string            `json:"approval_mode"`
	Feedback     string            `json:"feedback"`
}

// contentBlock is one block of a user message's content array.
type contentBlock struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Source *struct {
		Type      string `json:"type"`
		MediaType string `json:"media_type"`
		Data      string `json:"data"`
	} `json:"source"`
}

// parseInputLine parses one input line. A blank line gives nil and no
// error; anything else that is not a line castor understands gives an
// error saying why, for the error event that reports the line.
func parseInputLine(b []byte) (*inputLine, error) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 {
		return nil, nil
	}
	if b[0] != '{' {
		return nil, errors.New("not a JSON object")
	}
	var raw rawInput
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, fmt.Errorf("invalid JSON: %s", jsonerr.Describe(err))
	}
	switch raw.Type {
	case "user":
		return parseUser(raw.Message)
	case "permission_response":
		if raw.ToolID == "" {
			return nil, errors.New(`permission_response without "tool_id"`)
		}
		o := tool.Outcome(raw.Decision)
		if !o.Valid() || o == tool.ModifyWithEditor {
			return nil, fmt.Errorf("permission_response: unknown decision %q: use proceed_once, proceed_always, proceed_always_server, proceed_always_tool or cancel", raw.Decision)
		}
		return permissionLine(raw, o)
	case "control":
		if raw.Subtype != "interrupt" {
			return nil, fmt.Errorf("unknown control subtype %q: use interrupt", raw.Subtype)
		}
		return &inputLine{kind: inputControl, subtype: raw.Subtype}, nil
	case "control_request":
		if raw.RequestID == "" || raw.Request == nil {
			return nil, errors.New(`control_request needs "request_id" and "request"`)
		}
		// Unknown subtypes are parsed, so that the loop answers them with
		// an error control_response the host is waiting for.
		return &inputLine{kind: inputControl, subtype: raw.Request.Subtype, requestID: raw.RequestID}, nil
	case "elicitation_response":
		return parseElicitResponse(raw)
	case "":
		return nil, errors.New(`no "type": use user, permission_response, elicitation_response or control`)
	}
	return nil, fmt.Errorf("unknown type %q: use user, permission_response, elicitation_response or control", raw.Type)
}

// parseUser reads a user message: a string, or {"role":"user","content":…}
// with content a string or an array of text and base64 image blocks.
func parseUser(msg json.RawMessage) (*inputLine, error) {
	msg = bytes.TrimSpace(msg)
	if len(msg) == 0 || string(msg) == "null" {
		return nil, errors.New(`user line without "message"`)
	}
	in := &inputLine{kind: inputUser}
	var content json.RawMessage
	if msg[0] == '"' {
		content = msg
	} else {
		var m struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(msg, &m); err != nil {
			return nil, fmt.Errorf("message: %s", jsonerr.Describe(err))
		}
		if m.Role != "" && m.Role != "user" {
			return nil, fmt.Errorf("message: role %q: only user messages are accepted", m.Role)
		}
		content = bytes.TrimSpace(m.Content)
	}
	switch {
	case len(content) == 0 || string(content) == "null":
		return nil, errors.New(`message without "content"`)
	case content[0] == '"':
		if err := json.Unmarshal(content, &in.text); err != nil {
			return nil, fmt.Errorf("message content: %s", jsonerr.Describe(err))
		}
	default:
		var blocks []contentBlock
		if err := json.Unmarshal(content, &blocks); err != nil {
			return nil, fmt.Errorf("message content must be a string or an array of blocks: %s", jsonerr.Describe(err))
		}
		var texts []string
		for i, bl := range blocks {
			switch bl.Type {
			case "text":
				texts = append(texts, bl.Text)
			case "image":
				if bl.Source == nil || bl.Source.Type != "base64" || bl.Source.MediaType == "" {
					return nil, fmt.Errorf("content block %d: an image needs a base64 source with media_type", i)
				}
				data, err := base64.StdEncoding.DecodeString(bl.Source.Data)
				if err != nil {
					return nil, fmt.Errorf("content block %d: image data: %v", i, err)
				}
				in.images = append(in.images, &genai.Part{InlineData: &genai.Blob{MIMEType: bl.Source.MediaType, Data: data}})
			default:
				return nil, fmt.Errorf("content block %d: unsupported type %q: use text or image", i, bl.Type)
			}
		}
		in.text = strings.Join(texts, "\n")
	}
	if strings.TrimSpace(in.text) == "" && len(in.images) == 0 {
		return nil, errors.New("empty user message")
	}
	return in, nil
}

// readInputLines calls fn with each line of r and its 1-based number,
// without the line break. A line longer than max is given as tooLong,
// with no content, and the reading goes on after it.
func readInputLines(r io.Reader, max int, fn func(n int, line []byte, tooLong bool)) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	long, n := false, 0
	for {
		frag, err := br.ReadSlice('\n')
		if !long {
			if len(buf)+len(frag) > max+2 { // room for "\r\n"
				long, buf = true, buf[:0]
			} else {
				buf = append(buf, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil || len(buf) > 0 || long {
			n++
			line := bytes.TrimRight(buf, "\r\n")
			if len(line) > max { // within the room left for the line break
				long, line = true, nil
			}
			fn(n, line, long)
			buf, long = buf[:0], false
		}
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// lockedWriter serializes whole writes: events of a turn and reports of
// bad input lines come from two goroutines, and each line is one Write.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// streamSession is the state of a stream-json input session: the user
// messages waiting for their turn, the confirmations waiting for an
// answer and the running turn's cancel.
type streamSession struct {
	out *streamRenderer

	mu      sync.Mutex
	queue   []*inputLine
	eof     bool
	ready   chan struct{} // signalled when queue or eof changes
	waiting map[string]chan tool.Decision
	// current is the message being answered, from the moment it leaves
	// the queue; cancel, the running turn's, once it started.
	current *inputLine
	cancel  context.CancelFunc
	// elicits are the MCP servers' questions waiting for an
	// elicitation_response, by request_id; elicitSeq numbers them;
	// reading says stdin is read, so that an answer can come.
	elicits   map[string]*pendingElicit
	elicitSeq int
	reading   bool
}

func newStreamSession(out *streamRenderer) *streamSession {
	return &streamSession{out: out, ready: make(chan struct{}, 1), waiting: map[string]chan tool.Decision{}, elicits: map[string]*pendingElicit{}}
}

func (s *streamSession) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// read dispatches stdin's lines until it closes: user messages are
// queued, permission responses and interrupts act at once, even while a
// turn runs.
func (s *streamSession) read(r io.Reader) {
	err := readInputLines(r, maxInputLine, func(n int, line []byte, tooLong bool) {
		if tooLong {
			s.badLine(n, fmt.Errorf("longer than %d bytes", maxInputLine))
			return
		}
		in, err := parseInputLine(line)
		if err != nil {
			s.badLine(n, err)
			return
		}
		if in == nil {
			return
		}
		switch in.kind {
		case inputUser:
			s.mu.Lock()
			s.queue = append(s.queue, in)
			s.mu.Unlock()
			s.signal()
		case inputPermission:
			if !s.answer(in.toolID, tool.Decision{Outcome: in.outcome, Answers: in.answers, Plan: in.plan}) {
				s.badLine(n, fmt.Errorf("no permission request is pending for tool_id %q", in.toolID))
			}
		case inputControl:
			s.control(n, in)
		case inputElicit:
			if err := s.answerElicit(in); err != nil {
				s.badLine(n, err)
			}
		}
	})
	if err != nil {
		s.out.errorLine(0, "reading stdin: "+err.Error())
	}
	// Nobody can answer a confirmation any more: the calls waiting are
	// cancelled, so that the turn ends and the process with it.
	s.mu.Lock()
	s.eof = true
	for id, ch := range s.waiting {
		select { // a call is waiting under two ids, one channel
		case ch <- tool.Decision{Outcome: tool.Cancel}:
		default:
		}
		delete(s.waiting, id)
	}
	s.cancelElicits()
	s.mu.Unlock()
	s.signal()
}

func (s *streamSession) badLine(n int, err error) {
	s.out.errorLine(n, fmt.Sprintf("stdin line %d skipped: %s", n, err.Error()))
}

// control runs a control request: interrupt cancels the turn in
// progress, which is the oldest message not yet answered, so that a host
// sending a message and at once an interrupt cancels that message's turn
// whether or not it started. With nothing in progress it does nothing. A
// request in Claude Code's envelope gets its control_response.
func (s *streamSession) control(n int, in *inputLine) {
	if in.subtype != "interrupt" {
		s.out.controlResponse(in.requestID, fmt.Sprintf("unsupported control request subtype %q", in.subtype))
		s.badLine(n, fmt.Errorf("unsupported control request subtype %q", in.subtype))
		return
	}
	s.mu.Lock()
	// The questions MCP servers asked for the interrupted turn are
	// dismissed, whether or not the server gives up on them itself.
	s.cancelElicits()
	switch {
	case s.cancel != nil:
		s.cancel()
	case s.current != nil:
		s.current.interrupted = true
	case len(s.queue) > 0:
		s.queue[0].interrupted = true
	}
	s.mu.Unlock()
	if in.requestID != "" {
		s.out.controlResponse(in.requestID, "")
	}
}

// next returns the next user message, waiting for one; false once stdin
// closed with nothing queued, or ctx ended.
func (s *streamSession) next(ctx context.Context) (*inputLine, bool) {
	for {
		s.mu.Lock()
		if len(s.queue) > 0 {
			in := s.queue[0]
			s.queue = s.queue[1:]
			s.current = in
			s.mu.Unlock()
			return in, true
		}
		eof := s.eof
		s.mu.Unlock()
		if eof {
			return nil, false
		}
		select {
		case <-s.ready:
		case <-ctx.Done():
			return nil, false
		}
	}
}

// answer delivers a decision to the confirmation waiting under toolID,
// which may be the printed tool_id or the bare call id.
func (s *streamSession) answer(toolID string, d tool.Decision) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	ch, ok := s.waiting[toolID]
	if !ok {
		return false
	}
	for id, c := range s.waiting {
		if c == ch {
			delete(s.waiting, id)
		}
	}
	ch <- d
	return true
}

// confirm is the session's Confirm: it writes a permission_request and
// waits for the permission_response line, an interrupt, or the end of
// stdin (which cancels the call).
func (s *streamSession) confirm(ctx context.Context, c *agent.ToolCall) (tool.Decision, error) {
	ch := make(chan tool.Decision, 1)
	id := toolID(c)
	s.mu.Lock()
	if s.eof {
		s.mu.Unlock()
		return tool.Decision{Outcome: tool.Cancel}, nil
	}
	s.waiting[id] = ch
	s.waiting[c.ID] = ch
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		delete(s.waiting, id)
		delete(s.waiting, c.ID)
		s.mu.Unlock()
	}()
	s.out.permissionRequest(c)
	select {
	case d := <-ch:
		return d, nil
	case <-ctx.Done():
		return tool.Decision{}, ctx.Err()
	}
}

// turn runs one user message as a turn and writes its events and result;
// it returns the turn's exit code.
func (s *streamSession) turn(ctx context.Context, a *setup.Agent, in *inputLine) int {
	tctx, cancel := context.WithCancel(ctx)
	defer cancel()
	s.mu.Lock()
	s.current, s.cancel = in, cancel
	if in.interrupted {
		cancel()
	}
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.current, s.cancel = nil, nil
		s.mu.Unlock()
	}()
	start, before := time.Now(), a.Session.Stats()
	s.out.userMessage(in.text)
	var runErr error
	var parts []*genai.Part
	if strings.TrimSpace(in.text) != "" {
		p, err := a.ExpandPrompt(tctx, in.text)
		if err != nil && tctx.Err() == nil {
			runErr = &inputError{msg: err.Error()}
		} else if err != nil {
			runErr = err
		}
		parts = p
	}
	parts = append(parts, in.images...)
	if runErr == nil {
		for ev, err := range a.Session.Send(tctx, parts...) {
			if err != nil {
				runErr = err
				break
			}
			s.out.event(ev)
		}
	}
	if runErr == nil && tctx.Err() != nil {
		runErr = tctx.Err()
	}
	runErr = turnOutcome(runErr)
	code := exitCode(runErr)
	setPrice(s.out, a.Price)
	s.out.finish(turnStats(a.Session.Stats(), before), runErr, code, time.Since(start))
	return code
}

// turnStats are the counts of one turn, the session's counts now less
// those before it, in the fields a result event reports (tokens per
// model, tool calls), so that a host adding up results counts each token
// once.
func turnStats(now, before agent.Stats) agent.Stats {
	out := castorStatsZero()
	for name, m := range now.Models {
		cp := *m
		if b, ok := before.Models[name]; ok {
			t := &cp.Tokens
			t.Input -= b.Tokens.Input
			t.Prompt -= b.Tokens.Prompt
			t.Candidates -= b.Tokens.Candidates
			t.Total -= b.Tokens.Total
			t.Cached -= b.Tokens.Cached
			t.Thoughts -= b.Tokens.Thoughts
			t.Tool -= b.Tokens.Tool
			cp.API.TotalRequests -= b.API.TotalRequests
		}
		if cp.API.TotalRequests > 0 || cp.Tokens != (agent.TokenStats{}) {
			out.Models[name] = &cp
		}
	}
	out.Tools.TotalCalls = now.Tools.TotalCalls - before.Tools.TotalCalls
	return out
}

// runStreamInput runs the stream-json input session. first, when not
// empty, is a prompt given with -p or as words, run before stdin's
// messages. The exit code is the last turn's, or 130 when a signal ended
// the session.
func runStreamInput(ctx context.Context, opts setup.Options, first string, stdio IO, raw bool) int {
	out := &streamRenderer{w: &lockedWriter{w: stdio.Stdout}, errw: stdio.Stderr, cleaner: cleaner{raw: raw}}
	s := newStreamSession(out)
	opts.Confirm = s.confirm
	opts.Elicit = s.elicit
	memtrim.Limit() // one process, many turns
	start := time.Now()
	a, err := setup.New(ctx, opts)
	if err != nil {
		code := exitCode(err)
		out.initEvent("", opts.Model)
		out.finish(castorStatsZero(), err, code, time.Since(start))
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oneLine(errorMessage(err)))
		return code
	}
	defer a.Close()
	out.onceOnly = !a.Policy.OffersAlways()
	out.initEvent(a.Session.ID(), a.Session.Model())
	if stdio.Stdin != nil {
		s.mu.Lock()
		s.reading = true // from now on an elicitation_response can arrive
		s.mu.Unlock()
		go s.read(stdio.Stdin)
	} else {
		s.eof = true
	}
	code := ExitOK
	if strings.TrimSpace(first) != "" {
		code = s.turn(ctx, a, &inputLine{kind: inputUser, text: first})
	}
	for ctx.Err() == nil {
		in, ok := s.next(ctx)
		if !ok {
			break
		}
		code = s.turn(ctx, a, in)
		memtrim.AfterTurn()
	}
	if oe := outputFailure(ctx); oe != nil {
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oe) // stdoutguard.go
		return ExitError
	}
	if ctx.Err() != nil {
		fmt.Fprintf(stdio.Stderr, "Error: %s\n", oneLine(errorMessage(ctx.Err())))
		return ExitCancelled
	}
	return code
}

// permissionOption is one answer offered in a permission_request; its id
// is the decision a permission_response sends back.
type permissionOption struct {
	ID   string `json:"id"`
	Name string `json:"name"`
}

// permissionOptions are the decisions offered for a confirmation of
// details d, the same choices the terminal offers.
func permissionOptions(d *tool.ConfirmationDetails) []permissionOption {
	if opts, ok := questionOptions(d); ok {
		return opts
	}
	once := permissionOption{string(tool.ProceedOnce), "Allow once"}
	cancel := permissionOption{string(tool.Cancel), "Reject (the other calls of the batch are cancelled too)"}
	always := permissionOption{string(tool.ProceedAlways), "Allow for this session"}
	if d != nil {
		switch d.Type {
		case tool.ConfirmEdit:
			always.Name = "Allow all edits for this session"
		case tool.ConfirmExec:
			root := d.RootCommand
			if root == "" {
				root = strings.Join(d.RootCommands, ", ")
			}
			if root != "" {
				always.Name = "Always allow " + root + " for this session"
			}
		case tool.ConfirmMCP:
			return []permissionOption{once,
				{string(tool.ProceedAlwaysTool), "Always allow tool " + d.ToolName + " for this session"},
				{string(tool.ProceedAlwaysServer), "Always allow server " + d.ServerName + " for this session"},
				cancel}
		}
	}
	return []permissionOption{once, always, cancel}
}

// initEvent writes the init event that opens the session.
func (r *streamRenderer) initEvent(sessionID, model string) {
	r.model = model
	r.line(struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		SessionID string `json:"session_id"`
		Model     string `json:"model"`
	}{"init", stamp(), r.str(sessionID), r.str(model)})
}

// userMessage writes the user message event that opens a turn.
func (r *streamRenderer) userMessage(prompt string) {
	r.line(struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Role      string `json:"role"`
		Content   string `json:"content"`
	}{"message", stamp(), "user", r.str(prompt)})
}

// errorLine writes an error event about the input; line is the stdin
// line it is about (0: none).
func (r *streamRenderer) errorLine(line int, msg string) {
	r.line(struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Severity  string `json:"severity"`
		Message   string `json:"message"`
		Line      int    `json:"line,omitempty"`
	}{"error", stamp(), "error", r.str(msg), line})
}

// permissionRequest writes the line asking the host about call c.
func (r *streamRenderer) permissionRequest(c *agent.ToolCall) {
	params := c.Args
	if params == nil {
		params = map[string]any{}
	}
	var details *tool.ConfirmationDetails
	if c.Confirmation != nil {
		details = c.Confirmation.Details
	}
	var det any
	if details != nil {
		// Through JSON, so that the cleaner sees every string.
		b, _ := json.Marshal(details)
		var m map[string]any
		if json.Unmarshal(b, &m) == nil {
			det = r.value(m)
		}
	}
	r.line(struct {
		Type        string             `json:"type"`
		Timestamp   string             `json:"timestamp"`
		ToolID      string             `json:"tool_id"`
		ToolName    string             `json:"tool_name"`
		Parameters  any                `json:"parameters"`
		Description string             `json:"description,omitempty"`
		Details     any                `json:"details,omitempty"`
		Options     []permissionOption `json:"options"`
	}{"permission_request", stamp(), r.str(toolID(c)), r.str(c.Name), r.value(params), r.str(c.Description), det, cleanOptions(r, r.offered(permissionOptions(details)))})
}

func cleanOptions(r *streamRenderer, opts []permissionOption) []permissionOption {
	for i := range opts {
		opts[i].Name = r.str(opts[i].Name)
	}
	return opts
}

// controlResponse answers a control_request in Claude Code's envelope;
// errMsg empty means success.
func (r *streamRenderer) controlResponse(requestID, errMsg string) {
	if requestID == "" {
		return
	}
	type body struct {
		Subtype   string `json:"subtype"`
		RequestID string `json:"request_id"`
		Error     string `json:"error,omitempty"`
	}
	b := body{Subtype: "success", RequestID: r.str(requestID)}
	if errMsg != "" {
		b.Subtype, b.Error = "error", r.str(errMsg)
	}
	r.line(struct {
		Type      string `json:"type"`
		Timestamp string `json:"timestamp"`
		Response  body   `json:"response"`
	}{"control_response", stamp(), b})
}
