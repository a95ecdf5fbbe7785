package setup

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/config"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/internal/routing"
	"github.com/castor-dev/castor/internal/spend"
	"github.com/castor-dev/castor/model"
)

// withBudget counts what m's calls cost, adds it to the project's
// spending ledger (internal/spend) and applies the session's budget
// (Options.MaxBudgetUSD, else model.maxBudgetUsd) and the project's daily
// one (model.dailyBudgetUsd). Without a project directory there is no
// ledger, and a daily budget cannot be kept: that is an error.
func withBudget(m model.Model, o Options, st *config.Settings, tempDir string) (model.Model, error) {
	if o.MaxBudgetUSD < 0 || math.IsNaN(o.MaxBudgetUSD) || math.IsInf(o.MaxBudgetUSD, 0) {
		return nil, configErrorf("a budget of %v US dollars: want a positive number (0 for no budget)", o.MaxBudgetUSD)
	}
	session, sessionSetting := o.MaxBudgetUSD, "--max-budget-usd"
	if session <= 0 {
		session = st.Model.MaxBudgetUSD
		sessionSetting = "model.maxBudgetUsd in " + cmp.Or(st.FileOf("model", "maxBudgetUsd"), "settings")
	}
	daily := st.Model.DailyBudgetUSD
	dailySetting := "model.dailyBudgetUsd in " + cmp.Or(st.FileOf("model", "dailyBudgetUsd"), "settings")
	for _, b := range []struct {
		v       float64
		setting string
	}{{st.Model.MaxBudgetUSD, "model.maxBudgetUsd"}, {daily, "model.dailyBudgetUsd"}} {
		if b.v < 0 {
			return nil, configErrorf("%s: %s is %v: want a positive number of US dollars (0 for no budget)", cmp.Or(st.FileOf(strings.Split(b.setting, ".")...), "settings"), b.setting, b.v)
		}
	}
	b := model.WithBudget(m, priceTable(st), session).SessionSetting(sessionSetting)
	if tempDir == "" {
		if daily > 0 {
			return nil, configErrorf("%s: no project folder under ~/.gemini/tmp to keep the day's spending in", dailySetting)
		}
		return b, nil
	}
	warn := func(err error) {
		if o.Warn != nil {
			o.Warn(fmt.Sprintf("the day's spending was not saved: %v", err))
		}
	}
	ledger := spend.Open(tempDir)
	ledger.Debug = o.Debug
	return b.Daily(daily, dailySetting, ledger, warn), nil
}

// routerOf finds the auto router inside the wrappers of client (the
// budget, a recording), nil without one.
func routerOf(client model.Model) *routing.Router { return inside[*routing.Router](client) }

// inside finds a T among client and the models it wraps, the zero T
// without one.
func inside[T model.Model](client model.Model) T {
	for client != nil {
		if t, ok := client.(T); ok {
			return t
		}
		u, ok := client.(interface{ Unwrap() model.Model })
		if !ok {
			break
		}
		client = u.Unwrap()
	}
	var zero T
	return zero
}

// sessionCost is what a recorded session had cost: the total its file
// keeps (costUsd, which counts subagents', compression's and the
// router's calls too), else, for a file written without it, its model
// messages' tokens priced.
func sessionCost(conv *chats.Conversation, price func(string) model.Price) float64 {
	if conv.CostUSD > 0 {
		return conv.CostUSD
	}
	var usd float64
	for _, m := range conv.Messages {
		if t := m.Tokens; t != nil && m.Type == chats.TypeGemini {
			u := &genai.GenerateContentResponseUsageMetadata{PromptTokenCount: int32(t.Input),
				CachedContentTokenCount: int32(t.Cached), CandidatesTokenCount: int32(t.Output), ThoughtsTokenCount: int32(t.Thoughts)}
			model.SetCacheWriteTokens(u, int32(t.CacheWrite))
			usd += price(m.Model).Cost(u)
		}
	}
	return usd
}

// resumeBudget makes the session's budget count what a resumed session
// had spent (rec.spent), and keeps the session's total in its file after
// each priced call for the next resume; the recorder keeps the budget
// for a switch to another session (resumeSpending).
func resumeBudget(client model.Model, rec *chatRecorder) {
	if rec == nil {
		return
	}
	rec.budget = inside[*model.Budget](client)
	rec.resumeSpending(rec.spent)
}

// resumeSpending starts the session's budget from spent, what the
// session now recorded had cost.
func (c *chatRecorder) resumeSpending(spent float64) {
	if c.budget == nil {
		return
	}
	c.budget.Resume(spent, func(total float64) {
		c.mu.Lock()
		rec := c.rec
		c.mu.Unlock()
		c.report(rec.SetCost(total))
	})
}
