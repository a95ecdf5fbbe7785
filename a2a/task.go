package a2a

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a/internal/host"
	"github.com/castor-dev/castor/a2a/internal/webhook"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/policy"
	"github.com/castor-dev/castor/tool"
)

// maxQueued bounds the events waiting for one slow stream; past it the
// stream is dropped rather than the task slowed down or memory spent.
const maxQueued = 10000

// subscriber receives a task's updates for one stream.
type subscriber = host.Subscriber[*update]

func newSubscriber() *subscriber { return host.NewSubscriber[*update](maxQueued) }

// task is a task held in memory.
type task struct {
	srv       *Server
	id        string
	contextID string
	// gate serialises turns; the queue (queue.go) orders them.
	gate host.Gate
	// saving orders the task's saves (Server.save): a snapshot reaches
	// the store only after the snapshots taken before it.
	saving sync.Mutex

	mu        sync.Mutex
	settings  AgentSettings
	mode      policy.Mode
	state     TaskState
	status    TaskStatus
	history   []Message
	textIdx   map[string]int
	artifacts []Artifact
	push      []PushNotificationConfig
	// session is the task's engine session, built on its first turn in
	// this process; it keeps the conversation and the calls a paused turn
	// waits on, which the store keeps (StoredTask.Conversation, Pending).
	session *host.Session
	// built is what NewSession built with the session last: the task's
	// commands and prompt expansion (builtFor).
	built *TaskSession
	ext   bool
	// plain is set for a task a plain A2A client created (plainclient.go).
	plain bool
	model string
	usage *genai.GenerateContentResponseUsageMetadata
	subs  map[*subscriber]struct{}
	// running: a turn runs or messages wait for one (queue.go); turn is
	// the running turn, nil while they wait.
	running bool
	turn    *host.Turn
	// queue holds the messages accepted for the turns after this one;
	// stopWait, set while the task waits for a turn slot, stops the wait.
	queue       []*queued
	stopWait    context.CancelFunc
	turns       int
	lastActive  time.Time
	pushDeliver webhook.Coalescer // one webhook delivery at a time
	// question is the MCP server's question the running turn waits on,
	// and turnDone closes when that turn is cancelled or times out.
	question *elicitation
	turnDone <-chan struct{}
	// version is the task's version in a SharedStore this process last
	// saved or loaded (0: never stored); lease is the task's lease while
	// turns run or wait here, taken and given back under leaseMu
	// (replicas.go).
	version int64
	leaseMu sync.Mutex
	lease   Lease
	// relay renders the turn's events for other replicas (EventLog;
	// relay.go), under saving; following is set while this process
	// streams a turn running on another replica to subscribers here.
	relay     *relayRenderers
	following bool
}

func (s *Server) newTask(id, contextID string, settings AgentSettings) *task {
	t := &task{
		srv: s, id: id, contextID: contextID, gate: host.NewGate(),
		settings: settings, state: StateSubmitted, textIdx: map[string]int{},
		subs: map[*subscriber]struct{}{}, lastActive: s.now(),
		status: TaskStatus{State: StateSubmitted, Timestamp: stamp(s.now())},
	}
	// A turn paused for confirmations in an earlier process pauses again.
	t.session = host.NewSession(t.buildSession, "the server restarted before the call was confirmed.", func(err error) {
		s.log.Warn("a2a: could not restore the pending tool calls", "task", id, "error", err)
	})
	return t
}

// metadata is the task metadata in Gemini CLI's persisted shape.
func (t *task) metadataLocked() map[string]any {
	st := t.settings
	st.Kind = "agent-settings"
	st.IsTrusted = false
	meta := map[string]any{
		"__persistedState": map[string]any{"_agentSettings": st, "_taskState": t.state},
		"_contextId":       t.contextID,
	}
	if note := t.srv.approvalCapped(st); note != "" {
		// Where a client that asked for autoExecute looks first.
		meta["approvalModeCapped"] = note
	}
	return meta
}

// snapshot returns the task as tasks/get shows it, with at most
// historyLength messages of history (nil: all).
func (t *task) snapshot(historyLength *int) *Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.snapshotLocked(historyLength)
}

func (t *task) snapshotLocked(historyLength *int) *Task {
	hist := t.history
	if historyLength != nil {
		n := *historyLength
		if n < len(hist) {
			hist = hist[len(hist)-n:]
		}
	}
	st := t.status
	st.State = t.state
	if t.waitingLocked() {
		// A message was accepted and waits for its turn: the task is
		// submitted again, not yet working.
		st = TaskStatus{State: StateSubmitted, Timestamp: st.Timestamp}
	}
	out := &Task{
		Kind: "task", ID: t.id, ContextID: t.contextID, Status: st,
		History:   append([]Message(nil), hist...),
		Artifacts: append([]Artifact(nil), t.artifacts...),
		Metadata:  t.metadataLocked(),
	}
	return out
}

// waitingLocked reports whether messages wait for a turn that has not
// started.
func (t *task) waitingLocked() bool {
	return t.running && t.turn == nil && !t.state.Terminal()
}

// shownStateLocked is the state tasks/get and listings show.
func (t *task) shownStateLocked() TaskState {
	if t.waitingLocked() {
		return StateSubmitted
	}
	return t.state
}

func (t *task) storedLocked() *StoredTask {
	conv, pending := t.session.Kept()
	st := t.status
	st.State = t.state
	meta := t.metadataLocked()
	if t.running {
		// Saved as its turn starts: a process that dies now leaves a task
		// a new one knows was interrupted (Server.restore), with the
		// turn's message in its history.
		st = TaskStatus{State: StateWorking, Timestamp: st.Timestamp}
		meta["__persistedState"].(map[string]any)["_taskState"] = StateWorking
	}
	if t.plain {
		// Kept for the next process, not shown: plainclient.go.
		meta["__persistedState"].(map[string]any)[storedPlainKey] = true
	}
	return &StoredTask{
		ID: t.id, ContextID: t.contextID, State: st.State, Timestamp: t.lastActive,
		Status: st, Settings: t.settings, Metadata: meta,
		History:      append([]Message(nil), t.history...),
		Artifacts:    append([]Artifact(nil), t.artifacts...),
		Conversation: append([]*genai.Content(nil), conv...),
		PushConfigs:  append([]PushNotificationConfig(nil), t.push...),
		Pending:      append([]agent.PendingCall(nil), pending...),
	}
}

func (t *task) subscribe(s *subscriber) {
	t.mu.Lock()
	t.subs[s] = struct{}{}
	t.mu.Unlock()
}

func (t *task) unsubscribe(s *subscriber) {
	t.mu.Lock()
	delete(t.subs, s)
	t.mu.Unlock()
}

// publish records u in the task and sends it to every stream and webhook,
// streamed text once it is saved (saveText).
func (t *task) publish(u *update) {
	subs := t.record(u)
	t.srv.saveEvent(t, u)
	t.fanout(u, subs)
}

// record applies u to the task's state and returns the subscribers to
// tell; fanout tells them. They are apart so that a turn's end can be
// saved between the two.
func (t *task) record(u *update) []*subscriber {
	t.mu.Lock()
	u.time = t.srv.now()
	if u.model == "" {
		u.model = t.model
	}
	u.workspace = t.settings.WorkspacePath
	if u.kind == uState || (u.final && u.state != "") {
		t.state = u.state
	} else if u.state == "" {
		u.state = t.state
	}
	if u.final && u.usage == nil {
		u.usage = t.usage
	}
	t.recordLocked(u)
	t.lastActive = u.time
	subs := make([]*subscriber, 0, len(t.subs))
	for s := range t.subs {
		subs = append(subs, s)
	}
	t.mu.Unlock()
	return subs
}

func (t *task) fanout(u *update, subs []*subscriber) {
	for _, s := range subs {
		s.Push(u)
	}
	if (u.kind != uOutput || u.final) && u.kind != uRelay && !u.follower {
		t.srv.notifyPush(t)
	}
}

// recordLocked keeps what tasks/get shows: the latest status, the
// history (user messages and the agent's text, one message per model
// response) and the artifacts.
func (t *task) recordLocked(u *update) {
	t.setStatusLocked(u)
	switch u.kind {
	case uText:
		if u.text == "" {
			return
		}
		if i, ok := t.textIdx[u.messageID]; ok && i < len(t.history) {
			m := &t.history[i]
			m.Parts = []Part{TextPart(m.Parts[0].Text + u.text)}
			return
		}
		t.textIdx[u.messageID] = len(t.history)
		t.history = append(t.history, Message{Kind: "message", Role: "agent", MessageID: u.messageID, TaskID: t.id, ContextID: t.contextID, Parts: []Part{TextPart(u.text)}})
	case uState, uError:
		if t.status.Message != nil && u.text != "" {
			t.history = append(t.history, *t.status.Message)
		}
	case uOutput:
		id := "tool-" + u.call.ID + "-output"
		for i := range t.artifacts {
			if t.artifacts[i].ArtifactID == id {
				t.artifacts[i].Parts = []Part{TextPart(u.text)}
				return
			}
		}
		t.artifacts = append(t.artifacts, Artifact{ArtifactID: id, Name: u.call.Name + " output", Parts: []Part{TextPart(u.text)}})
	}
}

// addUserMessage records the client's message in the history.
func (t *task) addUserMessage(m *Message) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.history = append(t.history, t.ownMessage(m))
}

// ownMessage returns a copy of the client's message m that names this
// task and its context, with the kind a client may leave out filled in, as
// it goes into the history.
func (t *task) ownMessage(m *Message) Message {
	cp := *m
	cp.TaskID, cp.ContextID = t.id, t.contextID
	if cp.Kind == "" {
		cp.Kind = "message"
	}
	return cp
}

// turnInput is one message to run.
type turnInput struct {
	msg   *Message
	isNew bool
	// prompt, when set, is sent instead of the message's text (commands).
	prompt string
	// mode, when set, is the approval mode of the task's agent.
	mode policy.Mode
	// push, when set, is the push config the message's request sets,
	// applied as the message is accepted (under the task's lease).
	push *PushNotificationConfig
}

// buildSession builds the task's engine session (host.Session) with its
// settings and approval mode.
func (t *task) buildSession(ctx context.Context, history []*genai.Content) (*agent.Session, func() error, error) {
	t.mu.Lock()
	settings, mode, plain := t.settings, t.mode, t.plain
	t.mu.Unlock()
	spec := SessionSpec{WorkDir: settings.WorkspacePath, SessionID: t.id, History: history, Elicit: t.elicit, MaxApprovalMode: t.srv.cfg.MaxApprovalMode, CannotConfirm: plain}
	switch {
	case t.srv.cfg.YOLO:
		spec.ApprovalMode = policy.ModeYolo
	case settings.AutoExecute:
		// The client's ask, within the operator's ceiling.
		spec.ApprovalMode, _ = policy.ModeYolo.AtMost(t.srv.cfg.MaxApprovalMode)
	case mode != "":
		// A command's mode (/init's auto_edit) is the client's ask too.
		spec.ApprovalMode, _ = mode.AtMost(t.srv.cfg.MaxApprovalMode)
	}
	ts, err := t.srv.cfg.NewSession(ctx, spec)
	if err != nil {
		return nil, nil, err
	}
	if ts == nil || ts.Session == nil {
		return nil, nil, errors.New("a2a: NewSession built no session")
	}
	t.mu.Lock()
	t.built = ts
	t.mu.Unlock()
	closeSession := ts.Close
	if closeSession == nil {
		closeSession = func() error { return nil }
	}
	return ts.Session, closeSession, nil
}

// builtFor returns what NewSession built along with sess, or nil when
// sess is not the task's current build (released since, or nil).
func (t *task) builtFor(sess *agent.Session) *TaskSession {
	t.mu.Lock()
	defer t.mu.Unlock()
	if sess == nil || t.built == nil || t.built.Session != sess {
		return nil
	}
	return t.built
}

// ensureSession returns the task's engine session, built on the task's
// first use in this process, and notes the model it uses.
func (t *task) ensureSession(ctx context.Context) (*agent.Session, error) {
	sess, err := t.session.Get(ctx)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	t.model = sess.Model()
	t.mu.Unlock()
	return sess, nil
}

// userParts converts the message's parts for the model and collects the
// confirmations it carries.
func userParts(m *Message) ([]*genai.Part, []agent.Answer) {
	var parts []*genai.Part
	var confs []agent.Answer
	for _, p := range m.Parts {
		switch p.Kind {
		case PartText:
			if p.Text != "" {
				parts = append(parts, genai.NewPartFromText(p.Text))
			}
		case PartData:
			if c, ok := parseConfirmation(p.Data); ok {
				confs = append(confs, agent.Answer{CallID: c.CallID, Decision: tool.Decision{Outcome: tool.Outcome(c.Outcome), NewContent: c.NewContent, Answers: c.Answers, Plan: c.Plan}})
			}
		case PartFile:
			if p.File == nil {
				continue
			}
			mime := p.File.MimeType
			if mime == "" {
				mime = "application/octet-stream"
			}
			if p.File.Bytes != "" {
				if b, err := p.File.decodeBytes(); err == nil {
					parts = append(parts, &genai.Part{InlineData: &genai.Blob{MIMEType: mime, Data: b}})
				}
			} else if p.File.URI != "" {
				parts = append(parts, &genai.Part{FileData: &genai.FileData{MIMEType: mime, FileURI: p.File.URI}})
			}
		}
	}
	return parts, confs
}

// expandParts passes each text part through expand (when set).
func expandParts(ctx context.Context, built *TaskSession, parts []*genai.Part) ([]*genai.Part, error) {
	if built == nil || built.ExpandPrompt == nil {
		return parts, nil
	}
	var out []*genai.Part
	for _, p := range parts {
		if p.Text == "" {
			out = append(out, p)
			continue
		}
		ps, err := built.ExpandPrompt(ctx, p.Text)
		if err != nil {
			return nil, err
		}
		out = append(out, ps...)
	}
	return out, nil
}

// runTurn runs one message to the end of the turn, publishing every
// update; it always ends with exactly one final update. more reports
// that messages wait for the next turn.
func (t *task) runTurn(ctx context.Context, in turnInput) (more bool) {
	s := t.srv
	final := &update{kind: uState, state: StateInputRequired, final: true, reason: reasonEnd}
	defer func() {
		if p := recover(); p != nil {
			s.log.Error("a2a: turn panicked", "task", t.id, "panic", p)
			final = &update{kind: uState, state: StateFailed, final: true, reason: reasonEnd, text: fmt.Sprintf("internal error: %v", p), errMsg: fmt.Sprint(p)}
		}
		more = t.finishTurn(final)
	}()
	if in.isNew {
		t.publish(&update{kind: uTask, task: t.newTaskEvent(in.msg)})
	}
	sess, err := t.ensureSession(ctx)
	if err != nil {
		if ctx.Err() != nil {
			// Cancelled or interrupted while the session was being built.
			final = t.endOnError(ctx, err)
			return
		}
		final = &update{kind: uState, state: StateFailed, final: true, reason: reasonEnd, text: err.Error(), errMsg: err.Error()}
		return
	}

	parts, confs := userParts(in.msg)
	if in.prompt != "" {
		parts = []*genai.Part{genai.NewPartFromText(in.prompt)}
	} else if parts, err = expandParts(ctx, t.builtFor(sess), parts); err != nil {
		t.publish(&update{kind: uError, text: err.Error(), errMsg: err.Error()})
		return
	}
	confs, claimErr := s.claimAnswers(ctx, t, confs)
	answered, err := sess.AnswerAll(confs)
	if err = errors.Join(claimErr, err); err != nil {
		// A duplicate or stale confirmation (the call already ran, or
		// another request answered it first) is said, not dropped.
		s.log.Warn("a2a: ignored confirmations", "task", t.id, "error", err)
		t.publish(&update{kind: uError, text: "Confirmation not applied: " + err.Error(), errMsg: err.Error()})
	}
	for _, c := range answered {
		// The call is sent back with the user's outcome.
		t.publish(&update{kind: uTool, call: c})
	}
	paused := len(sess.Pending()) > 0
	if len(answered) > 0 && sess.Decided() {
		if t.ext {
			// The extension's clients see the calls run under a working
			// task; Gemini CLI's keep input-required until results go back
			// to the model, as its server does.
			t.mu.Lock()
			t.state = StateWorking
			t.mu.Unlock()
		}
		paused, err = t.consume(ctx, sess.Resume(ctx), true)
		if err != nil {
			final = t.endOnError(ctx, err)
			return
		}
	}
	if len(parts) > 0 {
		if paused {
			t.publish(&update{kind: uError, text: "The message text was not sent to the model: tool calls are still waiting for confirmation.", errMsg: "tool calls are waiting for confirmation"})
			return
		}
		t.publish(&update{kind: uState, state: StateWorking, reason: reasonPrompt})
		if _, err := t.consume(ctx, sess.Send(ctx, parts...), false); err != nil {
			final = t.endOnError(ctx, err)
		}
	}
	return // more is finishTurn's
}

func (t *task) newTaskEvent(m *Message) *Task {
	t.mu.Lock()
	defer t.mu.Unlock()
	return &Task{
		Kind: "task", ID: t.id, ContextID: t.contextID,
		Status:   TaskStatus{State: StateSubmitted, Timestamp: stamp(t.srv.now())},
		History:  []Message{t.ownMessage(m)},
		Metadata: t.metadataLocked(),
	}
}

// endOnError decides how a failed turn ends: a cancellation ends the
// task, a shutdown or a failure leaves it continuable, after an error
// update that says what went wrong (as Gemini CLI reports model errors).
func (t *task) endOnError(ctx context.Context, err error) *update {
	if cause := context.Cause(ctx); errors.Is(cause, errLeaseLost) {
		err = cause
	}
	switch end, err := t.srv.host.Ending(ctx, err); end {
	case host.Canceled:
		return &update{kind: uState, state: StateCanceled, final: true, reason: reasonEnd, text: err.Error()}
	case host.Interrupted:
		return &update{kind: uState, state: StateInputRequired, final: true, reason: reasonEnd, text: err.Error()}
	default:
		t.publish(&update{kind: uError, text: err.Error(), errMsg: err.Error()})
		return &update{kind: uState, state: StateInputRequired, final: true, reason: reasonEnd}
	}
}

// finishTurn publishes the final update, keeps the conversation for the
// store, saves the task and lets the next turn run. It reports whether
// messages wait for that turn.
func (t *task) finishTurn(final *update) (more bool) {
	t.session.Remember()
	subs := t.record(final)
	t.mu.Lock()
	t.showPendingLocked()
	t.question = nil
	more = len(t.queue) > 0
	t.running = more
	turn := t.turn
	t.turn = nil
	t.mu.Unlock()
	// Saved before clients see the final event (host.FinishTurn), which
	// says so when the save failed.
	var saveErr error
	t.srv.host.FinishTurn(turn, func() { saveErr = t.srv.save(t) }, func() {
		if saveErr != nil {
			final = t.saveFailed(final, saveErr)
		}
		t.srv.saveEvent(t, final)
		t.fanout(final, subs)
	})
	return more
}

// saveFailed is the final update of a turn whose task could not be saved:
// the same, with the error in its metadata and, for a status without
// text of the model's, in its message; tasks/get shows it too.
func (t *task) saveFailed(final *update, err error) *update {
	u := *final
	u.errMsg = err.Error()
	if u.kind == uState {
		u.text = strings.TrimSpace(u.text + "\n" + err.Error())
	}
	t.mu.Lock()
	t.setStatusLocked(&u)
	t.mu.Unlock()
	return &u
}

// setStatusLocked makes u's status the task's.
func (t *task) setStatusLocked(u *update) {
	r := newRenderer(t.ext, t.id, t.contextID)
	for _, ev := range r.render(u) {
		if su, ok := ev.(*StatusUpdateEvent); ok {
			t.status = su.Status
		}
	}
}

// saveProgress saves the conversation so far in the middle of a turn,
// once a batch of calls has its results: a process that dies later in
// the turn leaves the calls that ran, and what the model said, in the
// stored conversation (the task was saved as running at the turn's
// start, so a new process shows it interrupted).
func (t *task) saveProgress() {
	t.session.Remember()
	// A failure is logged; the turn's end saves again, and says so if
	// that fails too.
	_ = t.srv.save(t)
}

// consume maps the engine's events to updates and reports whether the
// turn paused for confirmations. Its only memory is Gemini CLI's order
// within a batch: every call is reported validated before any asks for
// approval, so approval requests wait until the batch's calls are decided
// (resumed is set when they were, in an earlier turn).
func (t *task) consume(ctx context.Context, seq iter.Seq2[*agent.Event, error], resumed bool) (paused bool, err error) {
	var held []*update
	decided := resumed
	publish := func(u *update, decide bool) {
		if decide {
			decided = true
			for _, h := range held {
				t.publish(h)
			}
			held = nil
		}
		if u != nil {
			t.publish(u)
		}
	}
	// One agent message per model response.
	msgID := uuid.NewString()
	for ev, evErr := range seq {
		if evErr != nil {
			publish(nil, true)
			return false, evErr
		}
		switch c := ev.Call; ev.Type {
		case agent.EventToolBatchStart:
			decided = false
			t.publish(&update{kind: uState, state: StateWorking, reason: reasonTools})
		case agent.EventToolBatchEnd:
			// Results go back to the model, unless the user cancelled them
			// all, which ends the turn without a word (as Gemini CLI).
			if ev.Reason == "" {
				publish(&update{kind: uState, state: StateWorking, reason: reasonToolsDone}, true)
			}
			t.saveProgress()
		case agent.EventToolCall:
			u := &update{kind: uTool, call: c}
			switch c.Status {
			case agent.StatusAwaitingApproval:
				held = append(held, u)
			case agent.StatusValidating:
				t.publish(u)
			case agent.StatusScheduled:
				// Approved by the user: the batch is decided.
				publish(u, c.Outcome != "")
			default:
				// Executing or terminal; a call refused while the batch is
				// still being decided (unknown tool, bad arguments,
				// policy) does not decide it.
				publish(u, decided || c.Status != agent.StatusError)
			}
		case agent.EventToolOutput:
			publish(&update{kind: uOutput, call: c, text: ev.Text}, true)
		case agent.EventContent:
			publish(&update{kind: uText, text: ev.Text, messageID: msgID, traceID: ev.ResponseID}, true)
		case agent.EventThought:
			publish(&update{kind: uThought, thought: ev.Thought, messageID: msgID, traceID: ev.ResponseID}, true)
		case agent.EventCitation:
			publish(&update{kind: uCitation, text: ev.Text}, true)
		case agent.EventFinished:
			publish(nil, true)
			msgID = uuid.NewString()
			if ev.Usage != nil {
				t.mu.Lock()
				t.usage = ev.Usage
				t.mu.Unlock()
			}
		case agent.EventInputRequired:
			publish(nil, true)
			paused = true
		}
	}
	publish(nil, true)
	if err := ctx.Err(); err != nil && !paused {
		return false, err
	}
	return paused, nil
}
