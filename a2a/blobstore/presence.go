package blobstore

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"time"
)

// A store is for one process at a time (see Concurrency in the package
// documentation): two servers saving the same tasks lose turns. So a
// store says, as it opens, when another process has it open, which the
// server prints at start-up (Shared). A file:// store knows it from the
// shared lock every open store holds on its directory (sweep.go); a
// bucket (gs://, s3://) from the presence objects each open store keeps
// under processes/ and rewrites every presenceEvery: one younger than
// three periods is a live process.

// presencePrefix holds the presence objects, outside tasks/ so that
// Gemini CLI's layout stays as it is.
const presencePrefix = "processes/"

// presenceEvery is how often an open store rewrites its presence object.
const presenceEvery = 30 * time.Second

type presence struct {
	Host string    `json:"host"`
	PID  int       `json:"pid"`
	Time time.Time `json:"time"`
}

// presenceState is a bucket store's presence: its object's key and the
// rewriting goroutine, stopped by Close.
type presenceState struct {
	key  string
	stop context.CancelFunc
	done chan struct{}
}

// Shared returns, when another process had the store open as this one
// opened it, a sentence saying so for the server's start-up; else "".
func (s *Store) Shared() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.others
}

func (s *Store) setOthers(what string) {
	s.mu.Lock()
	s.others = fmt.Sprintf("another process (%s) has this task store open: a store is for one process at a time, and two servers on it lose turns; replicas share a PostgreSQL database instead (--store postgres://…, docs/a2a-replicas.md)", what)
	s.mu.Unlock()
}

// announce looks for the live presence objects of other processes, then
// writes this process's and keeps rewriting it until Close.
func (s *Store) announce(ctx context.Context) error {
	host, _ := os.Hostname()
	var b [6]byte
	_, _ = rand.Read(b[:])
	key := presencePrefix + hex.EncodeToString(b[:])
	objs, err := s.b.List(ctx, presencePrefix)
	if err != nil {
		return err
	}
	for _, obj := range objs {
		raw, err := s.b.ReadAll(ctx, obj.Key)
		if err != nil {
			continue
		}
		var p presence
		if json.Unmarshal(raw, &p) == nil && time.Since(p.Time) < 3*presenceEvery {
			s.setOthers(fmt.Sprintf("pid %d on %s", p.PID, p.Host))
			break
		}
	}
	write := func(ctx context.Context) {
		raw, _ := json.Marshal(presence{Host: host, PID: os.Getpid(), Time: time.Now().UTC()})
		_ = s.b.WriteAll(ctx, key, raw, false)
	}
	write(ctx)
	pctx, stop := context.WithCancel(context.Background())
	st := &presenceState{key: key, stop: stop, done: make(chan struct{})}
	go func() {
		defer close(st.done)
		tick := time.NewTicker(presenceEvery)
		defer tick.Stop()
		for {
			select {
			case <-pctx.Done():
				return
			case <-tick.C:
				write(pctx)
			}
		}
	}()
	s.presence = st
	return nil
}

// leave stops rewriting the presence object and deletes it.
func (s *Store) leave() {
	st := s.presence
	if st == nil {
		return
	}
	st.stop()
	<-st.done
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = s.b.Delete(ctx, st.key)
}
