package companion

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/ide"
)

// The go-sdk (v1.8.0) cannot send custom notifications
// (modelcontextprotocol/go-sdk#745), and every notification of the spec is
// custom. The server therefore writes them itself, as complete SSE events,
// on each session's standalone event stream (the HTTP GET the client keeps
// open), interleaved with the SDK's own events under one lock. Until the
// stream is open, notifications wait in a per-session queue.
// TODO: send through the SDK once custom notifications land (#745, #1146).

// maxQueued bounds the notifications kept for a session whose stream is
// not open; a client that never opens one must not grow the queue forever.
const maxQueued = 64

var errStreamClosed = errors.New("event stream closed")

// session is the notification side of one MCP session.
type session struct {
	mu    sync.Mutex
	w     *streamWriter
	queue []queued
	// initialized is set once the client sent notifications/initialized;
	// until then the record only lives as long as its stream.
	initialized bool
}

type queued struct {
	data    []byte
	context bool
}

// session returns the record of session id, creating it.
func (s *Server) session(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	ss, ok := s.sessions[id]
	if !ok {
		ss = &session{}
		s.sessions[id] = ss
	}
	return ss
}

// initialized starts a session's notifications with the current context,
// as the VS Code companion greets every new session, and forgets the
// session when it ends.
func (s *Server) initialized(ctx context.Context, req *mcp.InitializedRequest) {
	id := req.Session.ID()
	if id == "" {
		return
	}
	ss := s.session(id)
	ss.mu.Lock()
	ss.initialized = true
	ss.mu.Unlock()
	s.contextSend.Lock()
	if data, err := notification("ide/contextUpdate", wireContext(s.Context())); err == nil {
		ss.deliver(data, true)
	}
	s.contextSend.Unlock()
	go func() {
		req.Session.Wait()
		s.mu.Lock()
		delete(s.sessions, id)
		s.mu.Unlock()
	}()
}

// broadcast sends a notification to every session.
func (s *Server) broadcast(method string, params any) {
	if c, ok := params.(*ide.Context); ok {
		params = wireContext(c)
	}
	data, err := notification(method, params)
	if err != nil {
		s.logf("companion: %v", err)
		return
	}
	s.mu.Lock()
	all := make([]*session, 0, len(s.sessions))
	for _, ss := range s.sessions {
		all = append(all, ss)
	}
	s.mu.Unlock()
	for _, ss := range all {
		ss.deliver(data, method == "ide/contextUpdate")
	}
}

// deliver sends data on the session's stream, or queues it until the
// stream opens. A queued context update replaces an older one: only the
// latest context matters.
func (ss *session) deliver(data []byte, isContext bool) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	if ss.w != nil {
		if ss.w.send(data) == nil {
			return
		}
		ss.w = nil
	}
	if isContext {
		ss.queue = dropContext(ss.queue)
	}
	if len(ss.queue) >= maxQueued {
		ss.queue = ss.queue[1:]
	}
	ss.queue = append(ss.queue, queued{data, isContext})
}

// dropContext drops queued context updates.
func dropContext(q []queued) []queued {
	out := q[:0]
	for _, m := range q {
		if !m.context {
			out = append(out, m)
		}
	}
	return out
}

// forgetStream drops the record of session id when its stream ends
// before the session was ever initialized.
func (s *Server) forgetStream(id string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if ss, ok := s.sessions[id]; ok {
		ss.mu.Lock()
		if !ss.initialized {
			delete(s.sessions, id)
		}
		ss.mu.Unlock()
	}
}

// attach makes w the session's stream, after sending what was queued.
func (ss *session) attach(w *streamWriter) {
	ss.mu.Lock()
	defer ss.mu.Unlock()
	for len(ss.queue) > 0 {
		if w.send(ss.queue[0].data) != nil {
			return
		}
		ss.queue = ss.queue[1:]
	}
	ss.w = w
}

// notification encodes a JSON-RPC notification on one line.
func notification(method string, params any) ([]byte, error) {
	return marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		Method  string `json:"method"`
		Params  any    `json:"params"`
	}{"2.0", method, params})
}

// marshal is json.Marshal without HTML escaping, which would only make
// file contents harder to read in logs.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// wireContext is the context as the VS Code companion sends it: the file
// list is always present, empty or not.
func wireContext(c *ide.Context) any {
	type state struct {
		OpenFiles []ide.File `json:"openFiles"`
		IsTrusted *bool      `json:"isTrusted,omitempty"`
	}
	st := state{OpenFiles: []ide.File{}}
	if c != nil && c.WorkspaceState != nil {
		if c.WorkspaceState.OpenFiles != nil {
			st.OpenFiles = c.WorkspaceState.OpenFiles
		}
		st.IsTrusted = c.WorkspaceState.IsTrusted
	}
	return struct {
		WorkspaceState state `json:"workspaceState"`
	}{st}
}

// streamWriter wraps the response of a standalone event stream so that
// the SDK and the companion can both write whole events to it.
type streamWriter struct {
	http.ResponseWriter
	mu    sync.Mutex
	ready chan struct{}
	ok    bool // the SDK opened the stream (200, text/event-stream)
	dead  bool // the handler returned: the response is gone
}

// WriteHeader implements http.ResponseWriter.
func (w *streamWriter) WriteHeader(code int) {
	w.mu.Lock()
	w.ResponseWriter.WriteHeader(code)
	open := code == http.StatusOK && strings.HasPrefix(w.Header().Get("Content-Type"), "text/event-stream") && !w.ok
	if open {
		w.ok = true
	}
	w.mu.Unlock()
	if open {
		close(w.ready)
	}
}

// Write implements http.ResponseWriter.
func (w *streamWriter) Write(b []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.dead {
		return 0, errStreamClosed
	}
	return w.ResponseWriter.Write(b)
}

// Flush implements http.Flusher, which the SDK uses after every event.
func (w *streamWriter) Flush() {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.dead {
		http.NewResponseController(w.ResponseWriter).Flush()
	}
}

// Unwrap gives http.ResponseController the underlying writer.
func (w *streamWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// send writes one whole event and flushes it.
func (w *streamWriter) send(data []byte) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if !w.ok || w.dead {
		return errStreamClosed
	}
	buf := make([]byte, 0, len(data)+32)
	buf = append(buf, "event: message\ndata: "...)
	buf = append(buf, data...)
	buf = append(buf, "\n\n"...)
	if _, err := w.ResponseWriter.Write(buf); err != nil {
		w.dead = true
		return err
	}
	if err := http.NewResponseController(w.ResponseWriter).Flush(); err != nil {
		w.dead = true
		return err
	}
	return nil
}

// kill marks the response gone.
func (w *streamWriter) kill() {
	w.mu.Lock()
	w.dead = true
	w.mu.Unlock()
}
