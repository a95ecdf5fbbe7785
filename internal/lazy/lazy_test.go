package lazy

import (
	"sync"
	"testing"
)

var calls int

var counted = Value[int]{New: func() int { calls++; return 42 }}

func TestValueBuildsOnce(t *testing.T) {
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			if got := counted.Get(); got != 42 {
				t.Errorf("Get() = %d, want 42", got)
			}
		})
	}
	wg.Wait()
	if calls != 1 {
		t.Errorf("New ran %d times, want 1", calls)
	}
}

func TestValuePanicsEveryCall(t *testing.T) {
	v := &Value[string]{New: func() string { panic("boom") }}
	for i := range 2 {
		func() {
			defer func() {
				if p := recover(); p != "boom" {
					t.Errorf("call %d: recovered %v, want boom", i, p)
				}
			}()
			v.Get()
			t.Errorf("call %d: Get returned", i)
		}()
	}
}
