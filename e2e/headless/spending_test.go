package headless_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakeopenai"
	"github.com/castor-dev/castor/internal/spend"
)

// pricedSettings is user settings naming the fake as provider "local"
// whose model "priced" costs $10 per million input tokens, plus extra
// keys of the model block.
func pricedSettings(srv *fakeopenai.Server, model string) string {
	return `{"providers": {"local": {"baseUrl": "` + srv.URL + `/v1",
		"models": {"priced": {"inputPricePerMTok": 10, "outputPricePerMTok": 40}}}}, "model": {` + model + `}}`
}

// firstPricedRun is a workspace whose session has run one priced call
// ("first", answered "first answer") on the fake.
func firstPricedRun(t *testing.T) (*e2etest.Env, *fakeopenai.Server) {
	t.Helper()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t, fakeopenai.Text("first answer"))
	e.WriteUserSettings(pricedSettings(srv, ""))
	if r := e.Run("-m", "local/priced", "-p", "first"); r.Code != 0 {
		t.Fatalf("first session: exit %d\n%s", r.Code, r.Stderr)
	}
	return e, srv
}

// todaySpent reads the project's spending ledger: today's total.
func todaySpent(t *testing.T, e *e2etest.Env) float64 {
	t.Helper()
	dirs, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", spend.DirName))
	if len(dirs) != 1 {
		t.Fatalf("spending ledgers: %v, want one", dirs)
	}
	usd, err := spend.Open(filepath.Dir(dirs[0])).Spent()
	if err != nil {
		t.Fatal(err)
	}
	return usd
}

// TestDailyBudgetAcrossSessions: model.dailyBudgetUsd counts what every
// session of the project spent today. A second session whose first call
// would cross it ends before sending it, exit 56, naming the setting and
// its file; with the budget raised it resumes, the history intact.
func TestDailyBudgetAcrossSessions(t *testing.T) {
	t.Parallel()
	e, srv := firstPricedRun(t)
	spent := todaySpent(t, e)
	if spent <= 0 {
		t.Fatalf("today's spending %v after a priced call", spent)
	}
	// A budget the day has not reached, that one more call would cross.
	e.WriteUserSettings(pricedSettings(srv, fmt.Sprintf(`"dailyBudgetUsd": %g`, spent*1.5)))
	r := e.Run("-m", "local/priced", "--resume", "latest", "-o", "json", "-p", "second")
	if r.Code != 56 {
		t.Fatalf("exit %d, want 56\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	if n := len(srv.Requests()); n != 1 {
		t.Errorf("%d calls made, want the first session's only", n)
	}
	settings := filepath.Join(e.Home, ".gemini", "settings.json")
	for _, want := range []string{"FatalBudgetExceededError", "daily budget", "model.dailyBudgetUsd in " + settings} {
		if !strings.Contains(r.Stdout, want) {
			t.Errorf("stdout lacks %q: %s", want, r.Stdout)
		}
	}
	// Raised, the same session goes on with both prompts in its history.
	e.WriteUserSettings(pricedSettings(srv, fmt.Sprintf(`"dailyBudgetUsd": %g`, spent*10)))
	srv.Enqueue(fakeopenai.Text("third answer"))
	r = e.Run("-m", "local/priced", "--resume", "latest", "-p", "third")
	if r.Code != 0 || !strings.Contains(r.Stdout, "third answer") {
		t.Fatalf("raised: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	last := srv.Requests()[len(srv.Requests())-1]
	var history []string
	for _, m := range last.Chat.Messages[1:] { // after the system prompt
		s, _ := m.Content.(string)
		history = append(history, m.Role+": "+s[max(0, len(s)-30):])
	}
	// The refused turn's prompt is kept, so the next one joins it.
	if got := strings.Join(history, "|"); !strings.HasSuffix(got, "first|assistant: first answer|user: secondthird") {
		t.Errorf("the resumed call's history: %s", got)
	}
	if got := todaySpent(t, e); got <= spent {
		t.Errorf("the third session's call was not added: %v then %v", spent, got)
	}
}

// TestSessionBudgetSetting: model.maxBudgetUsd ends a run as
// --max-budget-usd does, the message naming the setting; the flag wins
// over it.
func TestSessionBudgetSetting(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	srv := fakeopenai.Start(t)
	e.WriteUserSettings(pricedSettings(srv, `"maxBudgetUsd": 0.000001`))
	r := e.Run("-m", "local/priced", "-p", "hi")
	if r.Code != 56 || len(srv.Requests()) != 0 {
		t.Fatalf("exit %d after %d calls, want 56 before any\nstderr: %s", r.Code, len(srv.Requests()), r.Stderr)
	}
	if !strings.Contains(r.Stderr, "budget of $0.0000 reached") || !strings.Contains(r.Stderr, "raise model.maxBudgetUsd in "+filepath.Join(e.Home, ".gemini", "settings.json")) {
		t.Errorf("stderr does not say which setting: %s", r.Stderr)
	}
	srv.Enqueue(fakeopenai.Text("paid for"))
	r = e.Run("-m", "local/priced", "--max-budget-usd", "5", "-p", "hi")
	if r.Code != 0 || !strings.Contains(r.Stdout, "paid for") {
		t.Fatalf("--max-budget-usd 5: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
}

// sessionCostUSD is the last costUsd the project's one session file
// keeps.
func sessionCostUSD(t *testing.T, e *e2etest.Env) float64 {
	t.Helper()
	files, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", "chats", "session-*.jsonl"))
	if len(files) != 1 {
		t.Fatalf("session files: %v, want one", files)
	}
	raw, err := os.ReadFile(files[0])
	if err != nil {
		t.Fatal(err)
	}
	var usd float64
	for line := range strings.Lines(string(raw)) {
		var rec struct {
			Set *struct{ CostUsd *float64 } `json:"$set"`
		}
		if json.Unmarshal([]byte(line), &rec) == nil && rec.Set != nil && rec.Set.CostUsd != nil {
			usd = *rec.Set.CostUsd
		}
	}
	return usd
}

// TestSessionBudgetAcrossResume: --max-budget-usd counts what the
// session spent before it was resumed (kept in its file as costUsd): a
// budget the earlier run already used two thirds of refuses the resumed
// run's first call, whose input alone costs more than the rest; raised,
// the session goes on and its kept total grows.
func TestSessionBudgetAcrossResume(t *testing.T) {
	t.Parallel()
	e, srv := firstPricedRun(t)
	spent := sessionCostUSD(t, e)
	if ledger := todaySpent(t, e); spent <= 0 || spent != ledger {
		t.Fatalf("the session file keeps $%v, the ledger $%v: want the same, above 0", spent, ledger)
	}
	r := e.Run("-m", "local/priced", "--resume", "latest", "--max-budget-usd", fmt.Sprintf("%g", spent*1.5), "-o", "json", "-p", "second")
	if r.Code != 56 || len(srv.Requests()) != 1 {
		t.Fatalf("exit %d after %d calls, want 56 after the first run's one\nstdout: %s\nstderr: %s", r.Code, len(srv.Requests()), r.Stdout, r.Stderr)
	}
	if want := fmt.Sprintf("$%.4f spent", spent); !strings.Contains(r.Stdout, want) {
		t.Errorf("the refusal does not say %q: %s", want, r.Stdout)
	}
	srv.Enqueue(fakeopenai.Text("third answer"))
	r = e.Run("-m", "local/priced", "--resume", "latest", "--max-budget-usd", fmt.Sprintf("%g", spent*100), "-p", "third")
	if r.Code != 0 || !strings.Contains(r.Stdout, "third answer") {
		t.Fatalf("raised: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	if total, ledger := sessionCostUSD(t, e), todaySpent(t, e); total <= spent || total-ledger > 1e-12 || ledger-total > 1e-12 {
		t.Errorf("after the raised run the session file keeps $%v, the ledger $%v (first run $%v)", total, ledger, spent)
	}
}

// TestSpendingJournal: the day's spending is a journal of one line per
// priced call. A ledger kept before the journal (spending.json) still
// counts toward today's budget; a line a crash cut short is passed over,
// named with its file under --debug, and the calls after it count.
func TestSpendingJournal(t *testing.T) {
	t.Parallel()
	e, srv := firstPricedRun(t)
	spent := todaySpent(t, e)
	dirs, _ := filepath.Glob(filepath.Join(e.Home, ".gemini", "tmp", "*", spend.DirName))
	if spent <= 0 || len(dirs) != 1 {
		t.Fatalf("after a priced call: $%v spent, journals %v", spent, dirs)
	}
	project := filepath.Dir(dirs[0])
	today := spend.Open(project).DayPath(time.Now().Format(time.DateOnly))
	if raw, err := os.ReadFile(today); err != nil || strings.Count(string(raw), "\n") != 1 {
		t.Fatalf("today's journal after one call: %q, %v", raw, err)
	}

	// An older version's ledger holds ten times more for today.
	legacy := filepath.Join(project, spend.LegacyFileName)
	old := fmt.Sprintf(`{"days": {%q: %g}}`, time.Now().Format(time.DateOnly), 10*spent)
	if err := os.WriteFile(legacy, []byte(old), 0o600); err != nil {
		t.Fatal(err)
	}
	e.WriteUserSettings(pricedSettings(srv, fmt.Sprintf(`"dailyBudgetUsd": %g`, 5*spent)))
	if r := e.Run("-m", "local/priced", "-p", "second"); r.Code != 56 || !strings.Contains(r.Stderr, "daily budget") {
		t.Fatalf("with $%v spent today by an older version: exit %d, want 56\nstderr: %s", 11*spent, r.Code, r.Stderr)
	}
	if err := os.Remove(legacy); err != nil {
		t.Fatal(err)
	}

	// A write cut short, then a run with --debug.
	f, err := os.OpenFile(today, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"usd":0.00`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	srv.Enqueue(fakeopenai.Text("third answer"))
	r := e.Run("-m", "local/priced", "--debug", "-p", "third")
	if r.Code != 0 || !strings.Contains(r.Stdout, "third answer") {
		t.Fatalf("after a torn line: exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
	}
	if !strings.Contains(r.Stderr, "spending journal "+today+": skipped what a write cut short on line(s) 2") {
		t.Errorf("--debug does not name the torn line and its file: %s", r.Stderr)
	}
	if got := todaySpent(t, e); got <= spent {
		t.Errorf("the call after the torn line was not counted: $%v then $%v", spent, got)
	}
}
