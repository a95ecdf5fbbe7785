package tui

import (
	"errors"
	"net"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/castor-dev/castor/agent"
	castormodel "github.com/castor-dev/castor/model"
)

// A model server that is down makes the transport retry: the wait shows
// on the spinner's row, short, with the time left, and nothing is printed
// into the scrollback for each attempt.
func TestRetryShownLive(t *testing.T) {
	refused := &net.OpError{Op: "dial", Net: "tcp", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}
	wrapped := errors.Join(errors.New(`doRequest: error sending request: Post "http://127.0.0.1:9/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse"`), refused)
	m, log := newTestModel(t)
	m.width = 100
	m.resize()
	m.running, m.turnStart = true, m.now()
	m.update(eventMsg{ev: &agent.Event{Type: agent.EventRetry, Notice: &castormodel.Notice{Kind: castormodel.NoticeRetry, Attempt: 2, Delay: 7 * time.Second, Err: wrapped}}})
	if len(*log) != 0 {
		t.Errorf("a retry printed %q", *log)
	}
	view := ansi.Strip(m.render())
	want := "Retrying in 7s (attempt 2 failed: connect: connection refused) (esc to cancel, 0s)"
	if !strings.Contains(view, want) {
		t.Errorf("the live area does not show %q:\n%s", want, view)
	}
	// The answer coming in ends the wait.
	m.update(content("Hello"))
	if view := ansi.Strip(m.render()); strings.Contains(view, "retrying") {
		t.Errorf("still retrying after the answer came:\n%s", view)
	}
	// At 40 columns the reason gives way, not how to cancel.
	m.update(eventMsg{ev: &agent.Event{Type: agent.EventRetry, Notice: &castormodel.Notice{Kind: castormodel.NoticeRetry, Attempt: 3, Delay: time.Second, Err: wrapped}}})
	m.width = 40
	m.resize()
	if view := ansi.Strip(m.spinnerLine()); !strings.HasPrefix(strings.TrimLeft(view, "⣾⣽⣻⢿⡿⣟⣯⣷ "), "Retrying in 1s") || !strings.HasSuffix(view, "(esc to cancel, 0s)") || ansi.StringWidth(view) > 40 {
		t.Errorf("narrow spinner row %q", view)
	}
}
