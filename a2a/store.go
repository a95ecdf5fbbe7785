package a2a

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"time"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/a2a/internal/memstore"
	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/lazy"
)

// ErrNotFound is returned by a TaskStore for a task it does not hold.
var ErrNotFound = errors.New("task not found")

// StoredTask is everything kept about a task between processes: enough to
// answer tasks/get and to continue the conversation with its context.
type StoredTask struct {
	ID        string
	ContextID string
	State     TaskState
	Timestamp time.Time
	// Status is the last status (state, message) clients saw.
	Status TaskStatus
	// Settings are the task's resolved agent settings.
	Settings AgentSettings
	// Metadata is the task's metadata as Gemini CLI persists it
	// (__persistedState, _contextId).
	Metadata map[string]any
	// History is the A2A message history.
	History []Message
	// Artifacts are the task's artifacts.
	Artifacts []Artifact
	// Conversation is the model conversation, which restores the session.
	Conversation []*genai.Content
	// PushConfigs are the task's push notification configs.
	PushConfigs []PushNotificationConfig
	// Pending records the calls of a turn paused for confirmation (nil
	// when none is), whose model response ends Conversation: a new process
	// asks for the same confirmations (agent.Session.RestorePending).
	Pending []agent.PendingCall
}

// TaskStore persists tasks. Implementations must be safe for concurrent
// use.
type TaskStore interface {
	Save(ctx context.Context, t *StoredTask) error
	// Load returns ErrNotFound for an unknown task.
	Load(ctx context.Context, id string) (*StoredTask, error)
	// List returns the ids of every stored task.
	List(ctx context.Context) ([]string, error)
}

// DefaultRetention is how long a task is kept after its last activity
// when Config.Retention is zero.
const DefaultRetention = 30 * 24 * time.Hour

// TaskPruner is a TaskStore that can delete old tasks, which a server's
// retention (Config.Retention) needs; a store without it keeps every task
// forever. MemoryStore and the blob store (package a2a/blobstore)
// implement it.
type TaskPruner interface {
	// Prune deletes the tasks whose last activity (StoredTask.Timestamp)
	// is before cutoff, except those keep (which may be nil) reports true
	// for, and returns the ids it deleted. keep is asked just before each
	// deletion, so that a task that came back to life meanwhile survives.
	Prune(ctx context.Context, cutoff time.Time, keep func(id string) bool) ([]string, error)
}

// validTaskID is Gemini CLI's rule for ids that become object names; it
// also keeps ids from escaping the store directory.
var validTaskID = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`) }}

// MemoryStore keeps tasks in memory: nothing survives a restart. It keeps
// copies of the task's lists, not of the messages and contents in them,
// which the server never changes once recorded.
type MemoryStore struct{ tasks *memstore.Store[StoredTask] }

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore {
	return &MemoryStore{memstore.New(copyStored, func(t *StoredTask) time.Time { return t.Timestamp })}
}

func copyStored(t *StoredTask) *StoredTask {
	cp := *t
	cp.History = append([]Message(nil), t.History...)
	cp.Artifacts = append([]Artifact(nil), t.Artifacts...)
	cp.Conversation = append([]*genai.Content(nil), t.Conversation...)
	cp.PushConfigs = append([]PushNotificationConfig(nil), t.PushConfigs...)
	cp.Pending = append([]agent.PendingCall(nil), t.Pending...)
	return &cp
}

// Save stores a copy of t.
func (m *MemoryStore) Save(_ context.Context, t *StoredTask) error {
	if !validTaskID.Get().MatchString(t.ID) {
		return fmt.Errorf("invalid task id %q", t.ID)
	}
	m.tasks.Put(t.ID, t)
	return nil
}

// Load returns a copy of the task.
func (m *MemoryStore) Load(_ context.Context, id string) (*StoredTask, error) {
	if t, ok := m.tasks.Get(id); ok {
		return t, nil
	}
	return nil, ErrNotFound
}

// Delete removes a task; deleting an unknown task is not an error.
func (m *MemoryStore) Delete(_ context.Context, id string) error {
	m.tasks.Delete(id)
	return nil
}

// Prune deletes the tasks last active before cutoff that keep does not
// claim (see TaskPruner).
func (m *MemoryStore) Prune(_ context.Context, cutoff time.Time, keep func(id string) bool) ([]string, error) {
	return m.tasks.Prune(cutoff, keep), nil
}

// List returns the stored ids.
func (m *MemoryStore) List(context.Context) ([]string, error) { return m.tasks.IDs(), nil }

// orEmpty gives an empty list for nil, so that JSON shows [] rather than
// null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// TaskSummary is what listing tasks needs of a stored task, without its
// history, conversation or artifacts.
type TaskSummary struct {
	ID        string
	ContextID string
	// State is StoredTask.State.
	State TaskState
	// StatusTimestamp is StoredTask.Status.Timestamp.
	StatusTimestamp string
	// LastActive is StoredTask.Timestamp.
	LastActive time.Time
}

// TaskSummarizer is a TaskStore that can summarise every task without
// loading it whole, which keeps listing tasks cheap on a large store (the
// server loads only the tasks of the page it returns). A store without it
// is listed by loading every task. MemoryStore and the blob store
// implement it.
type TaskSummarizer interface {
	// ListSummaries returns a summary of each task List would return, in
	// the same order; a task that cannot be read (List lists it, Load
	// would fail) may be left out.
	ListSummaries(ctx context.Context) ([]TaskSummary, error)
}

// summaryOf is the summary of a stored task.
func summaryOf(t *StoredTask) TaskSummary {
	return TaskSummary{ID: t.ID, ContextID: t.ContextID, State: t.State, StatusTimestamp: t.Status.Timestamp, LastActive: t.Timestamp}
}

// ListSummaries summarises the stored tasks, in List's order.
func (m *MemoryStore) ListSummaries(context.Context) ([]TaskSummary, error) {
	var out []TaskSummary
	for _, id := range m.tasks.IDs() {
		if t, ok := m.tasks.Get(id); ok {
			out = append(out, summaryOf(t))
		}
	}
	return out, nil
}

var _ TaskSummarizer = (*MemoryStore)(nil)
