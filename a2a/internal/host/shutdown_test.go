package host

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// slowItem's Save waits until shutdownSaves saves are under way at once,
// so that saves made one after the other never return.
type slowItem struct {
	*item
	inFlight *atomic.Int32
	once     *sync.Once
	all      chan struct{}
}

func (i *slowItem) Save() {
	if i.inFlight.Add(1) == shutdownSaves {
		i.once.Do(func() { close(i.all) })
	}
	<-i.all
	i.item.Save()
}

// TestShutdownSavesSideBySide: Shutdown saves the items several at once
// (a file store's saves wait for the disk, which serves them together),
// every one of them, and closes every session afterwards.
func TestShutdownSavesSideBySide(t *testing.T) {
	h := New[*slowItem](Config{})
	const n = 40 // more than shutdownSaves
	var inFlight atomic.Int32
	var once sync.Once
	all := make(chan struct{})
	var items []*slowItem
	for i := range n {
		it := &slowItem{item: newItem(fmt.Sprint("i", i), 0, Usage{}), inFlight: &inFlight, once: &once, all: all}
		items = append(items, it)
		if err := h.Add(it); err != nil {
			t.Fatal(err)
		}
	}
	done := make(chan struct{})
	go func() {
		h.Shutdown(context.Background())
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("Shutdown hangs: it does not save items side by side")
	}
	for _, it := range items {
		if it.saves != 1 || !it.closed {
			t.Errorf("%s: saved %d times, closed %v", it.id, it.saves, it.closed)
		}
	}
}
