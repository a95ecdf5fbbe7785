package pgstore

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/pgstore/internal/pgwire"
)

// SaveText saves a chunk of streamed text as one row of castor_events
// (a2a.TextSaver); a load of the task at that version applies it.
func (s *Store) SaveText(ctx context.Context, id string, version int64, c a2a.TextChunk) error {
	return s.AppendEvent(ctx, id, version, nil, &c)
}

// AppendEvent appends an event of a turn running in this process to the
// task's events, with the text chunk it streams (nil: none) saved in the
// same row, and wakes the replicas relaying the task's events.
func (s *Store) AppendEvent(ctx context.Context, id string, version int64, body []byte, c *a2a.TextChunk) error {
	var idx, at *int32
	var text *string
	var msg []byte
	if c != nil {
		i, a := int32(c.Index), int32(c.At)
		idx, at = &i, &a
		if c.At == 0 {
			b, err := json.Marshal(c.Message)
			if err != nil {
				return fmt.Errorf("task %s: %v", id, err)
			}
			msg = b
		} else {
			d := c.Message.Parts[0].Text[c.At:]
			text = &d
		}
	}
	b := &batch{}
	b.queue(`INSERT INTO castor_events (task_id, version, body, text_idx, text_at, text, msg) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
		id, version, body, idx, at, text, msg)
	if body != nil {
		b.queue(`SELECT pg_notify('castor_event', $1)`, id)
	}
	if err := s.withConn(ctx, func(c *pgwire.Conn) error { return b.send(ctx, c) }); err != nil {
		return fmt.Errorf("task %s: saving an event: %v", id, err)
	}
	return nil
}

// chunk is a saved chunk of streamed text (a row of castor_events).
type chunk struct {
	idx, at int32
	text    *string
	msg     []byte
}

// readChunks reads the text chunks of task id saved at version: the text
// a turn streamed since the task's last save.
func readChunks(ctx context.Context, c *pgwire.Conn, id string, version int64) ([]chunk, error) {
	return collect(ctx, c, `SELECT text_idx, text_at, text, msg FROM castor_events
		WHERE task_id = $1 AND version = $2 AND text_idx IS NOT NULL ORDER BY seq`, []any{id, version}, func(values [][]byte) (chunk, error) {
		var ch chunk
		err := scan(values, &ch.idx, &ch.at, &ch.text, &ch.msg)
		return ch, err
	})
}

// apply applies the chunk to t's history.
func (c chunk) apply(t *a2a.StoredTask) error {
	i := int(c.idx)
	if c.msg != nil {
		if i > len(t.History) {
			return fmt.Errorf("streamed text for message %d of a history of %d", i, len(t.History))
		}
		var m a2a.Message
		if err := json.Unmarshal(c.msg, &m); err != nil {
			return fmt.Errorf("streamed message %d: %v", i, err)
		}
		t.History = append(t.History[:i:i], m)
		return nil
	}
	if i >= len(t.History) || len(t.History[i].Parts) != 1 || len(t.History[i].Parts[0].Text) < int(c.at) || c.text == nil {
		return fmt.Errorf("streamed text at %d of message %d, which is not that long a text", c.at, i)
	}
	t.History[i].Parts = []a2a.Part{a2a.TextPart(t.History[i].Parts[0].Text[:c.at] + *c.text)}
	return nil
}

// Events returns the task's events numbered after `after`, in order, and
// a channel closed at the task's next notification (an event appended, a
// save, its lease released), taken before the read.
func (s *Store) Events(ctx context.Context, id string, after int64) ([]a2a.StoredEvent, <-chan struct{}, error) {
	wake := s.notes.next(id)
	evs, err := collectPooled(ctx, s, `SELECT seq, body FROM castor_events
		WHERE task_id = $1 AND seq > $2 AND body IS NOT NULL ORDER BY seq`, []any{id, after}, func(values [][]byte) (a2a.StoredEvent, error) {
		var ev a2a.StoredEvent
		err := scan(values, &ev.Seq, &ev.Body)
		return ev, err
	})
	if err != nil {
		return nil, nil, fmt.Errorf("task %s: reading its events: %v", id, err)
	}
	return evs, wake, nil
}

// LoadWithCursor is LoadVersioned with the number of the task's last
// event, read in the same snapshot.
func (s *Store) LoadWithCursor(ctx context.Context, id string) (*a2a.StoredTask, int64, int64, error) {
	return s.load(ctx, id)
}
