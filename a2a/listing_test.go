package a2a_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/blobstore"
	"github.com/castor-dev/castor/a2a/storetest"
)

// countingStore counts the tasks loaded from a store, and hides every
// optional interface of it (TaskSummarizer among them): the server lists
// it by loading every task, as it lists any store without summaries.
type countingStore struct {
	a2a.TaskStore
	loads atomic.Int64
}

func (c *countingStore) Load(ctx context.Context, id string) (*a2a.StoredTask, error) {
	c.loads.Add(1)
	return c.TaskStore.Load(ctx, id)
}

// summarizingStore is a countingStore that passes summaries through.
type summarizingStore struct{ *countingStore }

func (s summarizingStore) ListSummaries(ctx context.Context) ([]a2a.TaskSummary, error) {
	return s.TaskStore.(a2a.TaskSummarizer).ListSummaries(ctx)
}

// listingNow is the servers' clock in the listing tests: tasks stored as
// working are listed as interrupted at this moment.
var listingNow = time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)

// seedListing stores n tasks in three contexts and five states, with
// history and artifacts, some sharing a status timestamp and some with
// none, so that every filter and the order's ties are exercised.
func seedListing(t testing.TB, store a2a.TaskStore, n int) {
	t.Helper()
	states := []a2a.TaskState{a2a.StateCompleted, a2a.StateInputRequired, a2a.StateWorking, a2a.StateFailed, a2a.StateCanceled}
	for i := range n {
		id := fmt.Sprintf("task-%04d", i)
		st := storetest.Task(id, listingNow.Add(-time.Duration(i%97)*time.Minute), 1)
		st.ContextID = fmt.Sprintf("ctx-%d", i%3)
		st.State = states[i%len(states)]
		st.Status.State = st.State
		if i%11 == 0 {
			st.Status.Timestamp = ""
		}
		if err := store.Save(context.Background(), st); err != nil {
			t.Fatal(err)
		}
	}
}

func withNow(now time.Time) option {
	return func(c *a2a.Config) { c.Now = func() time.Time { return now } }
}

// TestListingLoadsOnlyThePage: over a store with summaries, a ListTasks
// page of 10 out of 1,000 tasks loads at most those 10, and GET /tasks
// loads none; the answers are byte for byte those of the same tasks in a
// store without summaries, whose every task is loaded.
func TestListingLoadsOnlyThePage(t *testing.T) {
	for _, tt := range []struct {
		name string
		open func(t *testing.T) a2a.TaskStore
	}{
		{"memory", func(*testing.T) a2a.TaskStore { return a2a.NewMemoryStore() }},
		{"file", func(t *testing.T) a2a.TaskStore { return openFileStore(t, t.TempDir()) }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const n = 1000
			plain := &countingStore{TaskStore: tt.open(t)}
			summed := summarizingStore{&countingStore{TaskStore: tt.open(t)}}
			seedListing(t, plain.TaskStore, n)
			seedListing(t, summed.TaskStore, n)
			hp := newHarness(t, withStore(plain), withNow(listingNow))
			hs := newHarness(t, withStore(summed), withNow(listingNow))

			after := listingNow.Add(-30 * time.Minute).Format(time.RFC3339Nano)
			for _, params := range []map[string]any{
				{"pageSize": 10},
				{},
				{"pageSize": 10, "pageToken": "990"},
				{"pageSize": 100, "pageToken": "20", "historyLength": 1, "includeArtifacts": true},
				{"contextId": "ctx-1", "pageSize": 7, "pageToken": "14"},
				{"status": "TASK_STATE_COMPLETED"},
				{"status": "TASK_STATE_INPUT_REQUIRED", "pageSize": 100, "pageToken": "300"},
				{"statusTimestampAfter": after, "pageSize": 100},
				{"pageSize": 10, "pageToken": "5000"},
			} {
				summed.loads.Store(0)
				_, want := rawV1(t, hp, "ListTasks", params)
				_, got := rawV1(t, hs, "ListTasks", params)
				if !strings.Contains(want, `"result":{`) {
					t.Errorf("ListTasks %v = %.300s", params, want)
				}
				if got != want {
					t.Errorf("ListTasks %v differs with summaries:\n got %.600s\nwant %.600s", params, got, want)
				}
				size, _ := params["pageSize"].(int)
				if l := summed.loads.Load(); l > int64(max(size, 50)) {
					t.Errorf("ListTasks %v loaded %d tasks", params, l)
				}
			}
			summed.loads.Store(0)
			if _, body := rawV1(t, hs, "ListTasks", map[string]any{"pageSize": 10}); !containsAll(body, `"totalSize":1000`, `"nextPageToken":"10"`) {
				t.Errorf("ListTasks page = %.400s", body)
			}
			if l := summed.loads.Load(); l > 10 {
				t.Errorf("a page of 10 out of %d loaded %d tasks, want at most 10", n, l)
			}
			if pl := plain.loads.Load(); pl < n {
				t.Errorf("the store without summaries had %d loads, want every task loaded (the old path)", pl)
			}

			summed.loads.Store(0)
			want, got := readBody(t, hp.get("/tasks")), readBody(t, hs.get("/tasks"))
			if got != want {
				t.Errorf("GET /tasks differs with summaries:\n got %.600s\nwant %.600s", got, want)
			}
			if l := summed.loads.Load(); l != 0 {
				t.Errorf("GET /tasks loaded %d tasks, want none", l)
			}
		})
	}
}

func containsAll(s string, subs ...string) bool {
	for _, sub := range subs {
		if !strings.Contains(s, sub) {
			return false
		}
	}
	return true
}

func readBody(t testing.TB, resp *http.Response) string {
	t.Helper()
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// BenchmarkListTasksFileStore times GET /tasks over 1,000 tasks in a
// file:// store, listed by loading every task (loads, the path of a store
// without summaries) and from summaries.
func BenchmarkListTasksFileStore(b *testing.B) {
	const n = 1000
	u, err := blobstore.FileURL(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	fs, err := blobstore.Open(context.Background(), u)
	if err != nil {
		b.Fatal(err)
	}
	seedListing(b, fs, n)
	if err := fs.Close(); err != nil { // the plain layout, as a store at rest
		b.Fatal(err)
	}
	for _, bb := range []struct {
		name string
		wrap func(a2a.TaskStore) a2a.TaskStore
	}{
		{"loads", func(s a2a.TaskStore) a2a.TaskStore { return &countingStore{TaskStore: s} }},
		{"summaries", func(s a2a.TaskStore) a2a.TaskStore { return summarizingStore{&countingStore{TaskStore: s}} }},
	} {
		b.Run(bb.name, func(b *testing.B) {
			s, err := blobstore.Open(context.Background(), u)
			if err != nil {
				b.Fatal(err)
			}
			defer s.Close()
			h := newHarness(b, withStore(bb.wrap(s)), withNow(listingNow))
			var size int
			b.ResetTimer()
			for range b.N {
				size = len(readBody(b, h.get("/tasks")))
			}
			b.ReportMetric(float64(size), "bytes/response")
		})
	}
}
