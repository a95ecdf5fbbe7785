package setup

import (
	"cmp"
	"fmt"
	"math"
	"strings"

	"github.com/castor-dev/castor/config"
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
	return b.Daily(daily, dailySetting, spend.Open(tempDir), warn), nil
}

// routerOf finds the auto router inside the wrappers of client (the
// budget, a recording), nil without one.
func routerOf(client model.Model) *routing.Router {
	for client != nil {
		if r, ok := client.(*routing.Router); ok {
			return r
		}
		u, ok := client.(interface{ Unwrap() model.Model })
		if !ok {
			return nil
		}
		client = u.Unwrap()
	}
	return nil
}
