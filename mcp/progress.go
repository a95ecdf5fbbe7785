package mcp

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// progressBarWidth is the width of the bar a progress report draws.
const progressBarWidth = 20

// progressCalls routes notifications/progress to the calls in flight: as
// Gemini CLI does, every tools/call carries a progress token of its own,
// and a server's progress for it becomes the call's live output (a bar,
// its percentage and the server's message), which every face shows while
// the call runs.
type progressCalls struct {
	seq atomic.Int64
	mu  sync.Mutex
	out map[string]func(string)
}

// start registers out for a new call and returns its token and the
// function that forgets it once the call is over. With out nil there is
// nothing to report to and no token.
func (p *progressCalls) start(out func(string)) (token string, done func()) {
	if out == nil {
		return "", func() {}
	}
	token = "castor-progress-" + strconv.FormatInt(p.seq.Add(1), 10)
	p.mu.Lock()
	if p.out == nil {
		p.out = map[string]func(string){}
	}
	p.out[token] = out
	p.mu.Unlock()
	return token, func() {
		p.mu.Lock()
		delete(p.out, token)
		p.mu.Unlock()
	}
}

// notify hands a progress notification to its call, if it is still
// running; progress for tokens Castor did not give out is ignored.
func (p *progressCalls) notify(_ context.Context, r *sdk.ProgressNotificationClientRequest) {
	if r == nil || r.Params == nil {
		return
	}
	token, ok := r.Params.ProgressToken.(string)
	if !ok {
		return
	}
	// Reported under the lock, so that no report reaches a call after the
	// call has forgotten its token and ended.
	p.mu.Lock()
	defer p.mu.Unlock()
	if out := p.out[token]; out != nil {
		out(ProgressText(r.Params.Progress, r.Params.Total, r.Params.Message))
	}
}

// ProgressText draws a server's progress report as Gemini CLI's MCP
// progress indicator does: a bar of filled and empty blocks with the
// percentage when the total is known (the bar's fill cycling with the
// progress when it is not, then the progress itself), and the server's
// message on the next line.
func ProgressText(progress, total float64, message string) string {
	if math.IsNaN(progress) || math.IsInf(progress, 0) {
		progress = 0
	}
	known := total > 0 && !math.IsInf(total, 0) && !math.IsNaN(total)
	var filled int
	var figure string
	if known {
		ratio := min(progress/total, 1)
		filled = int(math.Round(ratio * progressBarWidth))
		figure = fmt.Sprintf("%d%%", int(math.Round(ratio*100)))
	} else {
		filled = int(math.Mod(math.Floor(progress), progressBarWidth+1))
		figure = strconv.FormatFloat(progress, 'f', -1, 64)
	}
	filled = max(0, min(filled, progressBarWidth))
	text := strings.Repeat("█", filled) + strings.Repeat("░", progressBarWidth-filled) + " " + figure
	if m := strings.TrimSpace(message); m != "" {
		text += "\n" + m
	}
	return text
}
