package cli

import (
	"fmt"
	"regexp"
)

// sessionIDPattern is what Gemini CLI accepts for --session-id.
var sessionIDPattern = regexp.MustCompile(`^[a-zA-Z0-9_-]+$`)

// checkSessionID validates --session-id before anything starts. An id
// already recorded in this project is refused: starting it again would
// either leave the run unrecorded or split one session over two files
// (the file name carries the minute it started), so the user is pointed
// at --resume instead.
func checkSessionID(id, wd string) error {
	if id == "" {
		return nil
	}
	if !sessionIDPattern.MatchString(id) {
		return &usageError{msg: fmt.Sprintf("invalid session ID %q: only letters, digits, dashes and underscores are allowed", id)}
	}
	store, err := openStore(wd)
	if err != nil {
		return nil // the recording reports it when it starts
	}
	infos, _ := store.List()
	for _, in := range infos {
		if in.ID == id {
			return &inputError{msg: fmt.Sprintf("session %s already exists in this project: use --resume %s to continue it", id, id)}
		}
	}
	return nil
}
