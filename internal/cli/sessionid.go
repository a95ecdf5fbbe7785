package cli

import (
	"errors"
	"fmt"
	"regexp"

	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/lazy"
)

// sessionIDPattern is what Gemini CLI accepts for --session-id.
var sessionIDPattern = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-zA-Z0-9_-]+$`) }}

// checkSessionID validates --session-id before anything starts and
// claims the id for this run until release is called (the process's end
// releases it too). An id already recorded in this project is refused:
// starting it again would either leave the run unrecorded or split one
// session over two files (the file name carries the minute it started),
// so the user is pointed at --resume instead. An id another run holds is
// refused the same way: its file appears only with its first record, so
// without the claim two runs started together could both pass the check
// and both record the session.
func checkSessionID(id, wd string) (release func(), err error) {
	release = func() {}
	if id == "" {
		return release, nil
	}
	if !sessionIDPattern.Get().MatchString(id) {
		return release, &usageError{msg: fmt.Sprintf("invalid session ID %q: only letters, digits, dashes and underscores are allowed", id)}
	}
	store, err := openStore(wd)
	if err != nil {
		return release, nil // the recording reports it when it starts
	}
	claim, err := store.Claim(id)
	switch {
	case errors.Is(err, chats.ErrClaimed):
		return release, &inputError{msg: fmt.Sprintf("session %s is already running in another castor process in this project: use --resume %s once it has ended", id, id)}
	case err != nil:
		return release, nil // as above: recording is best effort
	}
	exists, _ := store.Exists(id)
	if !exists {
		// A file that Exists misses (unreadable first line) is still
		// refused when the listing knows its id.
		infos, _ := store.List()
		for _, in := range infos {
			exists = exists || in.ID == id
		}
	}
	if exists {
		claim.Release()
		return release, &inputError{msg: fmt.Sprintf("session %s already exists in this project: use --resume %s to continue it", id, id)}
	}
	return claim.Release, nil
}
