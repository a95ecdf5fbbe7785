package setup

import (
	"context"
	"errors"
	"sync"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/ide"
	"github.com/castor-dev/castor/internal/version"
	"github.com/castor-dev/castor/tool"
)

// liveIDE is the session's IDE connection, which /ide enable and /ide
// disable change while the session runs, as Gemini CLI's do. The engine's
// confirmation and prompt context are fixed when the session is built, so
// they go through here and follow the connection of the moment. The zero
// value has no connection and no way to make one.
type liveIDE struct {
	mu      sync.Mutex
	client  *ide.Client
	confirm ide.ConfirmFunc // client.Confirm(next); nil without a client
	// next answers what the IDE does not (the face's Confirm; nil in a
	// headless run).
	next ide.ConfirmFunc
	// dial connects to the workspace's companion (nil: never).
	dial func(ctx context.Context) (*ide.Client, error)
	// gen counts disconnections, so that a connection made while
	// DisconnectIDE or Close ran is dropped; closed is set by Close.
	gen    int
	closed bool
}

// ConnectIDE's errors: an agent not built by New, and a connection made
// after DisconnectIDE or Close was asked for.
var (
	errNoIDEDial       = errors.New("this session cannot connect to an IDE")
	errIDEDisconnected = errors.New("IDE mode was disabled while connecting")
)

// current is the connection now; nil when there is none.
func (l *liveIDE) current() *ide.Client {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.client
}

// use makes c the connection (nil: none) and returns the one before.
func (l *liveIDE) use(c *ide.Client) (old *ide.Client) {
	l.mu.Lock()
	defer l.mu.Unlock()
	old, l.client, l.confirm = l.client, c, nil
	if c != nil {
		l.confirm = c.Confirm(l.next)
	}
	return old
}

// adopt makes c, dialled at generation gen, the connection unless there
// is one already, and returns the connection then; nil when the session
// was disconnected or closed since the dial began.
func (l *liveIDE) adopt(c *ide.Client, gen int) *ide.Client {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.closed || l.gen != gen {
		return nil
	}
	if l.client == nil {
		l.client, l.confirm = c, c.Confirm(l.next)
	}
	return l.client
}

// generation is the count of disconnections so far.
func (l *liveIDE) generation() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.gen
}

// disconnect ends the connection of the moment and any dial under way;
// closing also refuses later ones.
func (l *liveIDE) disconnect(closing bool) error {
	l.mu.Lock()
	old := l.client
	l.client, l.confirm = nil, nil
	l.gen++
	l.closed = l.closed || closing
	l.mu.Unlock()
	if old != nil {
		return old.Close()
	}
	return nil
}

// confirmCall is the engine's Confirm: edits as diffs in the connected
// IDE, the rest (and everything while no IDE is connected) by next.
func (l *liveIDE) confirmCall(ctx context.Context, call *agent.ToolCall) (tool.Decision, error) {
	l.mu.Lock()
	f := l.confirm
	l.mu.Unlock()
	switch {
	case f != nil:
		return f(ctx, call)
	case l.next != nil:
		return l.next(ctx, call)
	}
	// Headless, and the IDE that was to answer is gone: nobody can.
	return tool.Decision{Outcome: tool.Cancel}, nil
}

// promptContext is the engine's PromptContext: the connected IDE's open
// files and cursor. A client connected mid-session has sent nothing yet,
// so its first prompt carries the whole context.
func (l *liveIDE) promptContext(first bool) []*genai.Part {
	if c := l.current(); c != nil {
		return c.PromptContext(first)
	}
	return nil
}

// close ends the connection for good; the agent's closer.
func (l *liveIDE) close() error { return l.disconnect(true) }

// newLiveIDE is the indirection for a session whose face answers
// confirmations with next, connected to c (nil: not connected), able to
// connect later to the companion of workspace wd.
func newLiveIDE(c *ide.Client, next ide.ConfirmFunc, wd string, env *Env, warn func(string)) *liveIDE {
	l := &liveIDE{next: next}
	l.dial = func(ctx context.Context) (*ide.Client, error) {
		cctx, cancel := context.WithTimeout(ctx, ideConnectTimeout)
		defer cancel()
		return ide.Connect(cctx, ide.Options{
			WorkDir: wd,
			Getenv:  env.Getenv,
			Version: version.Version,
			Warn:    func(s string) { warn("IDE mode: " + s) },
		})
	}
	l.use(c)
	return l
}

// IDEClient is the session's IDE connection now: nil when IDE mode is
// off or no companion answered. /ide enable and /ide disable change it
// (ConnectIDE, DisconnectIDE), so faces ask each time rather than keep it.
func (a *Agent) IDEClient() *ide.Client {
	return a.ide.current()
}

// ConnectIDE connects the running session to the workspace's IDE
// companion, as Gemini CLI's /ide enable does: from then on edits needing
// approval open as diffs in the IDE and prompts carry its context. A
// session already connected keeps its connection, which is returned. The
// error says why no companion could be reached (a *ide.ConnectError); it
// is bounded by the same timeout as the start's handshake.
func (a *Agent) ConnectIDE(ctx context.Context) (*ide.Client, error) {
	if c := a.ide.current(); c != nil {
		return c, nil
	}
	if a.ide == nil || a.ide.dial == nil {
		return nil, errNoIDEDial
	}
	gen := a.ide.generation()
	c, err := a.ide.dial(ctx)
	if err != nil {
		return nil, err
	}
	won := a.ide.adopt(c, gen)
	if won != c {
		// Another ConnectIDE connected first (keep its connection), or
		// the session was disconnected or closed meanwhile.
		c.Close()
	}
	if won == nil {
		return nil, errIDEDisconnected
	}
	return won, nil
}

// DisconnectIDE ends the session's IDE connection, as Gemini CLI's /ide
// disable does: edits are confirmed in the face again and prompts carry
// no IDE context. A diff open in the IDE is closed there, as Gemini CLI
// closes it, and the face still answers the edit.
func (a *Agent) DisconnectIDE() error {
	if a.ide == nil {
		return nil
	}
	return a.ide.disconnect(false)
}

// UseIDE makes c, an already connected client, the session's IDE
// connection, closing the one before; for faces and tests that connect
// on their own terms.
func (a *Agent) UseIDE(c *ide.Client) {
	if a.ide == nil {
		a.ide = &liveIDE{}
	}
	if old := a.ide.use(c); old != nil && old != c {
		old.Close()
	}
}
