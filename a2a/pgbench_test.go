package a2a_test

import (
	"context"
	"fmt"
	"strconv"
	"testing"
	"time"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/pgstore"
	"github.com/castor-dev/castor/a2a/pgstore/pgtest"
	"github.com/castor-dev/castor/a2a/storetest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

// The store benchmarks compare what each store adds to a new task and to
// a follow-up turn (memory, file, postgres), and count the bytes
// PostgreSQL writes (its write-ahead log) for one turn early in a task and
// at its 500th: a turn must write what it adds, not the whole task.

// storeFor opens the named store for a benchmark.
func storeFor(b *testing.B, name string) a2a.TaskStore {
	switch name {
	case "file":
		return openFileStore(b, b.TempDir())
	case "postgres":
		s, err := pgstore.Open(context.Background(), pgtest.Database(b), pgstore.Options{})
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { s.Close() })
		return s
	}
	return a2a.NewMemoryStore()
}

func BenchmarkStoreNewTask(b *testing.B) {
	for _, name := range []string{"memory", "file", "postgres"} {
		b.Run(name, func(b *testing.B) {
			h := newHarness(b, withStore(storeFor(b, name)))
			for range b.N {
				h.fake.Enqueue(fakegemini.Text("ok"))
			}
			b.ResetTimer()
			for range b.N {
				if evs := h.stream(userMessage("q", geminiSettings(h.ws), "")); len(evs) != 4 {
					b.Fatalf("%d events", len(evs))
				}
			}
			b.StopTimer()
			h.stop()
		})
	}
}

func BenchmarkStoreFollowUp(b *testing.B) {
	for _, name := range []string{"memory", "file", "postgres"} {
		b.Run(name, func(b *testing.B) {
			h := newHarness(b, withStore(storeFor(b, name)), withLimits(limitsWith(func(l *limitsT) { l.MaxTurnsPerTask = 1 << 30 })))
			h.fake.Enqueue(fakegemini.Text("first"))
			id := taskID(h.stream(userMessage("first", geminiSettings(h.ws), "")))
			for range b.N {
				h.fake.Enqueue(fakegemini.Text("ok"))
			}
			b.ResetTimer()
			for range b.N {
				if evs := h.stream(userMessage("next", nil, id)); len(evs) != 3 {
					b.Fatalf("%d events", len(evs))
				}
			}
			b.StopTimer()
			h.stop()
		})
	}
}

// BenchmarkPostgresBytesPerTurn runs 500 turns on one task and reports
// the write-ahead log bytes of its 10th and 500th turns.
func BenchmarkPostgresBytesPerTurn(b *testing.B) {
	const turns = 500
	url := pgtest.Database(b)
	conn := pgtest.Connect(b, url)
	lsn := func() string { return conn.Text(`SELECT pg_current_wal_insert_lsn()::text`) }
	diff := func(from, to string) float64 {
		d, err := strconv.ParseFloat(conn.Text(`SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn)`, to, from), 64)
		if err != nil {
			b.Fatal(err)
		}
		return d
	}
	var at10, at500 float64
	var t10, t500 time.Duration
	for range b.N {
		s, err := pgstore.Open(context.Background(), url, pgstore.Options{})
		if err != nil {
			b.Fatal(err)
		}
		h := newHarness(b, withStore(s), withLimits(limitsWith(func(l *limitsT) { l.MaxTurnsPerTask = 1 << 30 })))
		h.fake.Enqueue(fakegemini.Text("first"))
		id := taskID(h.stream(userMessage("first", geminiSettings(h.ws), "")))
		for range turns {
			h.fake.Enqueue(fakegemini.Text("a reply of a few words, as models give"))
		}
		for i := 1; i <= turns; i++ {
			before, start := lsn(), time.Now()
			if evs := h.stream(userMessage("next question, a line long", nil, id)); len(evs) != 3 {
				b.Fatalf("%d events", len(evs))
			}
			d := time.Since(start)
			switch i {
			case 10:
				at10 += diff(before, lsn())
				t10 += d
			case turns:
				at500 += diff(before, lsn())
				t500 += d
			}
		}
		h.stop()
		s.Close()
	}
	b.ReportMetric(at10/float64(b.N), "walB/turn10")
	b.ReportMetric(at500/float64(b.N), "walB/turn500")
	b.ReportMetric(float64(t10.Microseconds())/float64(b.N), "µs/turn10")
	b.ReportMetric(float64(t500.Microseconds())/float64(b.N), "µs/turn500")
}

// BenchmarkStoreChunk measures what saving one streamed chunk (20 bytes
// of text) before it is sent costs, per store: "text" as the server saves
// it (TextSaver, the delta), "save" as a whole save would (the task with
// its grown message). An answer of 200 chunks, then the next one.
func BenchmarkStoreChunk(b *testing.B) {
	for _, name := range []string{"file", "postgres"} {
		for _, how := range []string{"text", "save"} {
			b.Run(name+"/"+how, func(b *testing.B) {
				s := storeFor(b, name)
				ctx := context.Background()
				task := storetest.Task("t1", time.Now(), 0)
				if err := s.Save(ctx, task); err != nil {
					b.Fatal(err)
				}
				var version int64
				if sh, ok := s.(a2a.SharedStore); ok {
					version, _ = sh.Version(ctx, "t1")
				}
				const chunk = "twenty bytes of text"
				msg := a2a.Message{Kind: "message", Role: "agent", MessageID: "m", TaskID: "t1", ContextID: "ctx-t1"}
				text := ""
				b.ResetTimer()
				for i := range b.N {
					if i%200 == 0 {
						text = ""
						msg.MessageID = fmt.Sprint("m", i)
						task.History = append(task.History, msg)
					}
					at := len(text)
					text += chunk
					m := msg
					m.Parts = []a2a.Part{a2a.TextPart(text)}
					task.History[len(task.History)-1] = m
					var err error
					if how == "text" {
						err = s.(a2a.TextSaver).SaveText(ctx, "t1", version, a2a.TextChunk{Index: len(task.History) - 1, Message: &m, At: at})
					} else {
						err = s.Save(ctx, task)
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
