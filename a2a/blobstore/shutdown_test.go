package blobstore_test

import (
	"fmt"
	"testing"
	"time"

	"golang.org/x/sync/errgroup"

	"github.com/castor-dev/castor/a2a"
	"github.com/castor-dev/castor/a2a/blobstore"
	"github.com/castor-dev/castor/a2a/storetest"
)

// BenchmarkShutdown saves 1,000 tasks a turn each in a file:// store, as
// the A2A server does under load, and then times what its shutdown does:
// a save of every task in memory (unchanged: each folds its journal in),
// by one goroutine or by several, and Close.
func BenchmarkShutdown(b *testing.B) {
	for _, workers := range []int{1, 16} {
		b.Run(fmt.Sprintf("savers=%d", workers), func(b *testing.B) { benchmarkShutdown(b, workers) })
	}
}

func benchmarkShutdown(b *testing.B, workers int) {
	const tasks = 1000
	var saves, closes time.Duration
	for range b.N {
		b.StopTimer()
		s, err := blobstore.Open(b.Context(), mustFileURL(b, b.TempDir()))
		if err != nil {
			b.Fatal(err)
		}
		ts := make([]*a2a.StoredTask, tasks)
		for i := range ts {
			ts[i] = storetest.Task(fmt.Sprintf("t%04d", i), time.Now(), 0)
			ts[i].Pending = nil
			if err := s.Save(b.Context(), ts[i]); err != nil {
				b.Fatal(err)
			}
			grow(ts[i], 1)
			if err := s.Save(b.Context(), ts[i]); err != nil {
				b.Fatal(err)
			}
		}
		b.StartTimer()
		t0 := time.Now()
		var g errgroup.Group
		g.SetLimit(workers)
		for _, t := range ts {
			g.Go(func() error { return s.Save(b.Context(), t) })
		}
		if err := g.Wait(); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := s.Close(); err != nil {
			b.Fatal(err)
		}
		saves += t1.Sub(t0)
		closes += time.Since(t1)
	}
	b.ReportMetric(float64(saves.Milliseconds())/float64(b.N), "saves-ms")
	b.ReportMetric(float64(closes.Milliseconds())/float64(b.N), "close-ms")
}
