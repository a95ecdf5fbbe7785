package mcpserve

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Clients on protocol 2026-07-28 and later are not sent questions while a
// call runs (SEP-2322): the call answers with the question (InputRequests
// and a RequestState), and the client calls again with the answer. The
// turn waits in between, in its own goroutine, under the state's name.

// abandonAfter is how long a turn waits for the client to come back with
// an answer before it is cancelled and its session freed.
const abandonAfter = 15 * time.Minute

// questionID names the one question a paused turn asks at a time.
const questionID = "confirm"

// pausedRun is a turn running apart from the calls that drive it.
type pausedRun struct {
	questions chan *mcp.ElicitParams
	answers   chan *mcp.ElicitResult
	done      chan runOutcome
	cancel    context.CancelFunc
	timer     *time.Timer
}

type runOutcome struct {
	res *mcp.CallToolResult
	out PromptResult
	err error
}

// startRun runs t in its own goroutine, asking through the calls'
// results, and answers with its end or its first question.
func (s *Server) startRun(ctx context.Context, _ *mcp.CallToolRequest, t turn) (*mcp.CallToolResult, PromptResult, error) {
	rctx, cancel := context.WithCancel(context.WithoutCancel(ctx))
	r := &pausedRun{
		questions: make(chan *mcp.ElicitParams),
		answers:   make(chan *mcp.ElicitResult),
		done:      make(chan runOutcome, 1),
		cancel:    cancel,
	}
	t.ask = func(qctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
		select {
		case r.questions <- p:
		case <-qctx.Done():
			return nil, qctx.Err()
		}
		select {
		case a := <-r.answers:
			return a, nil
		case <-qctx.Done():
			return nil, qctx.Err()
		}
	}
	go func() {
		defer cancel()
		res, out, err := s.run(rctx, t, func(string) {})
		r.done <- runOutcome{res, out, err}
	}()
	return s.await(ctx, r)
}

// resumeRun passes the client's answer to the turn its RequestState
// names and answers with the turn's end or its next question.
func (s *Server) resumeRun(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, PromptResult, error) {
	state := req.Params.RequestState
	s.mu.Lock()
	r := s.runs[state]
	delete(s.runs, state)
	s.mu.Unlock()
	if r == nil {
		return nil, PromptResult{}, errors.New("requestState names no waiting turn (it was answered already, or abandoned after 15 minutes)")
	}
	r.timer.Stop()
	a, _ := req.Params.InputResponses[questionID].(*mcp.ElicitResult)
	if a == nil {
		a = &mcp.ElicitResult{Action: "cancel"}
	}
	select {
	case r.answers <- a:
	case <-ctx.Done():
		r.cancel()
		return nil, PromptResult{}, ctx.Err()
	}
	return s.await(ctx, r)
}

// await waits for r's next question or its end; a caller that goes away
// cancels the turn.
func (s *Server) await(ctx context.Context, r *pausedRun) (*mcp.CallToolResult, PromptResult, error) {
	select {
	case q := <-r.questions:
		b := make([]byte, 16)
		rand.Read(b)
		state := hex.EncodeToString(b)
		s.mu.Lock()
		s.runs[state] = r
		s.mu.Unlock()
		r.timer = time.AfterFunc(abandonAfter, func() {
			s.mu.Lock()
			_, waiting := s.runs[state]
			delete(s.runs, state)
			s.mu.Unlock()
			if waiting {
				r.cancel()
			}
		})
		return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{questionID: q}, RequestState: state}, PromptResult{}, nil
	case o := <-r.done:
		return o.res, o.out, o.err
	case <-ctx.Done():
		r.cancel()
		return nil, PromptResult{}, ctx.Err()
	}
}
