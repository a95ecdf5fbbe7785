package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"strings"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	iacp "github.com/castor-dev/castor/internal/acp"
	"github.com/castor-dev/castor/internal/lazy"
)

// Handler is what a client does when the agent asks: its fields answer
// the agent's requests and receive its updates. A nil field gets a safe
// default: updates are dropped, permissions cancelled (so nothing runs
// unapproved), and file and terminal requests refused, which an agent
// sees only if the client advertised them.
type Handler struct {
	// Update receives every session/update notification.
	Update func(ctx context.Context, n sdk.SessionNotification)
	// Permission answers session/request_permission.
	Permission func(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error)
	// ReadTextFile and WriteTextFile serve fs/read_text_file and
	// fs/write_text_file.
	ReadTextFile  func(ctx context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error)
	WriteTextFile func(ctx context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error)
	// Terminal serves terminal/*; nil refuses them.
	Terminal TerminalHandler
}

// TerminalHandler serves the agent's terminal requests.
type TerminalHandler interface {
	CreateTerminal(ctx context.Context, r sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error)
	KillTerminal(ctx context.Context, r sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error)
	TerminalOutput(ctx context.Context, r sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error)
	ReleaseTerminal(ctx context.Context, r sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error)
	WaitForTerminalExit(ctx context.Context, r sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error)
}

// Capabilities are the client capabilities h can honour, for Initialize.
func (h Handler) Capabilities() sdk.ClientCapabilities {
	return sdk.ClientCapabilities{
		Fs:       sdk.FileSystemCapabilities{ReadTextFile: h.ReadTextFile != nil, WriteTextFile: h.WriteTextFile != nil},
		Terminal: h.Terminal != nil,
	}
}

// errUnsupported answers a request the handler does not serve.
var errUnsupported = lazy.Value[*sdk.RequestError]{New: func() *sdk.RequestError {
	return sdk.NewMethodNotFound("not supported by this client")
}}

// handler adapts Handler to sdk.Client.
type handler struct{ h Handler }

func (c handler) SessionUpdate(ctx context.Context, n sdk.SessionNotification) error {
	if c.h.Update != nil {
		c.h.Update(ctx, n)
	}
	return nil
}

func (c handler) RequestPermission(ctx context.Context, r sdk.RequestPermissionRequest) (sdk.RequestPermissionResponse, error) {
	if c.h.Permission == nil {
		return sdk.RequestPermissionResponse{Outcome: sdk.RequestPermissionOutcome{Cancelled: &sdk.RequestPermissionOutcomeCancelled{Outcome: "cancelled"}}}, nil
	}
	return c.h.Permission(ctx, r)
}

func (c handler) ReadTextFile(ctx context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
	if c.h.ReadTextFile == nil {
		return sdk.ReadTextFileResponse{}, errUnsupported.Get()
	}
	return c.h.ReadTextFile(ctx, r)
}

func (c handler) WriteTextFile(ctx context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
	if c.h.WriteTextFile == nil {
		return sdk.WriteTextFileResponse{}, errUnsupported.Get()
	}
	return c.h.WriteTextFile(ctx, r)
}

func (c handler) CreateTerminal(ctx context.Context, r sdk.CreateTerminalRequest) (sdk.CreateTerminalResponse, error) {
	if c.h.Terminal == nil {
		return sdk.CreateTerminalResponse{}, errUnsupported.Get()
	}
	return c.h.Terminal.CreateTerminal(ctx, r)
}

func (c handler) KillTerminal(ctx context.Context, r sdk.KillTerminalRequest) (sdk.KillTerminalResponse, error) {
	if c.h.Terminal == nil {
		return sdk.KillTerminalResponse{}, errUnsupported.Get()
	}
	return c.h.Terminal.KillTerminal(ctx, r)
}

func (c handler) TerminalOutput(ctx context.Context, r sdk.TerminalOutputRequest) (sdk.TerminalOutputResponse, error) {
	if c.h.Terminal == nil {
		return sdk.TerminalOutputResponse{}, errUnsupported.Get()
	}
	return c.h.Terminal.TerminalOutput(ctx, r)
}

func (c handler) ReleaseTerminal(ctx context.Context, r sdk.ReleaseTerminalRequest) (sdk.ReleaseTerminalResponse, error) {
	if c.h.Terminal == nil {
		return sdk.ReleaseTerminalResponse{}, errUnsupported.Get()
	}
	return c.h.Terminal.ReleaseTerminal(ctx, r)
}

func (c handler) WaitForTerminalExit(ctx context.Context, r sdk.WaitForTerminalExitRequest) (sdk.WaitForTerminalExitResponse, error) {
	if c.h.Terminal == nil {
		return sdk.WaitForTerminalExitResponse{}, errUnsupported.Get()
	}
	return c.h.Terminal.WaitForTerminalExit(ctx, r)
}

// Client is a connection to an ACP agent. The embedded SDK connection
// offers every agent method (Initialize, NewSession, LoadSession, Prompt,
// Cancel, SetSessionMode…); Client adds the usual first steps.
type Client struct {
	*sdk.ClientSideConnection
	h Handler

	closeOnce sync.Once
	closer    func() error
}

// Connect returns a client talking to the agent that reads w and writes
// r, answering it with h.
func Connect(r io.Reader, w io.Writer, h Handler) *Client {
	// Nothing is read before the logger is set: the SDK reads it from its
	// own goroutine.
	ready := make(chan struct{})
	conn := sdk.NewClientSideConnection(handler{h}, w, iacp.Gate(r, ready))
	// The SDK logs the end of every connection; a client says what it
	// wants to say through its own errors.
	conn.SetLogger(slog.New(slog.NewTextHandler(io.Discard, nil)))
	close(ready)
	return &Client{ClientSideConnection: conn, h: h, closer: func() error { return nil }}
}

// Start runs cmd (an ACP agent such as `castor --acp`) and connects to
// its stdin and stdout; its stderr is left as cmd has it. Close ends it.
func Start(cmd *exec.Cmd, h Handler) (*Client, error) {
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	c := Connect(out, in, h)
	c.closer = func() error {
		// Closing stdin is how an ACP agent learns to stop.
		in.Close()
		err := cmd.Wait()
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return fmt.Errorf("agent exited: %w", err)
		}
		return err
	}
	return c, nil
}

// Connect serves s in-process and returns a client connected to it: the
// Go form of Gemini CLI SDK's `server.connect({onMessage})`. Close ends
// the server.
func (s *Server) Connect(ctx context.Context, h Handler) *Client {
	ar, cw := io.Pipe() // client → agent
	cr, aw := io.Pipe() // agent → client
	done := make(chan error, 1)
	go func() {
		err := s.Serve(ctx, ar, aw)
		aw.Close()
		done <- err
	}()
	c := Connect(cr, cw, h)
	c.closer = func() error {
		cw.Close()
		return <-done
	}
	return c
}

// Init is the initialize request for ACP v1, advertising what the
// handler can serve.
func (c *Client) Init(ctx context.Context) (sdk.InitializeResponse, error) {
	return c.Initialize(ctx, sdk.InitializeRequest{
		ProtocolVersion:    sdk.ProtocolVersionNumber,
		ClientCapabilities: c.h.Capabilities(),
		ClientInfo:         &sdk.Implementation{Name: "castor-go-client", Version: "1"},
	})
}

// PromptText sends text as a prompt to the session and waits for the
// turn's end; updates arrive at the handler meanwhile.
func (c *Client) PromptText(ctx context.Context, sessionID sdk.SessionId, text string) (sdk.PromptResponse, error) {
	return c.Prompt(ctx, sdk.PromptRequest{SessionId: sessionID, Prompt: []sdk.ContentBlock{sdk.TextBlock(text)}})
}

// Close ends the connection: the agent's stdin is closed and, for Start
// and Server.Connect, the agent is waited for.
func (c *Client) Close() error {
	var err error
	c.closeOnce.Do(func() { err = c.closer() })
	return err
}

// LocalFiles is a Handler's ReadTextFile and WriteTextFile on the local
// disk, for clients that let the agent use their files as they are.
func LocalFiles(h Handler) Handler {
	h.ReadTextFile = func(_ context.Context, r sdk.ReadTextFileRequest) (sdk.ReadTextFileResponse, error) {
		b, err := os.ReadFile(r.Path)
		if err != nil {
			return sdk.ReadTextFileResponse{}, err
		}
		return sdk.ReadTextFileResponse{Content: selectLines(string(b), r.Line, r.Limit)}, nil
	}
	h.WriteTextFile = func(_ context.Context, r sdk.WriteTextFileRequest) (sdk.WriteTextFileResponse, error) {
		return sdk.WriteTextFileResponse{}, os.WriteFile(r.Path, []byte(r.Content), 0o644)
	}
	return h
}

// selectLines is the part of text an fs/read_text_file asks for: from the
// 1-based line, at most limit lines.
func selectLines(text string, line, limit *int) string {
	if line == nil && limit == nil {
		return text
	}
	lines := strings.SplitAfter(text, "\n")
	start := 0
	if line != nil && *line > 1 {
		start = min(*line-1, len(lines))
	}
	end := len(lines)
	if limit != nil && *limit >= 0 {
		end = min(start+*limit, end)
	}
	return strings.Join(lines[start:end], "")
}
