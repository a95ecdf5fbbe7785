package a2a

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"
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

// validTaskID is Gemini CLI's rule for ids that become object names; it
// also keeps ids from escaping the store directory.
var validTaskID = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,128}$`)

// MemoryStore keeps tasks in memory: nothing survives a restart. It keeps
// copies of the task's lists, not of the messages and contents in them,
// which the server never changes once recorded.
type MemoryStore struct {
	mu    sync.Mutex
	tasks map[string]*StoredTask
}

// NewMemoryStore returns an empty MemoryStore.
func NewMemoryStore() *MemoryStore { return &MemoryStore{tasks: map[string]*StoredTask{}} }

func copyStored(t *StoredTask) *StoredTask {
	cp := *t
	cp.History = append([]Message(nil), t.History...)
	cp.Artifacts = append([]Artifact(nil), t.Artifacts...)
	cp.Conversation = append([]*genai.Content(nil), t.Conversation...)
	cp.PushConfigs = append([]PushNotificationConfig(nil), t.PushConfigs...)
	return &cp
}

// Save stores a copy of t.
func (m *MemoryStore) Save(_ context.Context, t *StoredTask) error {
	if !validTaskID.MatchString(t.ID) {
		return fmt.Errorf("invalid task id %q", t.ID)
	}
	cp := copyStored(t)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.tasks[t.ID] = cp
	return nil
}

// Load returns a copy of the task.
func (m *MemoryStore) Load(_ context.Context, id string) (*StoredTask, error) {
	m.mu.Lock()
	t, ok := m.tasks[id]
	m.mu.Unlock()
	if !ok {
		return nil, ErrNotFound
	}
	return copyStored(t), nil
}

// List returns the stored ids.
func (m *MemoryStore) List(context.Context) ([]string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	ids := make([]string, 0, len(m.tasks))
	for id := range m.tasks {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids, nil
}

// FileStore keeps tasks in a directory, one folder per task in the layout
// of Gemini CLI's task store:
//
//	tasks/<id>/metadata.json      the task metadata (__persistedState, _contextId)
//	tasks/<id>/history.json       the A2A message history
//	tasks/<id>/state.json         state, timestamp, context id, last status, settings
//	tasks/<id>/conversation.json  the model conversation (Castor's addition:
//	                              Gemini CLI loses it on restart)
//	tasks/<id>/push.json          push notification configs
//	tasks/<id>/artifacts/<n>.json one file per artifact
//
// Files are written atomically and readable by the owner only, since
// conversations and push tokens are private.
type FileStore struct {
	dir string
	mu  sync.Mutex
}

// NewFileStore returns a store rooted at dir, creating it.
func NewFileStore(dir string) (*FileStore, error) {
	if err := os.MkdirAll(filepath.Join(dir, "tasks"), 0o700); err != nil {
		return nil, err
	}
	return &FileStore{dir: dir}, nil
}

// Dir returns the store's root directory.
func (s *FileStore) Dir() string { return s.dir }

type stateFile struct {
	State     TaskState     `json:"state"`
	Timestamp string        `json:"timestamp"`
	ContextID string        `json:"contextId"`
	Status    TaskStatus    `json:"status"`
	Settings  AgentSettings `json:"agentSettings"`
}

// taskFiles is a StoredTask split the way the files hold it.
type taskFiles struct {
	Metadata     map[string]any           `json:"metadata"`
	History      []Message                `json:"history"`
	State        stateFile                `json:"state"`
	Conversation []*genai.Content         `json:"conversation"`
	Push         []PushNotificationConfig `json:"push"`
	Artifacts    []Artifact               `json:"artifacts"`
}

func toFiles(t *StoredTask) *taskFiles {
	return &taskFiles{
		Metadata: t.Metadata,
		History:  t.History,
		State: stateFile{
			State: t.State, Timestamp: stamp(t.Timestamp), ContextID: t.ContextID,
			Status: t.Status, Settings: t.Settings,
		},
		Conversation: t.Conversation,
		Push:         t.PushConfigs,
		Artifacts:    t.Artifacts,
	}
}

func fromFiles(id string, f *taskFiles) *StoredTask {
	ts, _ := time.Parse(time.RFC3339Nano, f.State.Timestamp)
	return &StoredTask{
		ID: id, ContextID: f.State.ContextID, State: f.State.State, Timestamp: ts,
		Status: f.State.Status, Settings: f.State.Settings, Metadata: f.Metadata,
		History: f.History, Artifacts: f.Artifacts, Conversation: f.Conversation, PushConfigs: f.Push,
	}
}

func (s *FileStore) taskDir(id string) (string, error) {
	if !validTaskID.MatchString(id) {
		return "", fmt.Errorf("invalid task id %q", id)
	}
	return filepath.Join(s.dir, "tasks", id), nil
}

// Save writes every file of the task. state.json is written last, so a
// task whose state file exists is complete.
func (s *FileStore) Save(_ context.Context, t *StoredTask) error {
	dir, err := s.taskDir(t.ID)
	if err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := os.MkdirAll(filepath.Join(dir, "artifacts"), 0o700); err != nil {
		return err
	}
	f := toFiles(t)
	files := []struct {
		name string
		v    any
	}{
		{"metadata.json", f.Metadata},
		{"history.json", orEmpty(f.History)},
		{"conversation.json", orEmptyContents(f.Conversation)},
		{"push.json", orEmptyPush(f.Push)},
	}
	for _, x := range files {
		if err := writeJSONFile(filepath.Join(dir, x.name), x.v); err != nil {
			return err
		}
	}
	keep := map[string]bool{}
	for i, a := range f.Artifacts {
		name := fmt.Sprintf("%04d.json", i)
		keep[name] = true
		if err := writeJSONFile(filepath.Join(dir, "artifacts", name), a); err != nil {
			return err
		}
	}
	if entries, err := os.ReadDir(filepath.Join(dir, "artifacts")); err == nil {
		for _, e := range entries {
			if !keep[e.Name()] {
				os.Remove(filepath.Join(dir, "artifacts", e.Name()))
			}
		}
	}
	return writeJSONFile(filepath.Join(dir, "state.json"), f.State)
}

// Load reads a task back.
func (s *FileStore) Load(_ context.Context, id string) (*StoredTask, error) {
	dir, err := s.taskDir(id)
	if err != nil {
		return nil, ErrNotFound
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	var f taskFiles
	if err := readJSONFile(filepath.Join(dir, "state.json"), &f.State); err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, ErrNotFound
		}
		return nil, err
	}
	for _, x := range []struct {
		name string
		v    any
	}{
		{"metadata.json", &f.Metadata},
		{"history.json", &f.History},
		{"conversation.json", &f.Conversation},
		{"push.json", &f.Push},
	} {
		if err := readJSONFile(filepath.Join(dir, x.name), x.v); err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, fmt.Errorf("task %s: %w", id, err)
		}
	}
	entries, _ := os.ReadDir(filepath.Join(dir, "artifacts"))
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		var a Artifact
		if err := readJSONFile(filepath.Join(dir, "artifacts", e.Name()), &a); err == nil {
			f.Artifacts = append(f.Artifacts, a)
		}
	}
	return fromFiles(id, &f), nil
}

// List returns the ids of the complete tasks in the store.
func (s *FileStore) List(context.Context) ([]string, error) {
	entries, err := os.ReadDir(filepath.Join(s.dir, "tasks"))
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, e := range entries {
		if !e.IsDir() || !validTaskID.MatchString(e.Name()) {
			continue
		}
		if _, err := os.Stat(filepath.Join(s.dir, "tasks", e.Name(), "state.json")); err == nil {
			ids = append(ids, e.Name())
		}
	}
	sort.Strings(ids)
	return ids, nil
}

func orEmpty(m []Message) []Message {
	if m == nil {
		return []Message{}
	}
	return m
}

func orEmptyContents(c []*genai.Content) []*genai.Content {
	if c == nil {
		return []*genai.Content{}
	}
	return c
}

func orEmptyPush(p []PushNotificationConfig) []PushNotificationConfig {
	if p == nil {
		return []PushNotificationConfig{}
	}
	return p
}

func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".tmp-*")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), path)
}

func readJSONFile(path string, v any) error {
	b, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	return json.Unmarshal(b, v)
}
