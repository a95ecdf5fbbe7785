package chats

import (
	"errors"
	"fmt"
	"path/filepath"

	"github.com/castor-dev/castor/internal/fsutil"
)

// claimsDir holds the lock files of claimed session ids, inside the chats
// directory. Session ids cannot start with a dot, so it never names a
// subagent folder.
const claimsDir = ".claims"

// ErrClaimed is returned by Claim when another run holds the session id.
var ErrClaimed = errors.New("chats: the session id is claimed by another run")

// Claim is a session id held by this process, so that two runs started
// at once with the same new id cannot both record it: the session file
// only appears with the first record, too late for the second run's
// existence check. The claim is an advisory lock released by Release or
// when the process ends, however it ends.
type Claim struct {
	lock *fsutil.FileLock
}

// Claim takes the session id for this process, or fails with ErrClaimed
// while another process (or another Claim in this one) holds it. A
// platform without non-blocking locks gets a nil *Claim and no error: the
// claim is a best effort there, as the existence check alone was.
// Callers check Exists after claiming, so that an id recorded by a run
// that has ended is refused too.
func (s *Store) Claim(sessionID string) (*Claim, error) {
	safe := sanitizeFilenamePart(sessionID)
	if safe == "" || safe != sessionID {
		return nil, fmt.Errorf("chats: invalid session id %q", sessionID)
	}
	l, err := fsutil.TryLock(s.claimPath(safe))
	switch {
	case errors.Is(err, fsutil.ErrWouldBlock):
		return nil, ErrClaimed
	case errors.Is(err, errors.ErrUnsupported):
		return nil, nil
	case err != nil:
		return nil, err
	}
	return &Claim{lock: l}, nil
}

// Release gives the id back. It is safe on a nil *Claim and more than
// once.
func (c *Claim) Release() {
	if c == nil || c.lock == nil {
		return
	}
	_ = c.lock.Unlock()
	c.lock = nil
}

func (s *Store) claimPath(safe string) string {
	return filepath.Join(s.dir, claimsDir, safe+".lock")
}
