package tui

import (
	"errors"
	"fmt"
	"net"
	"time"

	castormodel "github.com/castor-dev/castor/model"
)

// retryWait is a failed model call waiting to be tried again. It is shown
// on the spinner's row, not printed: a server that is down fails up to
// ten times per prompt, and each attempt used to print three rows of
// request URL into the scrollback.
type retryWait struct {
	attempt int
	reason  string
	at      time.Time // when the next attempt starts
}

func newRetryWait(n *castormodel.Notice, now time.Time) *retryWait {
	return &retryWait{attempt: n.Attempt, reason: retryReason(n.Err), at: now.Add(n.Delay)}
}

// label counts down to the next attempt; the reason comes last, as it
// is what gives way on a narrow terminal.
func (r *retryWait) label(now time.Time) string {
	left := r.at.Sub(now).Round(time.Second)
	if left <= 0 {
		return fmt.Sprintf("Retrying (attempt %d failed: %s)", r.attempt, r.reason)
	}
	return fmt.Sprintf("Retrying in %s (attempt %d failed: %s)", left, r.attempt, r.reason)
}

// retryReason is the part of a transport error that says what went
// wrong: for a network failure what the network said (the HTTP client
// wraps it in the request's method, URL and addresses), else the whole
// error's first line.
func retryReason(err error) string {
	var op *net.OpError
	if errors.As(err, &op) && op.Err != nil {
		return op.Err.Error()
	}
	if err == nil {
		return "unknown error"
	}
	return firstLine(err.Error())
}
