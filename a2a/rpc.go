package a2a

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"

	"github.com/google/uuid"

	"github.com/castor-dev/castor/a2a/internal/host"
	"github.com/castor-dev/castor/a2a/internal/jsonrpc"
	"github.com/castor-dev/castor/a2a/internal/webhook"
	"github.com/castor-dev/castor/command"
	"github.com/castor-dev/castor/policy"
)

// JSON-RPC methods.
const (
	methodSend           = "message/send"
	methodStream         = "message/stream"
	methodGet            = "tasks/get"
	methodCancel         = "tasks/cancel"
	methodResubscribe    = "tasks/resubscribe"
	methodPushSet        = "tasks/pushNotificationConfig/set"
	methodPushGet        = "tasks/pushNotificationConfig/get"
	methodPushList       = "tasks/pushNotificationConfig/list"
	methodPushDelete     = "tasks/pushNotificationConfig/delete"
	methodExtendedCard   = "agent/getAuthenticatedExtendedCard"
	methodCommandsGet    = "commands/get"
	methodCommandExecute = "command/execute"
)

// maxPushConfigs bounds the webhooks of one task.
const maxPushConfigs = 10

func (s *Server) handleRPC(w http.ResponseWriter, r *http.Request) {
	body, status, err := host.ReadBody(r)
	if err != nil {
		if status == http.StatusRequestEntityTooLarge {
			jsonrpc.WriteError(w, status, jsonrpc.NullID, jsonrpc.Errorf(CodeInvalidRequest, "Request payload validation error: %v", err))
			return
		}
		jsonrpc.WriteError(w, http.StatusBadRequest, jsonrpc.NullID, jsonrpc.Errorf(CodeParseError, "Invalid JSON payload"))
		return
	}
	if v, _ := protocolOf(r.Header, ""); v == "1.0" {
		// Before parsing: a body in another media type need not be JSON.
		if e := checkContent(r.Header); e != nil {
			jsonrpc.WriteError(w, http.StatusOK, jsonrpc.NullID, e)
			return
		}
	}
	req, rerr := jsonrpc.ParseRequest(body)
	if rerr != nil {
		id := json.RawMessage(jsonrpc.NullID)
		if req != nil {
			id = req.ID
		}
		code := http.StatusOK
		if rerr.Code == CodeParseError {
			// @a2a-js/sdk answers unparseable JSON with 400.
			code = http.StatusBadRequest
		}
		jsonrpc.WriteError(w, code, id, rerr)
		return
	}
	if s.closing.Load() {
		jsonrpc.WriteError(w, http.StatusServiceUnavailable, req.ID, errBusy("the server is shutting down"))
		return
	}
	switch v, ok := protocolOf(r.Header, req.Method); {
	case !ok:
		jsonrpc.WriteError(w, http.StatusOK, req.ID, jsonrpc.Errorf(CodeVersionNotSupported, "A2A version %q is not supported; this server speaks 0.3 and 1.0", v))
		return
	case v == "1.0":
		if e := checkContent(r.Header); e != nil {
			jsonrpc.WriteError(w, http.StatusOK, req.ID, e)
			return
		}
		if e := s.precheck(r.Context(), req); e != nil {
			jsonrpc.WriteError(w, http.StatusOK, req.ID, e)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		s.v1rpc.ServeHTTP(v1Writer(w, r), r)
		return
	}
	var result any
	var e *rpcError
	ctx := r.Context()
	switch req.Method {
	case methodStream:
		s.rpcStream(w, r, req)
		return
	case methodResubscribe:
		s.rpcResubscribe(w, r, req)
		return
	case methodSend:
		result, e = s.rpcSend(w, r, req)
	case methodGet:
		result, e = jsonrpc.WithParams(req.Params, func(p *taskQueryParams) (any, *rpcError) { return s.getTask(ctx, p.ID, p.HistoryLength) })
	case methodCancel:
		result, e = jsonrpc.WithParams(req.Params, func(p *taskIDParams) (any, *rpcError) { return s.cancel(ctx, p.ID) })
	case methodPushSet:
		result, e = jsonrpc.WithParams(req.Params, func(p *TaskPushNotificationConfig) (any, *rpcError) {
			return s.pushSet(ctx, p.TaskID, p.PushNotificationConfig)
		})
	case methodPushGet:
		result, e = jsonrpc.WithParams(req.Params, func(p *pushConfigParams) (any, *rpcError) { return s.pushGet(ctx, p.ID, p.ConfigID) })
	case methodPushList:
		result, e = jsonrpc.WithParams(req.Params, func(p *pushConfigParams) (any, *rpcError) { return s.pushList(ctx, p.ID) })
	case methodPushDelete:
		result, e = jsonrpc.WithParams(req.Params, func(p *pushConfigParams) (any, *rpcError) { return nil, s.pushDelete(ctx, p.ID, p.ConfigID) })
	case methodExtendedCard:
		e = jsonrpc.Errorf(CodeExtendedCardNotConfigured, "Authenticated Extended Card is not configured")
	case methodCommandsGet:
		// Params are optional; {taskId} lists that task's commands. Other
		// params are ignored, as before there were any.
		if len(req.Params) == 0 || req.Params[0] != '{' {
			req.Params = json.RawMessage("{}")
		}
		result, e = jsonrpc.WithParams(req.Params, func(p *taskRef) (any, *rpcError) {
			reg, _, e := s.commandsFor(ctx, p.taskID(), false)
			if e != nil {
				return nil, e
			}
			return map[string]any{"commands": devCommands(reg)}, nil
		})
	case methodCommandExecute:
		result, e = jsonrpc.WithParams(req.Params, func(p *executeSlashCommandRequest) (any, *rpcError) { return s.rpcCommandExecute(ctx, p) })
	default:
		e = jsonrpc.Errorf(CodeMethodNotFound, "Method not found: %s", req.Method)
	}
	if e != nil {
		jsonrpc.WriteError(w, http.StatusOK, req.ID, e)
		return
	}
	jsonrpc.WriteResult(w, req.ID, result)
}

// decodeSendParams reads and checks message/send and message/stream
// params.
func decodeSendParams(raw json.RawMessage) (*MessageSendParams, *rpcError) {
	var p MessageSendParams
	if e := jsonrpc.DecodeParams(raw, &p); e != nil {
		return nil, e
	}
	m, c := p.Message, p.Configuration
	switch {
	case m == nil:
		return nil, errInvalidParams("message is required.")
	case m.MessageID == "":
		return nil, errInvalidParams("message.messageId is required.")
	case m.Kind != "" && m.Kind != "message":
		return nil, errInvalidParams(`message.kind must be "message".`)
	case m.Role != "user" && m.Role != "agent":
		return nil, errInvalidParams(`message.role must be "user" or "agent".`)
	case len(m.Parts) == 0:
		return nil, errInvalidParams("message.parts must not be empty.")
	case c != nil && c.HistoryLength != nil && *c.HistoryLength < 0:
		return nil, errInvalidParams("configuration.historyLength must not be negative.")
	}
	if e := checkFiles(m); e != nil {
		return nil, e
	}
	return &p, nil
}

// checkFiles refuses a message whose inline file bytes are not base64: the
// turn would otherwise go on without the file, and the client never learn.
func checkFiles(m *Message) *rpcError {
	for i, p := range m.Parts {
		if p.Kind != PartFile || p.File.Bytes == "" {
			continue
		}
		if _, err := p.File.decodeBytes(); err != nil {
			return errInvalidParams("message.parts[%d].file.bytes is not base64: %v", i, err)
		}
	}
	return nil
}

// begin resolves the task a message goes to (creating it for a message
// without taskId) and starts its turn. sub, when set, is subscribed before
// the first event.
func (s *Server) begin(ctx context.Context, h http.Header, p *MessageSendParams, sub *subscriber) (*task, bool, *rpcError) {
	m := p.Message
	ext := activated(h, m.Metadata, p.Metadata)
	var t *task
	isNew := m.TaskID == ""
	if isNew {
		raw, err := parseAgentSettings(m.Metadata, p.Metadata)
		if err != nil {
			return nil, false, jsonrpc.AsError(err)
		}
		settings, err := s.settingsFor(raw)
		if err != nil {
			return nil, false, jsonrpc.AsError(err)
		}
		ctxID := m.ContextID
		if ctxID == "" {
			ctxID = uuid.NewString()
		}
		t = s.newTask(uuid.NewString(), ctxID, settings)
		t.plain = plainClient(ext, raw, m)
		if err := asBusy(s.host.Add(t)); err != nil {
			return nil, false, jsonrpc.AsError(err)
		}
	} else {
		found, err := s.lookupTask(ctx, m.TaskID)
		if err != nil {
			return nil, false, jsonrpc.AsError(err)
		}
		t = found
	}
	var push *PushNotificationConfig
	if pc := p.Configuration; pc != nil && pc.PushNotificationConfig != nil {
		push = pc.PushNotificationConfig
		if err := webhook.CheckURL("pushNotificationConfig.url", push.URL, s.cfg.AllowPrivatePush); err != nil {
			if isNew {
				s.host.Remove(t.id)
			}
			return nil, false, errInvalidParams("%v", err)
		}
	}
	if handled, e := t.answerQuestion(m, sub); handled {
		if e == nil && push != nil {
			e = s.setPush(t, *push)
		}
		if e != nil {
			return nil, false, e
		}
		return t, ext, nil
	}
	if e := s.startTurn(ctx, t, turnInput{msg: m, isNew: isNew, push: push}, ext, sub); e != nil {
		return nil, false, e
	}
	return t, ext, nil
}

// acquireStream counts a stream against MaxStreams; releaseStream
// uncounts it.
func (s *Server) acquireStream() bool { return s.host.AcquireStream() }
func (s *Server) releaseStream()      { s.host.ReleaseStream() }

// streamError answers a streaming method's error as a one-event stream:
// A2A clients (and the TCK) read a streaming method's answer as SSE
// whatever it holds.
func streamError(w http.ResponseWriter, id []byte, e *rpcError) {
	jsonrpc.NewStream(w, id).Fail(e)
}

func (s *Server) rpcStream(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
	p, e := decodeSendParams(req.Params)
	if e != nil {
		streamError(w, req.ID, e)
		return
	}
	if !s.acquireStream() {
		jsonrpc.WriteError(w, http.StatusTooManyRequests, req.ID, errBusy("too many open streams"))
		return
	}
	defer s.releaseStream()
	sub := newSubscriber()
	sw := jsonrpc.NewStream(w, req.ID)
	// The turn may wait for the task's previous turn or a free slot;
	// meanwhile keep-alives start the stream, so that the client does
	// not give up on a request without headers (Node's fetch does after
	// five minutes, and the waiting turn is then dropped).
	asked := activated(r.Header, p.Message.Metadata, p.Metadata)
	waited := sw.KeepAliveWhile(s.cfg.Limits.KeepAlive, func() {
		if asked {
			w.Header().Set(extensionHeader, ExtensionURI)
		}
	})
	t, ext, e := s.begin(r.Context(), r.Header, p, sub)
	waited()
	if e != nil {
		sw.Fail(e)
		return
	}
	defer t.unsubscribe(sub)
	if ext {
		w.Header().Set(extensionHeader, ExtensionURI)
	}
	sw.Start()
	s.pump(r.Context(), t, sub, sw, newRenderer(ext, t.id, t.contextID))
}

// pump writes a subscriber's updates until the final one, the client
// leaves or the subscriber falls too far behind. What a client leaving
// does to the turn is Config.OnDisconnect's choice (clientLeft).
func (s *Server) pump(ctx context.Context, t *task, sub *subscriber, sw *jsonrpc.Stream, rend *renderer) {
	t.mu.Lock()
	rend.plain = t.plain && !rend.ext // a follower's reload rewrites it
	t.mu.Unlock()
	switch sub.Follow(ctx, s.cfg.Limits.KeepAlive, sw.KeepAlive, func(u *update) (bool, error) {
		for _, ev := range rend.render(u) {
			if err := sw.Event(ev); err != nil {
				return false, err
			}
		}
		return u.final, nil
	}) {
	case host.Left:
		s.clientLeft(t, sub)
	case host.Dropped:
		sw.Fail(jsonrpc.Errorf(CodeInternalError, "the stream fell too far behind; use tasks/resubscribe"))
	}
}

func (s *Server) rpcSend(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) (any, *rpcError) {
	p, e := decodeSendParams(req.Params)
	if e != nil {
		return nil, e
	}
	t, ext, e := s.send(r.Context(), r.Header, p)
	if ext {
		w.Header().Set(extensionHeader, ExtensionURI)
	}
	return t, e
}

// send runs a message; unless the client asked not to block, it waits
// for the turn's end (or Limits.RequestTimeout) and returns the task.
func (s *Server) send(ctx context.Context, h http.Header, p *MessageSendParams) (*Task, bool, *rpcError) {
	blocking := p.Configuration == nil || p.Configuration.Blocking == nil || *p.Configuration.Blocking
	var sub *subscriber
	if blocking {
		sub = newSubscriber()
	}
	// A non-blocking send answers as soon as its message is accepted
	// (queue.go); a blocking one waits for its turn's end.
	t, ext, e := s.begin(ctx, h, p, sub)
	if e != nil {
		return nil, false, e
	}
	var hl *int
	if p.Configuration != nil {
		hl = p.Configuration.HistoryLength
	}
	if blocking {
		defer t.unsubscribe(sub)
		// Past RequestTimeout the task goes on; the client polls it with
		// tasks/get. A subscriber that fell behind still sees the end.
		wait, stop := context.WithTimeout(ctx, s.cfg.Limits.RequestTimeout)
		defer stop()
		end := host.Dropped
		for end == host.Dropped {
			end = sub.Follow(wait, 0, nil, func(u *update) (bool, error) { return u.final, nil })
		}
		if end == host.Left && ctx.Err() != nil {
			s.clientLeft(t, sub)
			return nil, ext, jsonrpc.Errorf(CodeInternalError, "request cancelled")
		}
	}
	return t.snapshot(hl), ext, nil
}

func (s *Server) getTask(ctx context.Context, id string, historyLength *int) (*Task, *rpcError) {
	if id != "" && historyLength != nil && *historyLength < 0 {
		return nil, errInvalidParams("historyLength must not be negative.")
	}
	t, e := s.taskNamed(ctx, "id", id)
	if e != nil {
		return nil, e
	}
	return t.snapshot(historyLength), nil
}

// listed is a task as a listing sees it: enough to filter and sort it
// without its history, and the way to its full snapshot.
type listed struct {
	id, contextID string
	state         TaskState
	timestamp     string // the status timestamp tasks/get shows
	// t is the task in memory (live, or restored from a store that
	// cannot summarise); nil for a stored task, loaded only if shown.
	t *task
}

// listTasks returns every task, in memory or stored: the live ones
// first, then the stored ones in the store's order. A store that
// summarises its tasks (TaskSummarizer) is not loaded from; another has
// every task loaded.
func (s *Server) listTasks(ctx context.Context) []listed {
	var out []listed
	seen := map[string]bool{}
	add := func(t *task) {
		t.mu.Lock()
		out = append(out, listed{id: t.id, contextID: t.contextID, state: t.shownStateLocked(), timestamp: t.status.Timestamp, t: t})
		t.mu.Unlock()
	}
	for _, t := range s.host.Live() {
		seen[t.id] = true
		add(t)
	}
	if sum, ok := s.store.(TaskSummarizer); ok {
		sums, _ := sum.ListSummaries(ctx)
		for _, sm := range sums {
			if seen[sm.ID] {
				continue
			}
			e := listed{id: sm.ID, contextID: sm.ContextID, state: sm.State, timestamp: sm.StatusTimestamp}
			if !e.state.Terminal() && e.state != StateInputRequired {
				// As restore shows a task stopped during a turn.
				e.state, e.timestamp = StateInputRequired, stamp(s.now())
			}
			out = append(out, e)
		}
		return out
	}
	ids, _ := s.store.List(ctx)
	for _, id := range ids {
		if seen[id] {
			continue
		}
		if st, err := s.store.Load(ctx, id); err == nil {
			add(s.restore(st))
		}
	}
	return out
}

// snapshotListed returns the listed task as tasks/get shows it, or nil for a
// stored task that no longer loads.
func (s *Server) snapshotListed(ctx context.Context, e listed, historyLength *int) *Task {
	t := e.t
	if t == nil {
		st, err := s.store.Load(ctx, e.id)
		if err != nil {
			return nil
		}
		t = s.restore(st)
	}
	return t.snapshot(historyLength)
}

func (s *Server) cancel(ctx context.Context, id string) (*Task, *rpcError) {
	t, e := s.taskNamed(ctx, "id", id)
	if e == nil && s.shared != nil {
		e = s.cancelShared(ctx, t)
	} else if e == nil {
		e = s.cancelTask(ctx, t)
	}
	if e != nil {
		return nil, e
	}
	return t.snapshot(nil), nil
}

// cancelTask stops a running turn (its stream ends with a final canceled
// event) or cancels an idle task; either way the messages queued for the
// task are dropped.
func (s *Server) cancelTask(ctx context.Context, t *task) *rpcError {
	t.mu.Lock()
	if t.state.Terminal() {
		t.mu.Unlock()
		return jsonrpc.Errorf(CodeTaskNotCancelable, "Task not cancelable: %s", t.id)
	}
	dropped := t.queue
	t.queue = nil
	turn, stopWait := t.turn, t.stopWait
	t.mu.Unlock()
	for _, q := range dropped {
		q.drop(errEnded(t.id, StateCanceled))
	}
	if turn != nil {
		turn.Stop(ctx, host.ErrCanceled)
		t.mu.Lock()
		st := t.state
		t.mu.Unlock()
		if st != StateCanceled && !st.Terminal() {
			// The turn ended on its own before the cancellation landed.
			return s.cancelTask(ctx, t)
		}
		return nil
	}
	if stopWait != nil {
		// The task's runner waits for a turn slot: it stops waiting.
		stopWait()
	}
	// No turn runs: hold the task's gate so that none starts meanwhile.
	if !t.gate.Enter(ctx) {
		return jsonrpc.Errorf(CodeInternalError, "request cancelled")
	}
	defer t.gate.Leave()
	t.mu.Lock()
	if t.state.Terminal() {
		t.mu.Unlock()
		return jsonrpc.Errorf(CodeTaskNotCancelable, "Task not cancelable: %s", t.id)
	}
	t.mu.Unlock()
	t.publish(&update{kind: uState, state: StateCanceled, final: true, reason: reasonEnd, text: host.ErrCanceled.Error()})
	if err := s.save(t); err != nil {
		return jsonrpc.Errorf(CodeInternalError, "%v", err)
	}
	return nil
}

func (s *Server) rpcResubscribe(w http.ResponseWriter, r *http.Request, req *jsonrpc.Request) {
	var p taskIDParams
	if e := jsonrpc.DecodeParams(req.Params, &p); e != nil {
		streamError(w, req.ID, e)
		return
	}
	t, sub, snap, e := s.subscribe(r.Context(), p.ID)
	if e != nil {
		if busy(e) { // too many open streams
			jsonrpc.WriteError(w, http.StatusTooManyRequests, req.ID, e)
			return
		}
		streamError(w, req.ID, e)
		return
	}
	if sub != nil {
		defer s.releaseStream()
		defer t.unsubscribe(sub)
	}
	ext := activated(r.Header, p.Metadata)
	if ext {
		w.Header().Set(extensionHeader, ExtensionURI)
	}
	sw := jsonrpc.NewStream(w, req.ID)
	if sw.Event(snap) != nil || sub == nil {
		return
	}
	s.pump(r.Context(), t, sub, sw, newRenderer(ext, t.id, t.contextID))
}

// subscribe finds a task and, when a turn runs, subscribes to it (sub
// is then non-nil, and holds a stream slot the caller gives back).
func (s *Server) subscribe(ctx context.Context, id string) (*task, *subscriber, *Task, *rpcError) {
	if id == "" {
		return nil, nil, nil, errInvalidParams("id is required.")
	}
	t, err := s.lookupTask(ctx, id)
	if err != nil {
		return nil, nil, nil, jsonrpc.AsError(err)
	}
	cursor := int64(-1)
	if s.events != nil {
		// A turn may run on another replica: the task as the store has
		// it, text streamed so far included, and the number of its last
		// event, after which the stream goes on. Not while this process
		// holds the task's lease (a cancellation or a push config being
		// applied here): then no turn runs elsewhere.
		t.leaseMu.Lock()
		t.mu.Lock()
		maybe := !t.running && !t.state.Terminal() && t.lease == nil
		t.mu.Unlock()
		if maybe {
			cursor, err = s.reload(ctx, t)
		}
		t.leaseMu.Unlock()
		if err != nil {
			return nil, nil, nil, jsonrpc.AsError(err)
		}
	}
	if !s.acquireStream() {
		return nil, nil, nil, errBusy("too many open streams")
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	snap := t.snapshotLocked(nil)
	remote := s.shared != nil && !t.running && !t.state.Terminal() && t.state != StateInputRequired
	if !t.running && !remote {
		s.releaseStream()
		return t, nil, snap, nil
	}
	sub := newSubscriber()
	t.subs[sub] = struct{}{}
	if remote && !t.following {
		// The turn runs on another replica: its events follow, and the
		// stream ends with it.
		t.following = true
		s.wg.Go(func() { s.followRemote(t, cursor) })
	}
	return t, sub, snap, nil
}

// setPush stores a webhook for a task.
func (s *Server) setPush(t *task, c PushNotificationConfig) *rpcError {
	if err := webhook.CheckURL("pushNotificationConfig.url", c.URL, s.cfg.AllowPrivatePush); err != nil {
		return errInvalidParams("%v", err)
	}
	if c.ID == "" {
		// @a2a-js/sdk names an unnamed config after its task.
		c.ID = t.id
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for i, old := range t.push {
		if old.ID == c.ID {
			t.push[i] = c
			return nil
		}
	}
	if len(t.push) >= maxPushConfigs {
		return errInvalidParams("a task may have at most %d push notification configs", maxPushConfigs)
	}
	t.push = append(t.push, c)
	return nil
}

func (s *Server) pushSet(ctx context.Context, taskID string, c PushNotificationConfig) (*TaskPushNotificationConfig, *rpcError) {
	t, e := s.taskNamed(ctx, "taskId", taskID)
	if e == nil {
		e = s.withLease(ctx, t, func() *rpcError {
			if e := s.setPush(t, c); e != nil {
				return e
			}
			if err := s.save(t); err != nil {
				return jsonrpc.Errorf(CodeInternalError, "%v", err)
			}
			return nil
		})
	}
	if e != nil {
		return nil, e
	}
	return s.pushGet(ctx, t.id, cmp.Or(c.ID, t.id))
}

// taskNamed is the task id names, which the request's field gave.
func (s *Server) taskNamed(ctx context.Context, field, id string) (*task, *rpcError) {
	if id == "" {
		return nil, errInvalidParams("%s is required.", field)
	}
	t, err := s.lookupTask(ctx, id)
	if err != nil {
		return nil, jsonrpc.AsError(err)
	}
	return t, nil
}

func (s *Server) pushGet(ctx context.Context, taskID, id string) (*TaskPushNotificationConfig, *rpcError) {
	all, e := s.pushList(ctx, taskID)
	if e != nil {
		return nil, e
	}
	for i := range all {
		if all[i].PushNotificationConfig.ID == id {
			return &all[i], nil
		}
	}
	// A client that set one unnamed config asks for it as "default", by
	// the task id, or with no id at all.
	if len(all) == 1 && (id == "" || id == "default" || id == taskID) {
		return &all[0], nil
	}
	return nil, errInvalidParams("push notification config %q not found for task %s", id, taskID)
}

func (s *Server) pushList(ctx context.Context, taskID string) ([]TaskPushNotificationConfig, *rpcError) {
	t, e := s.taskNamed(ctx, "id", taskID)
	if e != nil {
		return nil, e
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	out := []TaskPushNotificationConfig{}
	for _, c := range t.push {
		out = append(out, TaskPushNotificationConfig{TaskID: t.id, PushNotificationConfig: c})
	}
	return out, nil
}

func (s *Server) pushDelete(ctx context.Context, taskID, id string) *rpcError {
	t, e := s.taskNamed(ctx, "id", taskID)
	if e != nil {
		return e
	}
	if id == "" {
		return errInvalidParams("pushNotificationConfigId is required.")
	}
	return s.withLease(ctx, t, func() *rpcError {
		t.mu.Lock()
		n := len(t.push)
		t.push = slices.DeleteFunc(t.push, func(c PushNotificationConfig) bool { return c.ID == id })
		found := len(t.push) < n
		t.mu.Unlock()
		if !found {
			return errInvalidParams("push notification config %q not found for task %s", id, t.id)
		}
		if err := s.save(t); err != nil {
			return jsonrpc.Errorf(CodeInternalError, "%v", err)
		}
		return nil
	})
}

// devCommands lists reg's commands as the extension's SlashCommands.
func devCommands(reg *command.Registry) []devSlashCommand {
	return command.Tree(reg.CommandsFor(command.FaceA2A), false, func(c *command.Command, name string, subs []devSlashCommand) devSlashCommand {
		out := devSlashCommand{Name: name, Description: c.Description, Arguments: []devSlashCommandArgument{}, SubCommands: subs}
		for _, a := range c.Arguments {
			out.Arguments = append(out.Arguments, devSlashCommandArgument{Name: a.Name, Description: a.Description, IsRequired: a.Required})
		}
		return out
	})
}

// rpcCommandExecute is the extension's command/execute: the command runs
// as a task whose id is the execution id, so its output is read with
// tasks/get or tasks/resubscribe like any task's.
func (s *Server) rpcCommandExecute(ctx context.Context, p *executeSlashCommandRequest) (any, *rpcError) {
	path := p.CommandPath
	if len(path) == 0 {
		path = p.CommandPathCamel
	}
	if len(path) == 0 {
		return nil, errInvalidParams("command_path is required.")
	}
	reg, env, e := s.commandsFor(ctx, p.taskID(), true)
	if e != nil {
		return nil, e
	}
	cmd, cpath, e := findCommand(reg, env, strings.Join(path, " "), path...)
	var t *task
	if e == nil {
		t, e = s.runCommand(ctx, cmd, cpath, strings.Fields(p.Args), env, true, nil)
	}
	if e != nil {
		return &executeSlashCommandResponse{Status: cmdFailedToStart, Message: e.Message}, nil
	}
	return &executeSlashCommandResponse{ExecutionID: t.id, Status: cmdStarted}, nil
}

// runCommand runs a command as a new task. A message or data result
// completes the task at once; a prompt starts a turn, streamed to sub.
func (s *Server) runCommand(ctx context.Context, cmd *command.Command, path, args []string, env command.Env, ext bool, sub *subscriber) (*task, *rpcError) {
	settings, err := s.settingsFor(&AgentSettings{WorkspacePath: env.Workspace})
	if err != nil {
		return nil, jsonrpc.AsError(err)
	}
	t := s.newTask(uuid.NewString(), uuid.NewString(), settings)
	t.ext = ext
	if err := asBusy(s.host.Add(t)); err != nil {
		return nil, jsonrpc.AsError(err)
	}
	line := "/" + strings.Join(append(append([]string(nil), path...), args...), " ")
	msg := &Message{Kind: "message", Role: "user", MessageID: uuid.NewString(), Parts: []Part{TextPart(line)}}
	if sub != nil {
		t.subscribe(sub)
	}
	res, err := cmd.Execute(ctx, &command.Invocation{Path: path, Args: args, Env: env})
	if err == nil && res != nil && res.Kind == command.ResultSubmitPrompt {
		in := turnInput{msg: msg, isNew: true, prompt: res.Content, mode: policy.Mode(res.Mode)}
		if e := s.startTurn(ctx, t, in, ext, sub); e != nil {
			return nil, e
		}
		return t, nil
	}
	t.addUserMessage(msg)
	switch {
	case err != nil:
		t.publish(&update{kind: uState, state: StateFailed, final: true, reason: reasonEnd, text: err.Error(), errMsg: err.Error()})
	case res != nil && res.Kind == command.ResultMessage && res.MessageType == command.MessageError:
		t.publish(&update{kind: uState, state: StateFailed, final: true, reason: reasonEnd, text: res.Content})
	default:
		// One final event carrying the text, as Gemini CLI's init reports
		// an informational result.
		t.publish(&update{kind: uText, state: StateCompleted, final: true, text: res.Text(), messageID: uuid.NewString()})
	}
	if err := s.save(t); err != nil {
		return nil, jsonrpc.Errorf(CodeInternalError, "%v", err)
	}
	return t, nil
}
