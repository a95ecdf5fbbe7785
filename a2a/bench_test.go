package a2a_test

import (
	"context"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor"
	"github.com/castor-dev/castor/internal/fakegemini"
	"github.com/castor-dev/castor/model/gemini"
)

// The benchmarks measure what the server adds to a turn: compare
// BenchmarkEngineTurn (the agent alone over the fake model) with
// BenchmarkFollowUpTurn (the same turn through message/stream).

func BenchmarkEngineTurn(b *testing.B) {
	fake := fakegemini.Start(b)
	m, err := gemini.New(context.Background(), gemini.Config{APIKey: "k", BaseURL: fake.URL})
	if err != nil {
		b.Fatal(err)
	}
	a, err := castor.New(context.Background(), castor.WithWorkDir(b.TempDir()), castor.WithHomeDir(b.TempDir()), castor.WithClient(m),
		castor.WithEnv(noEnv), castor.WithoutRecording(), castor.WithPausedConfirmations())
	if err != nil {
		b.Fatal(err)
	}
	defer a.Close()
	for i := 0; i < b.N; i++ {
		fake.Enqueue(fakegemini.Text("ok"))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := a.Send(context.Background(), "next"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkFollowUpTurn(b *testing.B) {
	h := newHarness(b, withLimits(limitsWith(func(l *limitsT) { l.MaxTurnsPerTask = 1 << 30 })))
	h.fake.Enqueue(fakegemini.Text("first"))
	id := taskID(h.stream(userMessage("first", geminiSettings(h.ws), "")))
	for i := 0; i < b.N; i++ {
		h.fake.Enqueue(fakegemini.Text("ok"))
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if evs := h.stream(userMessage("next", nil, id)); len(evs) != 3 {
			b.Fatalf("%d events", len(evs))
		}
	}
}

// BenchmarkConcurrentStreams runs many streaming tasks at once and
// reports the latency percentiles of a turn.
func BenchmarkConcurrentStreams(b *testing.B) {
	h := newHarness(b)
	const tasks = 200
	for i := 0; i < b.N*tasks; i++ {
		h.fake.Enqueue(fakegemini.Text("ok"))
	}
	var mu sync.Mutex
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		var wg sync.WaitGroup
		for j := 0; j < tasks; j++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				start := time.Now()
				evs := h.stream(userMessage("q", geminiSettings(h.ws), ""))
				d := time.Since(start)
				if len(evs) != 4 {
					b.Errorf("%d events", len(evs))
				}
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			}()
		}
		wg.Wait()
	}
	b.StopTimer()
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		b.ReportMetric(float64(lat[len(lat)/2].Microseconds()), "p50-µs")
		b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds()), "p99-µs")
		b.ReportMetric(float64(len(lat))/b.Elapsed().Seconds(), "tasks/s")
	}
}

// BenchmarkLongTask runs 200 follow-up turns on one task, with the file
// store, PostgreSQL and in memory, and reports the mean latency of the first and last
// ten: what the store adds to a turn must not grow with the task.
func BenchmarkLongTask(b *testing.B) {
	const turns = 200
	for _, store := range []string{"memory", "file", "postgres"} {
		b.Run(store, func(b *testing.B) {
			var first, last time.Duration
			for range b.N {
				b.StopTimer()
				opts := []option{withLimits(limitsWith(func(l *limitsT) { l.MaxTurnsPerTask = 1 << 30 }))}
				if store != "memory" {
					opts = append(opts, withStore(storeFor(b, store)))
				}
				h := newHarness(b, opts...)
				h.fake.Enqueue(fakegemini.Text("first"))
				id := taskID(h.stream(userMessage("first", geminiSettings(h.ws), "")))
				for range turns {
					h.fake.Enqueue(fakegemini.Text("a reply of a few words, as models give"))
				}
				b.StartTimer()
				for i := range turns {
					start := time.Now()
					if evs := h.stream(userMessage("next question, a line long", nil, id)); len(evs) != 3 {
						b.Fatalf("%d events", len(evs))
					}
					d := time.Since(start)
					switch {
					case i < 10:
						first += d
					case i >= turns-10:
						last += d
					}
				}
				b.StopTimer()
				h.stop()
			}
			b.ReportMetric(float64(first.Microseconds())/float64(10*b.N), "first10-µs/turn")
			b.ReportMetric(float64(last.Microseconds())/float64(10*b.N), "last10-µs/turn")
		})
	}
}
