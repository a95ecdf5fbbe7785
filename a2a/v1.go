package a2a

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"mime"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"

	v1 "github.com/a2aproject/a2a-go/v2/a2a"
	"github.com/a2aproject/a2a-go/v2/a2asrv"

	"github.com/castor-dev/castor/a2a/internal/host"
	"github.com/castor-dev/castor/a2a/internal/jsonrpc"
	"github.com/castor-dev/castor/a2a/internal/mediatype"
	"github.com/castor-dev/castor/internal/lazy"
)

// handler serves A2A 1.0 through a2a-go's transports (a2asrv's JSON-RPC
// and HTTP+JSON bindings) over the same tasks, store and turn lifecycle
// as the 0.3 wire: a task started in one version is read and continued
// in the other. It converts at the edge, through the 0.3 JSON shape that
// the tasks keep and the conversions of v1conv.go; a2a-go's own executor and task
// store are not used, since the task lifecycle (sessions per task,
// durable confirmations, the turn queue, retention) is the server's.
type handler struct{ s *Server }

var _ a2asrv.RequestHandler = handler{}

// v1Errors maps JSON-RPC codes to a2a-go's errors, which its transports
// turn back into the same codes (and REST statuses).
var v1Errors = lazy.Value[map[int]error]{New: func() map[int]error {
	return map[int]error{
		CodeParseError: v1.ErrParseError, CodeInvalidRequest: v1.ErrInvalidRequest,
		CodeMethodNotFound: v1.ErrMethodNotFound, CodeInvalidParams: v1.ErrInvalidParams,
		CodeInternalError: v1.ErrInternalError, CodeTaskNotFound: v1.ErrTaskNotFound,
		CodeTaskNotCancelable: v1.ErrTaskNotCancelable, CodePushNotificationNotSupported: v1.ErrPushNotificationNotSupported,
		CodeUnsupportedOperation: v1.ErrUnsupportedOperation, CodeContentTypeNotSupported: v1.ErrUnsupportedContentType,
		CodeInvalidAgentResponse: v1.ErrInvalidAgentResponse, CodeExtendedCardNotConfigured: v1.ErrExtendedCardNotConfigured,
	}
}}

// v1Error turns our error into a2a-go's, keeping code and message.
func v1Error(e *rpcError) error {
	if e == nil {
		return nil
	}
	err := v1.NewError(cmp.Or(v1Errors.Get()[e.Code], v1.ErrInternalError), e.Message)
	err.Details, _ = e.Data.(map[string]any)
	return err
}

func toV1Task(t *Task) (*v1.Task, error) {
	ev, err := toV1(t)
	v, _ := ev.(*v1.Task)
	return v, err
}

// v1Task answers a 1.0 method with the task t, or the error e.
func v1Task(t *Task, e *rpcError) (*v1.Task, error) {
	if e != nil {
		return nil, v1Error(e)
	}
	return toV1Task(t)
}

// callHeader rebuilds the request headers a2a-go's transport read, which
// activate the development-tool extension.
func callHeader(ctx context.Context) http.Header {
	h := http.Header{}
	if cc, ok := a2asrv.CallContextFrom(ctx); ok {
		for k, v := range cc.ServiceParams().List() {
			h[http.CanonicalHeaderKey(k)] = v
		}
	}
	return h
}

// sendParams reads a 1.0 request as message/send params, checked as
// 0.3's, and refuses a message to an ended task.
func (s *Server) sendParams(ctx context.Context, req *v1.SendMessageRequest) (*MessageSendParams, error) {
	if req == nil || req.Message == nil {
		return nil, v1Error(errInvalidParams("message is required."))
	}
	lp, err := fromV1SendRequest(req)
	if err != nil {
		return nil, v1Error(errInvalidParams("Invalid parameters: %v", err))
	}
	raw, err := json.Marshal(lp)
	if err != nil {
		return nil, v1Error(errInvalidParams("Invalid parameters: %v", err))
	}
	p, e := decodeSendParams(raw)
	if e == nil {
		e = s.ended(ctx, p.Message.TaskID)
	}
	if e != nil {
		return nil, v1Error(e)
	}
	if c := p.Configuration; c != nil && c.PushNotificationConfig != nil {
		c.PushNotificationConfig.Version = "1.0"
	}
	return p, nil
}

// pushBody1 is what a 1.0 webhook receives: the task in a StreamResponse.
func pushBody1(snap *Task) ([]byte, error) {
	t, err := toV1Task(snap)
	if err != nil {
		return nil, err
	}
	return json.Marshal(v1.StreamResponse{Event: t})
}

// ended refuses, as A2A 1.0 does (UnsupportedOperation), a message to
// or a subscription on a task that reached a terminal state.
func (s *Server) ended(ctx context.Context, id string) *rpcError {
	t, err := s.lookupTask(ctx, id)
	if err != nil {
		return nil // the method says what is wrong with the id
	}
	t.mu.Lock()
	st := t.state
	t.mu.Unlock()
	if !st.Terminal() {
		return nil
	}
	return jsonrpc.Errorf(CodeUnsupportedOperation, "Task %s is in a terminal state (%s) and cannot be modified or subscribed to.", id, st)
}

// precheck refuses before a2a-go's JSON-RPC transport sees them the 1.0
// requests it would answer otherwise than A2A 1.0 asks: a subscription to
// an ended task (it would answer in an event stream), and ListTasks
// params that decode to its defaults or fail as a parse error (pageSize
// 0, a malformed statusTimestampAfter).
func (s *Server) precheck(ctx context.Context, req *jsonrpc.Request) *rpcError {
	var p struct {
		ID        string          `json:"id"`
		PageSize  *int            `json:"pageSize"`
		Timestamp json.RawMessage `json:"statusTimestampAfter"`
	}
	if json.Unmarshal(req.Params, &p) != nil {
		return nil
	}
	switch req.Method {
	case "SubscribeToTask":
		return s.ended(ctx, p.ID)
	case "ListTasks":
		if p.PageSize != nil && *p.PageSize < 1 {
			return errInvalidParams("pageSize must be between 1 and 100, got %d", *p.PageSize)
		}
		if len(p.Timestamp) > 0 && string(p.Timestamp) != "null" && json.Unmarshal(p.Timestamp, new(time.Time)) != nil {
			return errInvalidParams("statusTimestampAfter must be an RFC 3339 timestamp, got %s", p.Timestamp)
		}
	}
	return nil
}

// SendMessage implements a2asrv.RequestHandler.
func (h handler) SendMessage(ctx context.Context, req *v1.SendMessageRequest) (v1.SendMessageResult, error) {
	p, err := h.s.sendParams(ctx, req)
	if err != nil {
		return nil, err
	}
	t, _, e := h.s.send(ctx, callHeader(ctx), p)
	return v1Task(t, e)
}

// SendStreamingMessage implements a2asrv.RequestHandler.
func (h handler) SendStreamingMessage(ctx context.Context, req *v1.SendMessageRequest) iter.Seq2[v1.Event, error] {
	return func(yield func(v1.Event, error) bool) {
		p, err := h.s.sendParams(ctx, req)
		if err != nil {
			yield(nil, err)
			return
		}
		if !h.s.acquireStream() {
			yield(nil, v1Error(errBusy("too many open streams")))
			return
		}
		defer h.s.releaseStream()
		sub := newSubscriber()
		t, ext, e := h.s.begin(ctx, callHeader(ctx), p, sub)
		if e != nil {
			yield(nil, v1Error(e))
			return
		}
		defer t.unsubscribe(sub)
		h.s.yieldUpdates(ctx, t, sub, newRenderer(ext, t.id, t.contextID), yield)
	}
}

// yieldUpdates passes a subscriber's updates, as 1.0 events, to yield
// until the final one or the client leaves (see pump).
func (s *Server) yieldUpdates(ctx context.Context, t *task, sub *subscriber, rend *renderer, yield func(v1.Event, error) bool) {
	// No keep-alive here: a2a-go's transport sends its own.
	switch sub.Follow(ctx, 0, nil, func(u *update) (bool, error) {
		for _, ev := range rend.render(u) {
			v, err := toV1(ev)
			if err != nil {
				return false, err
			}
			if !yield(v, nil) {
				return false, errClientGone
			}
		}
		return u.final, nil
	}) {
	case host.Left:
		s.clientLeft(t, sub)
	case host.Dropped:
		yield(nil, v1Error(jsonrpc.Errorf(CodeInternalError, "the stream fell too far behind; use SubscribeToTask")))
	}
}

// errClientGone ends a stream whose client stopped reading.
var errClientGone = errors.New("a2a: the client stopped reading")

// GetTask implements a2asrv.RequestHandler.
func (h handler) GetTask(ctx context.Context, req *v1.GetTaskRequest) (*v1.Task, error) {
	return v1Task(h.s.getTask(ctx, string(req.ID), req.HistoryLength))
}

// ListTasks implements a2asrv.RequestHandler: the tasks in memory and in
// the store, newest activity first, filtered and paged as asked. The
// page token is the offset of the page's first task.
func (h handler) ListTasks(ctx context.Context, req *v1.ListTasksRequest) (*v1.ListTasksResponse, error) {
	size := cmp.Or(req.PageSize, 50)
	from, err := strconv.Atoi(cmp.Or(req.PageToken, "0"))
	switch {
	case req.HistoryLength != nil && *req.HistoryLength < 0:
		return nil, v1Error(errInvalidParams("historyLength must not be negative."))
	case req.Status != "" && fromV1State(req.Status) == "":
		return nil, v1Error(errInvalidParams("unknown status %q", req.Status))
	case size < 1 || size > 100:
		return nil, v1Error(errInvalidParams("pageSize must be between 1 and 100, got %d", size))
	case err != nil || from < 0:
		return nil, v1Error(errInvalidParams("invalid pageToken %q", req.PageToken))
	}
	// Filtered and sorted on what the listing knows of each task; only
	// the page's tasks are loaded and converted.
	type item struct {
		e  listed
		ts *time.Time
	}
	var items []item
	for _, e := range h.s.listTasks(ctx) {
		it := item{e: e}
		if e.timestamp != "" {
			// As toV1Task reads it: a JSON time.
			q, _ := json.Marshal(e.timestamp)
			it.ts = new(time.Time)
			if err := json.Unmarshal(q, it.ts); err != nil {
				return nil, err
			}
		}
		switch {
		case req.ContextID != "" && e.contextID != req.ContextID,
			req.Status != "" && toV1State(e.state) != req.Status,
			req.StatusTimestampAfter != nil && (it.ts == nil || !it.ts.After(*req.StatusTimestampAfter)):
			continue
		}
		items = append(items, it)
	}
	slices.SortStableFunc(items, func(a, b item) int {
		if a.ts == nil || b.ts == nil {
			return 0
		}
		return b.ts.Compare(*a.ts)
	})
	from = min(from, len(items))
	end := min(from+size, len(items))
	out := &v1.ListTasksResponse{TotalSize: len(items), PageSize: size, Tasks: []*v1.Task{}}
	for _, it := range items[from:end] {
		snap := h.s.snapshotListed(ctx, it.e, req.HistoryLength)
		if snap == nil {
			continue // deleted since listed
		}
		v, err := toV1Task(snap)
		if err != nil {
			return nil, err
		}
		if !req.IncludeArtifacts {
			v.Artifacts = nil
		}
		out.Tasks = append(out.Tasks, v)
	}
	if end < len(items) {
		out.NextPageToken = strconv.Itoa(end)
	}
	return out, nil
}

// CancelTask implements a2asrv.RequestHandler.
func (h handler) CancelTask(ctx context.Context, req *v1.CancelTaskRequest) (*v1.Task, error) {
	return v1Task(h.s.cancel(ctx, string(req.ID)))
}

// SubscribeToTask implements a2asrv.RequestHandler: the task as it is,
// then its running turn's events. A2A 1.0 refuses it for a task that
// ended (0.3's tasks/resubscribe answers with the task).
func (h handler) SubscribeToTask(ctx context.Context, req *v1.SubscribeToTaskRequest) iter.Seq2[v1.Event, error] {
	return func(yield func(v1.Event, error) bool) {
		t, sub, snap, e := h.s.subscribe(ctx, string(req.ID))
		if e != nil {
			yield(nil, v1Error(e))
			return
		}
		if sub != nil {
			defer h.s.releaseStream()
			defer t.unsubscribe(sub)
		}
		if snap.Status.State.Terminal() {
			yield(nil, v1Error(jsonrpc.Errorf(CodeUnsupportedOperation, "Task %s is in a terminal state (%s): there is nothing to subscribe to.", t.id, snap.Status.State)))
			return
		}
		v, err := toV1Task(snap)
		if !yield(v, err) || err != nil || sub == nil {
			return
		}
		h.s.yieldUpdates(ctx, t, sub, newRenderer(activated(callHeader(ctx)), t.id, t.contextID), yield)
	}
}

// v1Push answers a 1.0 push method with the config c, or the error e.
func v1Push(c *TaskPushNotificationConfig, e *rpcError) (*v1.PushConfig, error) {
	if e != nil {
		return nil, v1Error(e)
	}
	out := &v1.PushConfig{TaskID: v1.TaskID(c.TaskID), ID: c.PushNotificationConfig.ID, URL: c.PushNotificationConfig.URL, Token: c.PushNotificationConfig.Token}
	if a := c.PushNotificationConfig.Authentication; a != nil && len(a.Schemes) > 0 {
		out.Auth = &v1.PushAuthInfo{Scheme: a.Schemes[0], Credentials: a.Credentials}
	}
	return out, nil
}

// CreateTaskPushConfig implements a2asrv.RequestHandler.
func (h handler) CreateTaskPushConfig(ctx context.Context, req *v1.PushConfig) (*v1.PushConfig, error) {
	c := PushNotificationConfig{ID: req.ID, URL: req.URL, Token: req.Token, Version: "1.0"}
	if req.Auth != nil {
		c.Authentication = &PushNotificationAuthenticationInfo{Schemes: []string{req.Auth.Scheme}, Credentials: req.Auth.Credentials}
	}
	return v1Push(h.s.pushSet(ctx, string(req.TaskID), c))
}

// GetTaskPushConfig implements a2asrv.RequestHandler.
func (h handler) GetTaskPushConfig(ctx context.Context, req *v1.GetTaskPushConfigRequest) (*v1.PushConfig, error) {
	return v1Push(h.s.pushGet(ctx, string(req.TaskID), req.ID))
}

// ListTaskPushConfigs implements a2asrv.RequestHandler.
func (h handler) ListTaskPushConfigs(ctx context.Context, req *v1.ListTaskPushConfigRequest) (*v1.ListTaskPushConfigResponse, error) {
	cfgs, e := h.s.pushList(ctx, string(req.TaskID))
	if e != nil {
		return nil, v1Error(e)
	}
	out := &v1.ListTaskPushConfigResponse{Configs: []*v1.PushConfig{}}
	for i := range cfgs {
		c, _ := v1Push(&cfgs[i], nil)
		out.Configs = append(out.Configs, c)
	}
	return out, nil
}

// DeleteTaskPushConfig implements a2asrv.RequestHandler.
func (h handler) DeleteTaskPushConfig(ctx context.Context, req *v1.DeleteTaskPushConfigRequest) error {
	return v1Error(h.s.pushDelete(ctx, string(req.TaskID), req.ID))
}

// GetExtendedAgentCard implements a2asrv.RequestHandler: there is none.
func (h handler) GetExtendedAgentCard(context.Context, *v1.GetExtendedAgentCardRequest) (*v1.AgentCard, error) {
	return nil, v1Error(jsonrpc.Errorf(CodeExtendedCardNotConfigured, "Authenticated Extended Card is not configured"))
}

// protocolOf says which A2A version a JSON-RPC request speaks: 1.0 when
// its A2A-Version header says so or its method has 1.0's PascalCase name,
// otherwise 0.3 (A2A 1.0: a request without the header is 0.3). ok is
// false for a version this server does not speak.
func protocolOf(h http.Header, method string) (string, bool) {
	switch v := strings.TrimSpace(h.Get(v1.SvcParamVersion)); v {
	case "1.0", "1":
		return "1.0", true
	case "0.3", "0.3.0":
		return "0.3", true
	case "":
		if method != "" && unicode.IsUpper(rune(method[0])) {
			return "1.0", true
		}
		return "0.3", true
	default:
		return v, false
	}
}

// mediaType is A2A 1.0's media type, which a2a-go's transports do not
// know: requests sent with it are read as application/json, and the
// answer is labelled with it.
const mediaType = "application/a2a+json"

// checkContent refuses a 1.0 request whose Content-Type is not one A2A
// 1.0 allows (application/json or application/a2a+json, any parameters)
// with ContentTypeNotSupported. The door (Server.refuse) has already
// refused bodies that are not JSON at all, whatever the version; this
// narrows 1.0's to its two types.
func checkContent(h http.Header) *rpcError {
	ct := h.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); ct != "" && (err != nil || mt != "application/json" && mt != mediaType) {
		return jsonrpc.Errorf(CodeContentTypeNotSupported, "Incompatible content types: A2A 1.0 requests are application/json or %s, not %q", mediaType, ct)
	}
	return nil
}

// v1Writer prepares a 1.0 request for a2a-go's transports: the 1.0 media
// type is read as JSON and echoed, and the activated extension is
// reported in the A2A-Extensions header.
func v1Writer(w http.ResponseWriter, r *http.Request) http.ResponseWriter {
	if activated(r.Header) {
		w.Header().Set(v1.SvcParamExtensions, ExtensionURI)
	}
	return mediatype.AsJSON(w, r, mediaType)
}

// serveV1REST serves the 1.0 HTTP+JSON binding under /a2a/ (Gemini CLI's
// own routes hold /tasks).
func (s *Server) serveV1REST(w http.ResponseWriter, r *http.Request) {
	if s.closing.Load() {
		aip193(w, http.StatusServiceUnavailable, "UNAVAILABLE", "", "the server is shutting down")
		return
	}
	if v, ok := protocolOf(r.Header, ""); !ok {
		// TCK HTTP_JSON-STATUS-001: the AIP-193 error object, with
		// a2a-go's status and reason for VersionNotSupportedError.
		aip193(w, http.StatusBadRequest, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED", "A2A version "+strconv.Quote(v)+" is not supported")
		return
	}
	// A subscription to an ended task is refused before the stream
	// starts (a2a-go's transport would send the error as an event).
	if id, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, v1RESTPrefix+"/tasks/"), ":subscribe"); ok {
		if e := s.ended(r.Context(), id); e != nil {
			aip193(w, http.StatusBadRequest, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION", e.Message)
			return
		}
	}
	// The body is read here, so that one past the limit is answered 413
	// as on every other route (a2a-go's transport calls it a parse error).
	b, status, err := host.ReadBody(r)
	if err != nil {
		aip193(w, status, "INVALID_ARGUMENT", "", err.Error())
		return
	}
	r.Body = io.NopCloser(bytes.NewReader(b))
	http.StripPrefix(v1RESTPrefix, s.v1rest).ServeHTTP(v1Writer(w, r), r)
}

// aip193 answers with the AIP-193 error object of the 1.0 HTTP+JSON
// binding: the HTTP status, its gRPC status name, the message and, when
// reason is set, an ErrorInfo in A2A's domain naming the A2A error.
func aip193(w http.ResponseWriter, code int, status, reason, msg string) {
	details := []any{}
	if reason != "" {
		details = append(details, map[string]any{"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": reason, "domain": v1.ProtocolDomain})
	}
	jsonrpc.WriteJSON(w, code, map[string]any{"error": map[string]any{"code": code, "status": status, "message": msg, "details": details}})
}

// v1RESTPrefix is where the 1.0 HTTP+JSON binding is mounted.
const v1RESTPrefix = "/a2a"
