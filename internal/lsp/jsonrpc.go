package lsp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// maxMessage bounds one message from a server: a larger one is a broken
// or hostile server, not an answer worth holding in memory.
const maxMessage = 64 << 20

// message is one JSON-RPC 2.0 message in either direction.
type message struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id,omitempty"`
	Method  string          `json:"method,omitempty"`
	Params  json.RawMessage `json:"params,omitempty"`
	Result  json.RawMessage `json:"result,omitempty"`
	Error   *rpcError       `json:"error,omitempty"`
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int    `json:"code"`
	Message string `json:"message"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("%s (code %d)", e.Message, e.Code) }

// errClosed is what calls get once the connection is gone.
var errClosed = errors.New("the language server's connection closed")

// conn is JSON-RPC over the base protocol's Content-Length framing.
type conn struct {
	w   io.Writer
	wmu sync.Mutex

	mu      sync.Mutex
	next    int64
	pending map[string]chan *message
	closed  bool

	// notify receives the server's notifications and request the
	// server's requests (its answer is sent back); both run on the read
	// loop, so they must not call the server themselves.
	notify  func(method string, params json.RawMessage)
	request func(method string, params json.RawMessage) (any, error)
}

func newConn(w io.Writer) *conn {
	return &conn{w: w, pending: map[string]chan *message{}}
}

// readMessage reads one framed message.
func readMessage(r *bufio.Reader) ([]byte, error) {
	length := -1
	for {
		line, err := r.ReadString('\n')
		if err != nil {
			return nil, err
		}
		line = strings.TrimRight(line, "\r\n")
		if line == "" {
			break
		}
		name, value, ok := strings.Cut(line, ":")
		if ok && strings.EqualFold(strings.TrimSpace(name), "Content-Length") {
			n, err := strconv.Atoi(strings.TrimSpace(value))
			if err != nil || n < 0 {
				return nil, fmt.Errorf("bad Content-Length header %q", line)
			}
			length = n
		}
	}
	if length < 0 {
		return nil, errors.New("a message without a Content-Length header")
	}
	if length > maxMessage {
		return nil, fmt.Errorf("a message of %d bytes, over the %d-byte limit", length, maxMessage)
	}
	// Read as it arrives rather than trust the header with the memory.
	b, err := io.ReadAll(io.LimitReader(r, int64(length)))
	if err == nil && len(b) < length {
		err = io.ErrUnexpectedEOF
	}
	return b, err
}

// run reads messages until r ends, then fails every pending call.
func (c *conn) run(r io.Reader) error {
	br := bufio.NewReaderSize(r, 64<<10)
	var err error
	for {
		var b []byte
		if b, err = readMessage(br); err != nil {
			break
		}
		var m message
		if json.Unmarshal(b, &m) != nil {
			continue // not JSON-RPC: skipped, as a stray line would be
		}
		switch {
		case m.Method != "" && len(m.ID) > 0:
			c.answer(m)
		case m.Method != "":
			if c.notify != nil {
				c.notify(m.Method, m.Params)
			}
		case len(m.ID) > 0:
			c.mu.Lock()
			ch := c.pending[string(m.ID)]
			delete(c.pending, string(m.ID))
			c.mu.Unlock()
			if ch != nil {
				ch <- &m
			}
		}
	}
	c.mu.Lock()
	c.closed = true
	for id, ch := range c.pending {
		close(ch)
		delete(c.pending, id)
	}
	c.mu.Unlock()
	if errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// answer replies to a request from the server.
func (c *conn) answer(m message) {
	var result any
	var err error
	if c.request != nil {
		result, err = c.request(m.Method, m.Params)
	} else {
		err = &rpcError{Code: -32601, Message: "method not found: " + m.Method}
	}
	reply := map[string]any{"jsonrpc": "2.0", "id": m.ID}
	var re *rpcError
	switch {
	case errors.As(err, &re):
		reply["error"] = re
	case err != nil:
		reply["error"] = &rpcError{Code: -32603, Message: err.Error()}
	default:
		reply["result"] = result
	}
	_ = c.write(reply)
}

func (c *conn) write(v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if _, err := fmt.Fprintf(c.w, "Content-Length: %d\r\n\r\n", len(b)); err != nil {
		return err
	}
	_, err = c.w.Write(b)
	return err
}

// Notify sends a notification.
func (c *conn) Notify(method string, params any) error {
	return c.write(map[string]any{"jsonrpc": "2.0", "method": method, "params": params})
}

// Call sends a request and decodes its result into result (unless nil);
// an ended ctx sends $/cancelRequest and returns ctx's error.
func (c *conn) Call(ctx context.Context, method string, params, result any) error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return errClosed
	}
	c.next++
	id := c.next
	key := strconv.FormatInt(id, 10)
	ch := make(chan *message, 1)
	c.pending[key] = ch
	c.mu.Unlock()
	req := map[string]any{"jsonrpc": "2.0", "id": id, "method": method}
	if params != nil {
		req["params"] = params
	}
	if err := c.write(req); err != nil {
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
		return err
	}
	select {
	case m, ok := <-ch:
		if !ok {
			return errClosed
		}
		if m.Error != nil {
			return m.Error
		}
		if result != nil && len(m.Result) > 0 {
			return json.Unmarshal(m.Result, result)
		}
		return nil
	case <-ctx.Done():
		c.mu.Lock()
		delete(c.pending, key)
		c.mu.Unlock()
		_ = c.Notify("$/cancelRequest", map[string]any{"id": id})
		return ctx.Err()
	}
}
