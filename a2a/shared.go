package a2a

import (
	"context"
	"errors"
)

// ErrConcurrentModification is returned by a SharedStore's SaveVersioned
// when the task changed in the store since the version the caller holds
// (another replica saved it): the caller's copy is stale and must be
// reloaded, not written over the other's.
var ErrConcurrentModification = errors.New("the task was changed by another replica")

// SharedStore is a TaskStore several server processes (replicas behind a
// load balancer) use at once, as package a2a/pgstore's PostgreSQL store
// is. With one, a server never answers from a copy of a task another
// replica has changed, never writes over another replica's turn, and runs
// a confirmed tool call once whichever replica the confirmation reaches:
//
//   - every save names the version it read (SaveVersioned), and fails with
//     ErrConcurrentModification when the task moved on;
//   - a replica holds a task's lease (Lease) from the moment it accepts a
//     message until its last queued turn ended and was saved; a message for
//     a task leased elsewhere waits for the lease, then runs on the task as
//     the other replica left it;
//   - a task kept in memory and not leased by this process is checked
//     against the stored version before use (Version) and reloaded when it
//     moved on;
//   - a pending confirmation is claimed (ClaimPending) before it is
//     answered: of two replicas answering the same call, one runs it and
//     the other tells its client the call was already answered;
//   - a task stored as running whose lease expired (its replica died) is
//     shown interrupted and continuable, as after a restart.
type SharedStore interface {
	TaskStore
	// LoadVersioned is Load with the version loaded.
	LoadVersioned(ctx context.Context, id string) (*StoredTask, int64, error)
	// SaveVersioned saves t when the stored version is prev (0: the task
	// is not stored yet) and returns the new version, or
	// ErrConcurrentModification.
	SaveVersioned(ctx context.Context, t *StoredTask, prev int64) (int64, error)
	// Version returns the stored version of a task, ErrNotFound for an
	// unknown one.
	Version(ctx context.Context, id string) (int64, error)
	// Lease waits, as long as ctx lasts, until no other replica holds the
	// task's lease, and takes it; the store renews it until Release.
	Lease(ctx context.Context, id string) (Lease, error)
	// LeasedElsewhere reports whether another replica holds a live lease
	// on the task (its turn runs there).
	LeasedElsewhere(ctx context.Context, id string) (bool, error)
	// WaitReleased waits, as long as ctx lasts, until no other replica
	// holds a live lease on the task: its turn ended, or its replica died
	// and the lease expired.
	WaitReleased(ctx context.Context, id string) error
	// ClaimPending claims the pending confirmation of call callID of the
	// task, once: it reports false when the call is not pending (already
	// answered, here or on another replica). A claim raises the task's
	// version, which it returns.
	ClaimPending(ctx context.Context, id, callID string) (claimed bool, version int64, err error)
	// RequestCancel asks the replica running the task's turn to cancel
	// it; OnCancel sets the function this process's store calls with the
	// id of every task whose cancellation another replica asked for.
	RequestCancel(ctx context.Context, id string) error
	OnCancel(fn func(id string))
	// Ready reports whether the store answers (readiness probes).
	Ready(ctx context.Context) error
}

// Lease is a task's lease held by this process.
type Lease interface {
	// Release gives the lease up.
	Release()
	// Lost is closed when the store could not renew the lease in time
	// (another replica may take the task), and by Release.
	Lost() <-chan struct{}
}

// TextChunk is text a turn streamed into a task's history: message Index
// of the history is now Message, whose text (its one text part) was
// Message's first At bytes before this chunk.
type TextChunk struct {
	Index   int
	Message *Message
	At      int
}

// TextSaver is a TaskStore that saves a turn's streamed text as it
// streams, at the cost of what the chunk adds: the server saves each
// chunk before any client is sent it, so a process killed mid-answer
// (kill -9, a crash) leaves in the store every word a client saw. A
// chunk saved twice (a whole save took it in meanwhile) gives the same
// task. The file store, the buckets and PostgreSQL implement it.
type TextSaver interface {
	// SaveText saves c in the task's history. version is the task's
	// version in a SharedStore the caller holds (0 for other stores): a
	// chunk saved at a version the task left behind is not applied.
	SaveText(ctx context.Context, id string, version int64, c TextChunk) error
}

// StoredEvent is an event of a task's turn as an EventLog keeps it: its
// number in the log and the server's encoding of it.
type StoredEvent struct {
	Seq  int64
	Body []byte
}

// EventLog is a SharedStore that keeps the events of running turns, so
// that a client subscribed on one replica (tasks/resubscribe,
// SubscribeToTask) is streamed the turn running on another: the replica
// running it appends each event before sending it, and the others read
// the events by number, woken by the store. Package a2a/pgstore's store
// is one.
type EventLog interface {
	// AppendEvent appends an event of a turn running in this process,
	// with the text chunk it streams (nil: none) saved as SaveText would
	// (TextSaver). body nil saves the chunk only.
	AppendEvent(ctx context.Context, id string, version int64, body []byte, c *TextChunk) error
	// Events returns the task's events numbered after `after`, in order,
	// and a channel closed at the task's next change (an event, a save,
	// its lease released), taken before the read.
	Events(ctx context.Context, id string, after int64) ([]StoredEvent, <-chan struct{}, error)
	// LoadWithCursor is LoadVersioned with the number of the task's last
	// event when it was loaded.
	LoadWithCursor(ctx context.Context, id string) (*StoredTask, int64, int64, error)
}
