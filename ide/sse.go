package ide

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
)

// The go-sdk (v1.8.0) drops notifications whose method it does not know
// before any hook sees them (modelcontextprotocol/go-sdk#745), and the
// companion's ide/* notifications are all custom. So the client's HTTP
// transport reads every server-sent event stream first and takes the
// ide/* notifications out; everything else reaches the SDK untouched.
// TODO: use the SDK's own hook once custom notifications land (#745,
// #1146), and delete this file.

// maxFilteredEvent bounds the bytes buffered for one event; past it the
// rest of the stream is copied without filtering (the SDK rejects such
// events anyway).
const maxFilteredEvent = 32 << 20

// noteFunc receives a notification taken out of a stream.
type noteFunc func(method string, params json.RawMessage)

// filterSSE copies the event stream r to w, except for events carrying a
// JSON-RPC notification whose method starts with "ide/": those go to
// note. Kept events are copied byte for byte. It returns when r ends
// (nil) or on a read or write error.
func filterSSE(r io.Reader, w io.Writer, note noteFunc) error {
	br := bufio.NewReaderSize(r, 32<<10)
	var event bytes.Buffer
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A long line: keep reading it whole.
			event.Write(line)
			if event.Len() > maxFilteredEvent {
				return passThrough(br, w, &event)
			}
			continue
		}
		event.Write(line)
		if err != nil {
			// End of stream: what is left is not a complete event, so it
			// goes through as it came.
			if _, werr := w.Write(event.Bytes()); werr != nil {
				return werr
			}
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
		if event.Len() > maxFilteredEvent {
			return passThrough(br, w, &event)
		}
		if len(bytes.TrimRight(line, "\r\n")) != 0 {
			continue
		}
		if method, params, ok := ideNotification(event.Bytes()); ok {
			note(method, params)
		} else if _, err := w.Write(event.Bytes()); err != nil {
			return err
		}
		event.Reset()
	}
}

func passThrough(br *bufio.Reader, w io.Writer, pending *bytes.Buffer) error {
	if _, err := w.Write(pending.Bytes()); err != nil {
		return err
	}
	_, err := io.Copy(w, br)
	return err
}

// ideNotification reports whether a complete event (its lines, ending with
// the blank line) is a message event holding an ide/* notification.
func ideNotification(event []byte) (method string, params json.RawMessage, ok bool) {
	var data []byte
	hasData := false
	for _, line := range bytes.Split(event, []byte("\n")) {
		line = bytes.TrimRight(line, "\r")
		field, value, found := bytes.Cut(line, []byte(":"))
		if !found {
			continue
		}
		// The SDK reads fields with surrounding spaces trimmed; read them
		// the same way so that both see the same event.
		value = bytes.TrimSpace(value)
		switch string(field) {
		case "event":
			if name := string(value); name != "" && name != "message" {
				return "", nil, false
			}
		case "data":
			if hasData {
				data = append(data, '\n')
			}
			data = append(data, value...)
			hasData = true
		}
	}
	if !hasData {
		return "", nil, false
	}
	var msg struct {
		Method string          `json:"method"`
		ID     json.RawMessage `json:"id"`
		Params json.RawMessage `json:"params"`
	}
	if json.Unmarshal(data, &msg) != nil || msg.ID != nil || !strings.HasPrefix(msg.Method, "ide/") {
		return "", nil, false
	}
	return msg.Method, msg.Params, true
}
