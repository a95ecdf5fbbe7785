package a2a

import (
	"cmp"
	"context"
	"encoding/json"
	"net/http"

	"github.com/google/uuid"

	"github.com/castor-dev/castor/a2a/internal/host"
	"github.com/castor-dev/castor/a2a/internal/jsonrpc"
	"github.com/castor-dev/castor/command"
)

// The REST routes of Gemini CLI's A2A server, which Gemini Code Assist
// clients call beside JSON-RPC, and the seed's task routes.

func restError(w http.ResponseWriter, status int, msg string) {
	jsonrpc.WriteJSON(w, status, map[string]any{"error": msg})
}

// restTask finds the task of the route's {id}, answering the client when
// it cannot: 404 only for a task that does not exist, not for one the
// store cannot read or a busy server.
func (s *Server) restTask(w http.ResponseWriter, r *http.Request) (*task, bool) {
	t, err := s.lookupTask(r.Context(), r.PathValue("id"))
	if err != nil {
		if e := jsonrpc.AsError(err); e.Code != CodeTaskNotFound {
			restError(w, restStatus(e), e.Message)
		} else {
			restError(w, http.StatusNotFound, "Task not found")
		}
		return nil, false
	}
	return t, true
}

// decodeREST reads a JSON body, answering the client when it cannot.
func decodeREST(w http.ResponseWriter, r *http.Request, v any) bool {
	if status, err := host.ReadJSON(r, v); err != nil {
		restError(w, status, err.Error())
		return false
	}
	return true
}

// POST /tasks {agentSettings?, contextId?} → 201 "<task id>".
func (s *Server) handleCreateTask(w http.ResponseWriter, r *http.Request) {
	var body struct {
		AgentSettings *AgentSettings `json:"agentSettings"`
		ContextID     string         `json:"contextId"`
	}
	if !decodeREST(w, r, &body) {
		return
	}
	settings, err := s.settingsFor(body.AgentSettings)
	if err == nil {
		t := s.newTask(uuid.NewString(), cmp.Or(body.ContextID, uuid.NewString()), settings)
		if err = asBusy(s.host.Add(t)); err == nil {
			if err = s.save(t); err == nil {
				jsonrpc.WriteJSON(w, http.StatusCreated, t.id)
				return
			}
			err = jsonrpc.Errorf(CodeInternalError, "%v", err)
		}
	}
	e := jsonrpc.AsError(err)
	restError(w, restStatus(e), e.Message)
}

// taskMetadata is Gemini CLI's TaskMetadata.
type taskMetadata struct {
	ID             string     `json:"id"`
	ContextID      string     `json:"contextId"`
	TaskState      TaskState  `json:"taskState"`
	Model          string     `json:"model"`
	McpServers     []any      `json:"mcpServers"`
	AvailableTools []toolInfo `json:"availableTools"`
}

type toolInfo struct {
	Name            string         `json:"name"`
	Description     string         `json:"description"`
	ParameterSchema map[string]any `json:"parameterSchema"`
}

// metadata builds a task's metadata; listing its tools needs its agent,
// which is built if the task has none yet.
func (s *Server) metadata(ctx context.Context, t *task) (*taskMetadata, error) {
	sess, err := t.ensureSession(ctx)
	if err != nil {
		return nil, err
	}
	t.mu.Lock()
	md := &taskMetadata{ID: t.id, ContextID: t.contextID, TaskState: t.state, Model: t.model, McpServers: []any{}, AvailableTools: []toolInfo{}}
	t.mu.Unlock()
	for _, tl := range sess.Tools().Tools() {
		md.AvailableTools = append(md.AvailableTools, toolInfo{Name: tl.Name(), Description: tl.Description(), ParameterSchema: tl.Schema()})
	}
	return md, nil
}

// GET /tasks/metadata → the metadata of every task in memory; 204 if none.
func (s *Server) handleAllMetadata(w http.ResponseWriter, r *http.Request) {
	live := s.host.Live()
	if len(live) == 0 {
		w.WriteHeader(http.StatusNoContent)
		return
	}
	out := []*taskMetadata{}
	for _, t := range live {
		md, err := s.metadata(r.Context(), t)
		if err != nil {
			restError(w, http.StatusInternalServerError, err.Error())
			return
		}
		out = append(out, md)
	}
	jsonrpc.WriteJSON(w, http.StatusOK, out)
}

// GET /tasks/{id}/metadata → {metadata}, restoring the task from the
// store if needed.
func (s *Server) handleTaskMetadata(w http.ResponseWriter, r *http.Request) {
	t, ok := s.restTask(w, r)
	if !ok {
		return
	}
	md, err := s.metadata(r.Context(), t)
	if err != nil {
		restError(w, http.StatusInternalServerError, err.Error())
		return
	}
	jsonrpc.WriteJSON(w, http.StatusOK, map[string]any{"metadata": md})
}

// GET /tasks → {tasks: [{id, contextId, state}]}, stored and live.
func (s *Server) handleListTasks(w http.ResponseWriter, r *http.Request) {
	type row struct {
		ID        string    `json:"id"`
		ContextID string    `json:"contextId"`
		State     TaskState `json:"state"`
	}
	rows := []row{}
	for _, t := range s.listTasks(r.Context()) {
		rows = append(rows, row{t.id, t.contextID, t.state})
	}
	jsonrpc.WriteJSON(w, http.StatusOK, map[string]any{"tasks": rows})
}

// GET /tasks/{id} → the task with its state, history and artifacts.
func (s *Server) handleGetTaskREST(w http.ResponseWriter, r *http.Request) {
	t, ok := s.restTask(w, r)
	if !ok {
		return
	}
	snap := t.snapshot(nil)
	jsonrpc.WriteJSON(w, http.StatusOK, map[string]any{
		"id": snap.ID, "contextId": snap.ContextID, "state": snap.Status.State,
		"timestamp": snap.Status.Timestamp, "metadata": snap.Metadata,
		"history": orEmpty(snap.History), "artifacts": orEmpty(snap.Artifacts),
	})
}

// POST /tasks/{id}/execute {message} → the turn's events as SSE, framed
// like message/stream's in Gemini CLI's format.
func (s *Server) handleExecuteREST(w http.ResponseWriter, r *http.Request) {
	var body struct {
		Message json.RawMessage `json:"message"`
	}
	if !decodeREST(w, r, &body) {
		return
	}
	var msg Message
	var text string
	if json.Unmarshal(body.Message, &text) == nil {
		msg = Message{Kind: "message", Parts: []Part{TextPart(text)}}
	} else if err := json.Unmarshal(body.Message, &msg); err != nil || len(msg.Parts) == 0 {
		restError(w, http.StatusBadRequest, `"message" must be a string or an A2A message with parts`)
		return
	}
	if e := checkFiles(&msg); e != nil {
		restError(w, http.StatusBadRequest, e.Message)
		return
	}
	msg.MessageID, msg.Role, msg.TaskID = cmp.Or(msg.MessageID, uuid.NewString()), cmp.Or(msg.Role, "user"), r.PathValue("id")
	s.streamREST(w, r, msg.TaskID, func(sub *subscriber) (*task, bool, *rpcError) {
		return s.begin(r.Context(), r.Header, &MessageSendParams{Message: &msg}, sub)
	})
}

// streamREST answers with the events of the turn that start starts for
// sub, as SSE (see pump), holding a stream slot meanwhile. REST requests
// carry no JSON-RPC id, so the events carry the task's id in its place.
// A message for an existing task (taskID) may wait in the task's queue
// before start returns: keep-alives then start the stream, as
// message/stream's do (rpcStream), and an error after they did is the
// stream's error event rather than an HTTP status.
func (s *Server) streamREST(w http.ResponseWriter, r *http.Request, taskID string, start func(sub *subscriber) (t *task, ext bool, e *rpcError)) {
	if !s.acquireStream() {
		restError(w, http.StatusTooManyRequests, "too many open streams")
		return
	}
	defer s.releaseStream()
	sub := newSubscriber()
	var sw *jsonrpc.Stream
	kept := false
	waited := func() {}
	if taskID != "" {
		idJSON, _ := json.Marshal(taskID)
		sw = jsonrpc.NewStream(w, idJSON)
		waited = sw.KeepAliveWhile(s.cfg.Limits.KeepAlive, func() { kept = true })
	}
	t, ext, e := start(sub)
	waited() // kept is settled once waited returns
	if e != nil {
		if kept {
			sw.Fail(e)
		} else {
			restError(w, restStatus(e), e.Message)
		}
		return
	}
	defer t.unsubscribe(sub)
	if sw == nil {
		idJSON, _ := json.Marshal(t.id)
		sw = jsonrpc.NewStream(w, idJSON)
	}
	sw.Start()
	s.pump(r.Context(), t, sub, sw, newRenderer(ext, t.id, t.contextID))
}

// GET /listCommands → {commands}, sub-commands named in full ("memory
// show") as Gemini CLI registers them. ?taskId= lists that task's
// session's commands (sessioncommands.go).
func (s *Server) handleListCommands(w http.ResponseWriter, r *http.Request) {
	reg, _, e := s.commandsFor(r.Context(), r.URL.Query().Get("taskId"), false)
	if e != nil {
		restError(w, restStatus(e), e.Message)
		return
	}
	type arg struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		IsRequired  bool   `json:"isRequired"`
	}
	type cmd struct {
		Name        string `json:"name"`
		Description string `json:"description"`
		Arguments   []arg  `json:"arguments"`
		SubCommands []cmd  `json:"subCommands"`
	}
	out := command.Tree(reg.CommandsFor(command.FaceA2A), true, func(c *command.Command, name string, subs []cmd) cmd {
		out := cmd{Name: name, Description: c.Description, Arguments: []arg{}, SubCommands: subs}
		for _, a := range c.Arguments {
			out.Arguments = append(out.Arguments, arg{a.Name, a.Description, a.Required})
		}
		return out
	})
	jsonrpc.WriteJSON(w, http.StatusOK, map[string]any{"commands": out})
}

// POST /executeCommand {command, args?} → {name, data}, or SSE for
// streaming commands (init), with the same framing as message/stream
// (Gemini CLI ends each event with one newline only, which SSE parsers
// do not split on).
func (s *Server) handleExecuteCommand(w http.ResponseWriter, r *http.Request) {
	var raw map[string]json.RawMessage
	if !decodeREST(w, r, &raw) {
		return
	}
	var name string
	if err := json.Unmarshal(raw["command"], &name); err != nil || raw["command"] == nil {
		restError(w, http.StatusBadRequest, `Invalid "command" field.`)
		return
	}
	var args []string
	var taskID string
	for _, f := range []struct {
		key, want string
		v         any
	}{{"args", "an array", &args}, {"taskId", "a string", &taskID}} {
		if b, ok := raw[f.key]; ok && string(b) != "null" && json.Unmarshal(b, f.v) != nil {
			restError(w, http.StatusBadRequest, `"`+f.key+`" field must be `+f.want+`.`)
			return
		}
	}
	reg, env, e := s.commandsFor(r.Context(), taskID, true)
	if e != nil {
		restError(w, restStatus(e), e.Message)
		return
	}
	cmd, path, e := findCommand(reg, env, name, name)
	if e != nil {
		restError(w, restStatus(e), e.Message)
		return
	}
	if !cmd.Streaming {
		res, err := cmd.Execute(r.Context(), &command.Invocation{Path: path, Args: args, Env: env})
		if err != nil {
			restError(w, http.StatusInternalServerError, err.Error())
			return
		}
		jsonrpc.WriteJSON(w, http.StatusOK, map[string]any{"name": name, "data": res.Payload()})
		return
	}
	s.streamREST(w, r, "", func(sub *subscriber) (*task, bool, *rpcError) {
		t, e := s.runCommand(r.Context(), cmd, path, args, env, false, sub)
		return t, false, e
	})
}
