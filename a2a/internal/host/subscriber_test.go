package host

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"
)

func TestSubscriberQueue(t *testing.T) {
	tests := []struct {
		max, pushed int
		kept        int
		dropped     bool
	}{
		{3, 0, 0, false},
		{3, 3, 3, false},
		{3, 5, 3, true},
	}
	for _, tt := range tests {
		s := NewSubscriber[int](tt.max)
		for i := range tt.pushed {
			s.Push(i)
		}
		got, dropped := s.Take()
		if len(got) != tt.kept || dropped != tt.dropped {
			t.Errorf("max %d, pushed %d: took %v, dropped %v", tt.max, tt.pushed, got, dropped)
		}
		if again, _ := s.Take(); len(again) != 0 {
			t.Errorf("taken twice: %v", again)
		}
	}
}

// TestFollow: Follow hands updates over in order and says why it stopped.
func TestFollow(t *testing.T) {
	errWrite := errors.New("write failed")
	tests := []struct {
		name   string
		push   []int // -1 is the last update
		max    int
		fail   int // each fails on this update
		cancel bool
		want   End
		seen   []int
	}{
		{"finished", []int{1, 2, -1, 3}, 10, 0, false, Finished, []int{1, 2, -1}},
		{"write fails", []int{1, 2, 3}, 10, 2, false, Left, []int{1, 2}},
		{"dropped", []int{1, 2, 3}, 2, 0, false, Dropped, []int{1, 2}},
		{"client gone", nil, 10, 0, true, Left, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := NewSubscriber[int](tt.max)
			for _, u := range tt.push {
				s.Push(u)
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			var seen []int
			end := s.Follow(ctx, 0, nil, func(u int) (bool, error) {
				seen = append(seen, u)
				if u == tt.fail {
					return false, errWrite
				}
				return u == -1, nil
			})
			if end != tt.want || !slices.Equal(seen, tt.seen) {
				t.Errorf("Follow = %v after %v, want %v after %v", end, seen, tt.want, tt.seen)
			}
		})
	}
}

// TestFollowKeepAlive: with nothing to hand over, Follow keeps the client
// alive, and a failed keep-alive means the client left.
func TestFollowKeepAlive(t *testing.T) {
	s := NewSubscriber[int](1)
	ticks := 0
	end := s.Follow(t.Context(), time.Millisecond, func() error {
		if ticks++; ticks == 3 {
			return errors.New("gone")
		}
		return nil
	}, func(int) (bool, error) { return true, nil })
	if end != Left || ticks != 3 {
		t.Errorf("Follow = %v after %d keep-alives", end, ticks)
	}
}
