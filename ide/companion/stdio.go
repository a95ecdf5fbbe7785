package companion

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os/signal"
	"sync"
	"time"

	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/internal/jsonerr"
)

// Event types an editor plugin writes to ServeStdio's input, one JSON
// object per line (see ide/PROTOCOL.md).
const (
	EventOpened       = "opened"
	EventClosed       = "closed"
	EventFocused      = "focused"
	EventCursor       = "cursor"
	EventSelection    = "selection"
	EventTrusted      = "trusted"
	EventDiffAccepted = "diffAccepted"
	EventDiffRejected = "diffRejected"
	EventDiffClosed   = "diffClosed"
)

// Message types ServeStdio writes to its output.
const (
	MessageReady     = "ready"
	MessageOpenDiff  = "openDiff"
	MessageCloseDiff = "closeDiff"
	MessageError     = "error"
)

// MaxLineLength bounds one input line; a longer one is skipped and
// reported.
const MaxLineLength = 64 << 20

// DefaultCloseDiffTimeout is how long ServeStdio waits for the plugin's
// diffClosed reply before answering closeDiff with the proposed content.
const DefaultCloseDiffTimeout = 2 * time.Second

// Event is one input line.
type Event struct {
	// Type is one of the Event… constants.
	Type string `json:"type"`
	// Path is the absolute path of the file concerned.
	Path string `json:"path,omitempty"`
	// Cursor is 1-based (focused, cursor).
	Cursor *ide.Cursor `json:"cursor,omitempty"`
	// SelectedText is the selection, "" for none (focused, selection).
	SelectedText *string `json:"selectedText,omitempty"`
	// Content is the file content the user accepted (diffAccepted) or the
	// diff view held when it closed (diffClosed).
	Content *string `json:"content,omitempty"`
	// Trusted is the workspace's trust (trusted).
	Trusted *bool `json:"trusted,omitempty"`
}

// ParseEvent decodes and checks one input line.
func ParseEvent(line []byte) (Event, error) {
	var e Event
	// Unknown fields are ignored, so that plugins written for a later
	// version of the protocol keep working.
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&e); err != nil {
		return Event{}, fmt.Errorf("not a JSON event: %s", jsonerr.Describe(err))
	}
	if dec.More() {
		return Event{}, errors.New("one JSON object per line")
	}
	needPath := func() error {
		if e.Path == "" {
			return fmt.Errorf("%s event without a path", e.Type)
		}
		return nil
	}
	switch e.Type {
	case EventOpened, EventClosed, EventFocused, EventDiffRejected:
		return e, needPath()
	case EventCursor:
		if e.Cursor == nil {
			return Event{}, errors.New("cursor event without a cursor")
		}
		return e, needPath()
	case EventSelection:
		if e.SelectedText == nil {
			return Event{}, errors.New("selection event without selectedText")
		}
		return e, needPath()
	case EventTrusted:
		if e.Trusted == nil {
			return Event{}, errors.New("trusted event without trusted")
		}
		return e, nil
	case EventDiffAccepted:
		return e, needPath()
	case EventDiffClosed:
		if e.Content == nil {
			return Event{}, errors.New("diffClosed event without content")
		}
		return e, needPath()
	case "":
		return Event{}, errors.New("event without a type")
	}
	return Event{}, fmt.Errorf("unknown event type %q", e.Type)
}

// Message is one output line.
type Message struct {
	// Type is one of the Message… constants.
	Type string `json:"type"`
	// Path is the file of openDiff and closeDiff.
	Path string `json:"path,omitempty"`
	// NewContent is the proposed content (openDiff).
	NewContent *string `json:"newContent,omitempty"`
	// Port, AuthToken, DiscoveryFile, WorkspacePath and Env describe the
	// running companion (ready); Env holds the variables to set in the
	// editor's terminals.
	Port          int               `json:"port,omitempty"`
	AuthToken     string            `json:"authToken,omitempty"`
	DiscoveryFile string            `json:"discoveryFile,omitempty"`
	WorkspacePath string            `json:"workspacePath,omitempty"`
	Env           map[string]string `json:"env,omitempty"`
	// Message and Line describe a rejected input line (error).
	Message string `json:"message,omitempty"`
	Line    int    `json:"line,omitempty"`
}

// StdioOptions configures ServeStdio.
type StdioOptions struct {
	// Server configures the companion; its Editor is ServeStdio's own.
	Server Options
	// CloseDiffTimeout replaces DefaultCloseDiffTimeout.
	CloseDiffTimeout time.Duration
}

// ServeStdio runs a companion driven by newline-delimited JSON: events
// from the editor plugin on in, requests to it on out. It returns when in
// ends, ctx ends, or the process gets SIGINT, SIGTERM or SIGHUP, and always
// deletes the discovery file.
func ServeStdio(ctx context.Context, in io.Reader, out io.Writer, o StdioOptions) error {
	ctx, stop := signal.NotifyContext(ctx, stopSignals...)
	defer stop()
	ed := &stdioEditor{
		out:       &lineWriter{w: out},
		waiting:   map[string]chan string{},
		proposals: map[string]string{},
		timeout:   o.CloseDiffTimeout,
	}
	if ed.timeout <= 0 {
		ed.timeout = DefaultCloseDiffTimeout
	}
	so := o.Server
	so.Editor = ed
	s := New(so)
	if err := s.Start(); err != nil {
		return err
	}
	defer s.Stop(context.WithoutCancel(ctx))
	env := s.Env()
	env[ide.EnvAuthToken] = s.Token()
	ed.out.write(Message{
		Type:          MessageReady,
		Port:          s.Port(),
		AuthToken:     s.Token(),
		DiscoveryFile: s.DiscoveryFile(),
		WorkspacePath: s.WorkspacePath(),
		Env:           env,
	})

	type input struct {
		n    int
		line []byte
		err  error
	}
	lines := make(chan input)
	go func() {
		defer close(lines)
		readLines(in, MaxLineLength, func(n int, line []byte, err error) bool {
			select {
			case lines <- input{n, line, err}:
				return true
			case <-ctx.Done():
				return false
			}
		})
	}()
	for {
		select {
		case <-ctx.Done():
			return nil
		case l, ok := <-lines:
			if !ok {
				return nil
			}
			if l.err == nil {
				l.err = handle(s, ed, l.line)
			}
			if l.err != nil {
				ed.out.write(Message{Type: MessageError, Message: l.err.Error(), Line: l.n})
			}
		}
	}
}

// handle applies one input line.
func handle(s *Server, ed *stdioEditor, line []byte) error {
	if len(bytes.TrimSpace(line)) == 0 {
		return nil
	}
	e, err := ParseEvent(line)
	if err != nil {
		return err
	}
	switch e.Type {
	case EventOpened:
		return s.FileOpened(e.Path)
	case EventClosed:
		return s.FileClosed(e.Path)
	case EventFocused:
		if err := s.FileFocused(e.Path); err != nil {
			return err
		}
		if e.Cursor != nil {
			s.CursorMoved(e.Path, e.Cursor.Line, e.Cursor.Character)
		}
		if e.SelectedText != nil {
			s.SelectionChanged(e.Path, *e.SelectedText)
		}
		return nil
	case EventCursor:
		return s.CursorMoved(e.Path, e.Cursor.Line, e.Cursor.Character)
	case EventSelection:
		return s.SelectionChanged(e.Path, *e.SelectedText)
	case EventTrusted:
		s.SetTrusted(*e.Trusted)
		return nil
	case EventDiffAccepted:
		content, ok := s.ProposedContent(e.Path)
		if !ok {
			return fmt.Errorf("diffAccepted for %s: %w", e.Path, ErrNoDiff)
		}
		if e.Content != nil {
			content = *e.Content
		}
		ed.forget(e.Path)
		return s.AcceptDiff(e.Path, content)
	case EventDiffRejected:
		ed.forget(e.Path)
		if err := s.RejectDiff(e.Path); err != nil {
			return fmt.Errorf("diffRejected for %s: %w", e.Path, err)
		}
		return nil
	case EventDiffClosed:
		ed.closed(e.Path, *e.Content)
	}
	return nil
}

// readLines calls fn with every line of r (without its newline), or with
// an error for a line longer than max, which is skipped. fn returns false
// to stop.
func readLines(r io.Reader, max int, fn func(n int, line []byte, err error) bool) {
	br := bufio.NewReaderSize(r, 64<<10)
	var buf []byte
	n, tooLong := 0, false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			buf = append(buf, chunk...)
			if len(buf) > max {
				tooLong, buf = true, nil
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		if len(chunk) == 0 && len(buf) == 0 && !tooLong && err != nil {
			return
		}
		n++
		var ok bool
		if tooLong {
			ok = fn(n, nil, fmt.Errorf("line longer than %d bytes skipped", max))
		} else {
			ok = fn(n, bytes.TrimRight(buf, "\r\n"), nil)
		}
		buf, tooLong = nil, false
		if !ok || err != nil {
			return
		}
	}
}

// lineWriter writes one JSON message per line, whole.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) write(m Message) error {
	data, err := marshal(m)
	if err != nil {
		return err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err = l.w.Write(append(data, '\n'))
	return err
}

// stdioEditor is the Editor of ServeStdio: it asks the plugin through the
// output and waits for the plugin's replies on the input.
type stdioEditor struct {
	out       *lineWriter
	timeout   time.Duration
	mu        sync.Mutex
	waiting   map[string]chan string
	proposals map[string]string
}

// OpenDiff implements Editor.
func (e *stdioEditor) OpenDiff(ctx context.Context, path, newContent string) error {
	e.mu.Lock()
	e.proposals[path] = newContent
	e.mu.Unlock()
	return e.out.write(Message{Type: MessageOpenDiff, Path: path, NewContent: &newContent})
}

// CloseDiff implements Editor: it asks the plugin to close the view and
// waits for the content it held, falling back to the proposal when the
// plugin does not answer in time.
func (e *stdioEditor) CloseDiff(ctx context.Context, path string) (string, error) {
	ch := make(chan string, 1)
	e.mu.Lock()
	e.waiting[path] = ch
	proposal := e.proposals[path]
	delete(e.proposals, path)
	e.mu.Unlock()
	defer func() {
		e.mu.Lock()
		if e.waiting[path] == ch {
			delete(e.waiting, path)
		}
		e.mu.Unlock()
	}()
	if err := e.out.write(Message{Type: MessageCloseDiff, Path: path}); err != nil {
		return "", err
	}
	t := time.NewTimer(e.timeout)
	defer t.Stop()
	select {
	case content := <-ch:
		return content, nil
	case <-t.C:
		return proposal, nil
	case <-ctx.Done():
		return "", ctx.Err()
	}
}

// closed delivers the plugin's reply to a closeDiff.
func (e *stdioEditor) closed(path, content string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if ch, ok := e.waiting[path]; ok {
		delete(e.waiting, path)
		ch <- content
	}
}

func (e *stdioEditor) forget(path string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	delete(e.proposals, path)
}
