package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"sync"
	"time"
)

// rulesetCache keeps the Landlock ruleset of the last command while the
// writable roots stay as they were: a plan lists the entries of a
// workspace holding .git (and of the directories on the way to the
// credentials), which costs milliseconds where they are many.
type rulesetCache struct {
	mu  sync.Mutex
	key []int64
	r   *landlockRuleset
}

// freshness is how recent a directory's change may be for its time to
// say nothing about what follows: file systems stamp changes with a
// clock that ticks every few milliseconds.
const freshness = 50 * time.Millisecond

// start starts cmd under the ruleset for p as the writable roots are
// now: the last one again when none of them changed since it was made.
func (c *rulesetCache) start(p Profile, cmd *exec.Cmd) error {
	c.mu.Lock()
	defer c.mu.Unlock() // held through the start: the ruleset is not closed under it
	now := time.Now()
	key := make([]int64, 0, len(p.Write))
	stale := false
	for _, w := range p.Write {
		var t int64 = -1
		if fi, err := os.Stat(w); err == nil {
			t = fi.ModTime().UnixNano()
			if now.Sub(fi.ModTime()) < freshness {
				stale = true // a change in the same tick may follow unseen
			}
		}
		key = append(key, t)
	}
	if c.r == nil || stale || !slices.Equal(key, c.key) {
		r, err := newLandlockRuleset(p)
		if err != nil {
			return fmt.Errorf("sandbox: %w; the command did not run", err)
		}
		if c.r != nil {
			c.r.close()
		}
		c.r, c.key = r, key
		if stale {
			c.key = nil
		}
	}
	return c.r.start(cmd)
}
