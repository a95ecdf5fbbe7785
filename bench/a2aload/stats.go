package main

import (
	"math"
	"sort"
	"time"
)

// percentile returns the nearest-rank p-th percentile (0 < p <= 100) of
// xs, or NaN when xs is empty. xs is sorted in place.
func percentile(xs []float64, p float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	sort.Float64s(xs)
	rank := int(math.Ceil(p / 100 * float64(len(xs))))
	rank = min(max(rank, 1), len(xs))
	return xs[rank-1]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func mb(kib int64) float64 { return float64(kib) / 1024 }

// median returns the median of xs (the mean of the middle two for an even
// count), ignoring NaNs; NaN when nothing is left.
func median(xs []float64) float64 {
	var v []float64
	for _, x := range xs {
		if !math.IsNaN(x) {
			v = append(v, x)
		}
	}
	if len(v) == 0 {
		return math.NaN()
	}
	sort.Float64s(v)
	n := len(v)
	if n%2 == 1 {
		return v[n/2]
	}
	return (v[n/2-1] + v[n/2]) / 2
}

// best returns the smallest (lowerIsBetter) or largest value of xs,
// ignoring NaNs.
func best(xs []float64, lowerIsBetter bool) float64 {
	b := math.NaN()
	for _, x := range xs {
		if math.IsNaN(x) {
			continue
		}
		if math.IsNaN(b) || (lowerIsBetter && x < b) || (!lowerIsBetter && x > b) {
			b = x
		}
	}
	return b
}
