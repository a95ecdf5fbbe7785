package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// replyText is what the fake model answers every turn; a turn whose
// stream does not carry it failed.
const replyText = "ok from the a2aload fake model"

// a2aClient drives castor's A2A server over JSON-RPC message/stream, as
// Gemini CLI's clients do, on keep-alive connections.
type a2aClient struct {
	url  string
	ws   string
	http *http.Client
	seq  atomic.Int64
}

func newA2AClient(url, ws string) *a2aClient {
	return &a2aClient{url: url, ws: ws, http: &http.Client{Transport: &http.Transport{
		Proxy:               nil,
		MaxIdleConns:        2048,
		MaxIdleConnsPerHost: 2048,
		IdleConnTimeout:     time.Minute,
		DisableCompression:  true,
	}}}
}

// turnResult is one message/stream call, timed from sending the request
// to reading the final event.
type turnResult struct {
	seq       int
	taskID    string
	total     time.Duration
	firstByte time.Duration
	events    int
	// trail sums up the events read (kind, coderAgent kind, state), and
	// finalText is the final status's message, for the error of a turn
	// whose text did not arrive.
	trail     []string
	finalText string
	err       error
}

// maxTrail bounds the events a turn's trail keeps.
const maxTrail = 16

func (c *a2aClient) nextSeq() int { return int(c.seq.Add(1)) }

// streamBody is a message/stream request; taskID "" starts a task.
func (c *a2aClient) streamBody(seq int, taskID string) []byte {
	msg := map[string]any{
		"kind":      "message",
		"role":      "user",
		"messageId": "a2aload-" + strconv.Itoa(seq),
		"parts":     []any{map[string]any{"kind": "text", "text": "Answer ok. " + marker + strconv.Itoa(seq) + "]"}},
	}
	if taskID == "" {
		msg["metadata"] = map[string]any{"coderAgent": map[string]any{
			"kind": "agent-settings", "workspacePath": c.ws, "autoExecute": false,
		}}
	} else {
		msg["taskId"] = taskID
	}
	b, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": seq, "method": "message/stream",
		"params": map[string]any{"message": msg},
	})
	return b
}

// sseEvent is the part of a streamed JSON-RPC response the client checks.
type sseEvent struct {
	Result *eventResult `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// eventResult is a streamed event: a task or a status update.
type eventResult struct {
	Kind     string     `json:"kind"`
	ID       string     `json:"id"`
	TaskID   string     `json:"taskId"`
	Final    bool       `json:"final"`
	Status   taskStatus `json:"status"`
	Metadata struct {
		CoderAgent struct {
			Kind string `json:"kind"`
		} `json:"coderAgent"`
	} `json:"metadata"`
}

// summary names the event in a turn's trail: its kind, its coderAgent
// kind and its state, "!" marking the final one.
func (r *eventResult) summary() string {
	s := r.Kind
	if k := r.Metadata.CoderAgent.Kind; k != "" {
		s += "/" + k
	}
	if r.Status.State != "" {
		s += "/" + r.Status.State
	}
	if r.Final {
		s += "!"
	}
	if txt := r.Status.text(); txt != "" && r.Metadata.CoderAgent.Kind != "text-content" {
		// An error update carries its error here.
		s += fmt.Sprintf(" %.200q", txt)
	}
	return s
}

// taskStatus is a task's status as events and tasks/get carry it.
type taskStatus struct {
	State   string   `json:"state"`
	Message *message `json:"message"`
}

func (st taskStatus) text() string {
	if st.Message == nil {
		return ""
	}
	return st.Message.text()
}

// message is an A2A message as far as the checks read it.
type message struct {
	Role  string `json:"role"`
	Parts []struct {
		Kind string `json:"kind"`
		Text string `json:"text"`
	} `json:"parts"`
}

// text joins the message's text parts.
func (m *message) text() string {
	var b strings.Builder
	for _, p := range m.Parts {
		if p.Kind == "text" {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// turn runs one message/stream call and checks its stream: JSON-RPC
// results only, the model's text, one final event (the last) in state
// input-required.
func (c *a2aClient) turn(ctx context.Context, taskID string, timeout time.Duration) turnResult {
	seq := c.nextSeq()
	res := turnResult{seq: seq, taskID: taskID}
	body := c.streamBody(seq, taskID)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		res.err = err
		return res
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "text/event-stream")
	start := time.Now()
	resp, err := c.http.Do(req)
	if err != nil {
		res.err = err
		return res
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		b, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		res.err = fmt.Errorf("HTTP %d: %s", resp.StatusCode, bytes.TrimSpace(b))
		return res
	}
	br := bufio.NewReaderSize(resp.Body, 64<<10)
	var text strings.Builder
	final := false
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// An event longer than the buffer: read the rest of the line.
			rest, err2 := br.ReadBytes('\n')
			line = append(append([]byte(nil), line...), rest...)
			err = err2
		}
		if len(line) > 0 && res.firstByte == 0 {
			res.firstByte = time.Since(start)
		}
		if data, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			if final {
				res.err = errors.New("event after the final event")
				return res
			}
			res.events++
			var ev sseEvent
			if jerr := json.Unmarshal(data, &ev); jerr != nil {
				res.err = fmt.Errorf("bad event: %v", jerr)
				return res
			}
			switch {
			case ev.Error != nil:
				res.err = fmt.Errorf("error event %d: %s", ev.Error.Code, ev.Error.Message)
				return res
			case ev.Result == nil:
				res.err = errors.New("event without result")
				return res
			}
			r := ev.Result
			if len(res.trail) < maxTrail {
				res.trail = append(res.trail, r.summary())
			}
			if res.taskID == "" {
				if r.Kind == "task" {
					res.taskID = r.ID
				} else if r.TaskID != "" {
					res.taskID = r.TaskID
				}
			}
			if r.Kind == "status-update" && r.Metadata.CoderAgent.Kind == "text-content" {
				text.WriteString(r.Status.text())
			}
			if r.Final {
				res.total = time.Since(start)
				final = true
				res.finalText = r.Status.text()
				if r.Status.State != "input-required" {
					res.err = fmt.Errorf("final state %q: %.300s", r.Status.State, data)
					return res
				}
			}
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			res.err = err
			return res
		}
	}
	switch {
	case !final:
		res.err = fmt.Errorf("stream ended without a final event after %d events", res.events)
	case text.String() != replyText:
		res.err = fmt.Errorf("task %s: the model's text arrived as %q, want %q; events: %s",
			res.taskID, text.String(), replyText, strings.Join(res.trail, ", "))
	case res.taskID == "":
		res.err = errors.New("no task id in the stream")
	}
	return res
}

// replay sends a captured model request straight to base (the fake, or
// the proxy with the replay header) and times it to the last byte.
func replay(ctx context.Context, hc *http.Client, base string, cr *capturedRequest, viaProxy bool) (time.Duration, error) {
	req, err := http.NewRequestWithContext(ctx, cr.method, base+cr.path, bytes.NewReader(cr.body))
	if err != nil {
		return 0, err
	}
	for k, vs := range cr.header {
		if k == "Connection" || k == "Keep-Alive" || k == "Accept-Encoding" || k == "Content-Length" {
			continue
		}
		req.Header[k] = vs
	}
	if viaProxy {
		req.Header.Set(replayHeader, "1")
	}
	start := time.Now()
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	d := time.Since(start)
	if err != nil {
		return 0, err
	}
	// The reply may be split over chunks; the last one carries the finish.
	if resp.StatusCode != http.StatusOK || !bytes.Contains(b, []byte(`"finishReason":"STOP"`)) {
		return 0, fmt.Errorf("replay: HTTP %d: %.200s", resp.StatusCode, b)
	}
	return d, nil
}

// storedTask is a task as tasks/get answers it, as far as checkTask reads
// it.
type storedTask struct {
	ID      string     `json:"id"`
	Status  taskStatus `json:"status"`
	History []message  `json:"history"`
}

// getTask reads a task with tasks/get (its whole history).
func (c *a2aClient) getTask(ctx context.Context, id string, timeout time.Duration) (*storedTask, error) {
	body, _ := json.Marshal(map[string]any{
		"jsonrpc": "2.0", "id": c.nextSeq(), "method": "tasks/get",
		"params": map[string]any{"id": id},
	})
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("tasks/get: HTTP %d: %.300s", resp.StatusCode, bytes.TrimSpace(b))
	}
	var out struct {
		Result *storedTask `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("tasks/get: %v", err)
	}
	switch {
	case out.Error != nil:
		return nil, fmt.Errorf("tasks/get: error %d: %s", out.Error.Code, out.Error.Message)
	case out.Result == nil:
		return nil, errors.New("tasks/get: no result")
	}
	return out.Result, nil
}

// checkTask checks a task after its last turn, as tasks/get shows it:
// waiting for input, with one agent message reading the model's text per
// turn and no other agent message (an error, a "server restarted"
// notice). A turn that ends without the text the model answered, however
// its stream looked, fails here.
func checkTask(t *storedTask, turns int) error {
	if t.Status.State != "input-required" {
		return fmt.Errorf("task %s is %q (status text %q), want input-required", t.ID, t.Status.State, t.Status.text())
	}
	answers := 0
	var other []string
	for i := range t.History {
		m := &t.History[i]
		if m.Role != "agent" {
			continue
		}
		if txt := m.text(); txt == replyText {
			answers++
		} else {
			other = append(other, fmt.Sprintf("%.120q", txt))
		}
	}
	if answers != turns || len(other) > 0 {
		return fmt.Errorf("task %s: %d of %d turns have the model's text in the history (%d messages); other agent messages: %s; status text %q",
			t.ID, answers, turns, len(t.History), strings.Join(other, ", "), t.Status.text())
	}
	return nil
}
