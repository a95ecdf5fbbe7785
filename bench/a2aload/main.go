// Command a2aload benchmarks castor's A2A server (castor a2a-server)
// against the fake Gemini server, on 127.0.0.1 only. bench/a2a.sh builds
// the binaries and runs it.
//
// Each run starts fakegemini on a generated script (one text reply per
// turn the run will make), a timing proxy in front of it (in this
// process), and castor a2a-server pointed at the proxy with a temporary
// HOME, workspace and task store. It then measures:
//
//   - start-up: process start to agent card served; idle RSS (VmRSS,
//     RssAnon, VmHWM from /proc/<pid>/status) after -settle;
//   - sequential new-task turns and follow-up turns (message/stream with
//     taskId): client total per turn, the model's time inside it (the
//     proxy times every model call and charges it to its turn through a
//     marker in the prompt), and their difference, the time castor added;
//     also castor's CPU time per turn (/proc/<pid>/task/*/schedstat);
//   - the fake's own time for one follow-up's model request, replayed
//     directly to the fake and through the proxy;
//   - -concurrency streaming tasks at once (-turns turns each, -rounds
//     times): tasks and turns per second, turn latency and added time;
//   - RSS right after the load; errors (a turn fails on any HTTP or
//     JSON-RPC error, a missing final event, a final state other than
//     input-required, or a missing model reply; its error names the
//     events it read and the model calls the proxy charged to it);
//   - then every task of the concurrent phase, read back with tasks/get
//     (from memory or the store): a task that is not input-required with
//     the model's text once per turn in its history is an error too.
//
// Every loop is bounded by the counts given, and the whole benchmark by
// -deadline. The exit status is 1 when something failed to run or any
// turn failed, 2 for bad flags.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

type config struct {
	castor, fakegemini, dir string
	runs                    int
	store                   string
	settle                  time.Duration
	warmup                  int
	newTasks                int
	fuTasks, followups      int
	replays                 int
	concurrency, rounds     int
	turns                   int
	chunks                  int
	turnTimeout, deadline   time.Duration
	castorEnv               multiFlag
	jsonOut                 string
	quiet                   bool
	slow                    time.Duration
	dumpRequest             string
	proxyIdle               time.Duration
}

type multiFlag []string

func (m *multiFlag) String() string     { return strings.Join(*m, ",") }
func (m *multiFlag) Set(v string) error { *m = append(*m, v); return nil }

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	var c config
	fs := flag.NewFlagSet("a2aload", flag.ContinueOnError)
	fs.StringVar(&c.castor, "castor", "", "castor binary (required)")
	fs.StringVar(&c.fakegemini, "fakegemini", "", "fakegemini binary (required)")
	fs.StringVar(&c.dir, "dir", "", "scratch directory for homes, workspaces, scripts and logs (default: a new temp dir, removed afterwards)")
	fs.IntVar(&c.runs, "runs", 3, "independent runs (fresh fake and castor processes each)")
	fs.StringVar(&c.store, "store", "memory", "task store: memory (--memory-store) or file (--store-dir in the scratch dir)")
	fs.DurationVar(&c.settle, "settle", 2*time.Second, "wait after the agent card is served before reading the idle RSS")
	fs.IntVar(&c.warmup, "warmup", 3, "untimed warm-up tasks (one new turn and one follow-up each); the first new turn is reported as cold")
	fs.IntVar(&c.newTasks, "new", 50, "sequential new-task turns")
	fs.IntVar(&c.fuTasks, "followup-tasks", 10, "tasks the sequential follow-ups are spread over")
	fs.IntVar(&c.followups, "followups", 20, "sequential follow-up turns per follow-up task")
	fs.IntVar(&c.replays, "replays", 30, "direct (and proxied) replays of one follow-up's model request")
	fs.IntVar(&c.concurrency, "concurrency", 200, "streaming tasks running at once")
	fs.IntVar(&c.rounds, "rounds", 2, "rounds of the concurrent phase")
	fs.IntVar(&c.turns, "turns", 2, "turns per task in the concurrent phase (one new, the rest follow-ups)")
	fs.IntVar(&c.chunks, "chunks", 1, "stream chunks per model reply (1-6)")
	fs.DurationVar(&c.turnTimeout, "turn-timeout", 60*time.Second, "client timeout of one turn")
	fs.DurationVar(&c.deadline, "deadline", 20*time.Minute, "limit of the whole benchmark")
	fs.Var(&c.castorEnv, "castor-env", "extra KEY=VALUE for castor's environment (repeatable), e.g. GODEBUG=gctrace=1")
	fs.StringVar(&c.jsonOut, "json", "", "also write every run's metrics to this JSON file")
	fs.BoolVar(&c.quiet, "q", false, "no progress lines")
	fs.StringVar(&c.dumpRequest, "dump-request", "", "write the body of the last sequential follow-up's model request to this file")
	fs.DurationVar(&c.proxyIdle, "proxy-idle", 0, "close the model proxy's connections idle this long (0: never), as gateways do; castor must resend what it sent on a closing one")
	fs.DurationVar(&c.slow, "slow", 0, "log every measured turn at least this slow (0: none)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	switch {
	case c.castor == "" || c.fakegemini == "":
		fmt.Fprintln(os.Stderr, "a2aload: -castor and -fakegemini are required")
		return 2
	case c.store != "memory" && c.store != "file":
		fmt.Fprintln(os.Stderr, "a2aload: -store must be memory or file")
		return 2
	case c.runs < 1 || c.warmup < 1 || c.newTasks < 1 || c.fuTasks < 1 || c.followups < 1 || c.replays < 1 ||
		c.concurrency < 1 || c.rounds < 1 || c.turns < 1 || c.chunks < 1 || c.chunks > len(strings.Fields(replyText)):
		fmt.Fprintln(os.Stderr, "a2aload: counts must be at least 1, -chunks at most 6")
		return 2
	case c.concurrency > 1024:
		fmt.Fprintln(os.Stderr, "a2aload: castor serves at most 1024 streams at once; use -concurrency <= 1024")
		return 2
	}
	for _, p := range []*string{&c.castor, &c.fakegemini} {
		abs, err := filepath.Abs(*p)
		if err != nil {
			fmt.Fprintln(os.Stderr, "a2aload:", err)
			return 2
		}
		*p = abs
	}
	if c.dir == "" {
		d, err := os.MkdirTemp("", "a2aload.")
		if err != nil {
			fmt.Fprintln(os.Stderr, "a2aload:", err)
			return 1
		}
		defer os.RemoveAll(d)
		c.dir = d
	}
	ctx, cancel := context.WithTimeout(context.Background(), c.deadline)
	defer cancel()

	var results []*runResult
	failed := false
	for i := 1; i <= c.runs; i++ {
		c.progress("run %d/%d", i, c.runs)
		r, err := runOnce(ctx, &c, i)
		if err != nil {
			fmt.Fprintf(os.Stderr, "a2aload: run %d: %v\n", i, err)
			failed = true
		}
		if r != nil {
			results = append(results, r)
			if r.errors > 0 {
				failed = true
			}
		}
		if ctx.Err() != nil {
			break
		}
	}
	report(os.Stdout, &c, results)
	if c.jsonOut != "" {
		if err := writeJSON(c.jsonOut, results); err != nil {
			fmt.Fprintln(os.Stderr, "a2aload:", err)
			failed = true
		}
	}
	if failed || len(results) == 0 {
		return 1
	}
	return 0
}

func (c *config) progress(format string, args ...any) {
	if !c.quiet {
		fmt.Fprintf(os.Stderr, "a2aload: "+format+"\n", args...)
	}
}

// repliesNeeded is how many model replies one run asks for, each turn
// being one text-only model call.
func (c *config) repliesNeeded() int {
	return 2*c.warmup + c.newTasks + c.fuTasks*(1+c.followups) + 2*c.replays + c.rounds*c.concurrency*c.turns
}

// writeScript writes a --fake-responses JSONL script of n text replies.
func writeScript(path string, n, chunks int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	words := strings.Fields(replyText)
	var parts []string
	for i := 0; i < chunks; i++ {
		// The text is split over the chunks word-wise so that the whole
		// reply still reads replyText.
		lo, hi := i*len(words)/chunks, (i+1)*len(words)/chunks
		text := strings.Join(words[lo:hi], " ")
		if i > 0 && text != "" {
			text = " " + text
		}
		if i+1 < chunks {
			parts = append(parts, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":%q}]},"index":0}],"modelVersion":"gemini-2.5-pro"}`, text))
		} else {
			parts = append(parts, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":%q}]},"index":0,"finishReason":"STOP"}],"modelVersion":"gemini-2.5-pro","usageMetadata":{"promptTokenCount":1200,"candidatesTokenCount":8,"totalTokenCount":1208}}`, text))
		}
	}
	line := `{"method":"generateContentStream","response":[` + strings.Join(parts, ",") + "]}\n"
	for i := 0; i < n; i++ {
		if _, err := w.WriteString(line); err != nil {
			f.Close()
			return err
		}
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// turnSample is one measured turn.
type turnSample struct {
	total, model time.Duration
	calls        int
}

func (s turnSample) added() time.Duration { return s.total - s.model }

// runResult holds one run's metrics by key (see metrics).
type runResult struct {
	Run     int                `json:"run"`
	Metrics map[string]float64 `json:"metrics"`
	Errors  []string           `json:"errors,omitempty"`
	errors  int
}

func (r *runResult) set(k string, v float64) { r.Metrics[k] = v }

// phaseStats records the percentiles of a list of turns under prefix.
func (r *runResult) phaseStats(prefix string, samples []turnSample) {
	var tot, model, added []float64
	calls := 0
	for _, s := range samples {
		tot = append(tot, ms(s.total))
		model = append(model, ms(s.model))
		added = append(added, ms(s.added()))
		calls += s.calls
	}
	r.set(prefix+"_total_p50", percentile(tot, 50))
	r.set(prefix+"_total_p99", percentile(tot, 99))
	r.set(prefix+"_model_p50", percentile(model, 50))
	r.set(prefix+"_added_p50", percentile(added, 50))
	r.set(prefix+"_added_p99", percentile(added, 99))
	if len(samples) > 0 {
		r.set(prefix+"_calls", float64(calls)/float64(len(samples)))
	}
}

type runEnv struct {
	c      *config
	res    *runResult
	client *a2aClient
	proxy  *modelProxy
	castor *child
	fake   *child
	errMu  sync.Mutex
	// concTasks are the tasks of the concurrent phase whose turns all
	// succeeded, checked with tasks/get at the end of the run.
	concTasks []string
}

func (e *runEnv) fail(what string, err error) {
	e.errMu.Lock()
	defer e.errMu.Unlock()
	e.res.errors++
	if len(e.res.Errors) < 10 {
		e.res.Errors = append(e.res.Errors, what+": "+err.Error())
	}
}

// turnFailed counts a failed turn, saying how many model calls the proxy
// charged to it: a turn that lost the model's answer had its calls.
func (e *runEnv) turnFailed(what string, tr turnResult) {
	mt := e.proxy.take(tr.seq)
	e.fail(what, fmt.Errorf("%w (model calls for the turn: %d)", tr.err, mt.calls))
}

func (e *runEnv) errorCount() int {
	e.errMu.Lock()
	defer e.errMu.Unlock()
	return e.res.errors
}

// sample turns a client result into a sample, charging the model's time.
func (e *runEnv) sample(tr turnResult) turnSample {
	mt := e.proxy.take(tr.seq)
	return turnSample{total: tr.total, model: mt.d, calls: mt.calls}
}

// logSlow reports a turn slower than -slow on stderr.
func (e *runEnv) logSlow(phase string, tr turnResult, s turnSample) {
	if e.c.slow > 0 && s.total >= e.c.slow {
		fmt.Fprintf(os.Stderr, "a2aload: slow %s turn #%d: total %.1f ms, first byte %.1f ms, model %.1f ms in %d call(s)\n",
			phase, tr.seq, ms(s.total), ms(tr.firstByte), ms(s.model), s.calls)
	}
}

func runOnce(ctx context.Context, c *config, n int) (*runResult, error) {
	dir := filepath.Join(c.dir, fmt.Sprintf("run%d", n))
	home, ws, logs := filepath.Join(dir, "home"), filepath.Join(dir, "ws"), filepath.Join(dir, "log")
	for _, d := range []string{home, filepath.Join(ws, "src"), logs} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "README.md"), []byte("# Greeter\n\nA tiny program that greets whoever runs it.\n"), 0o644); err != nil {
		return nil, err
	}
	if err := os.WriteFile(filepath.Join(ws, "src", "main.go"), []byte("package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"hello\") }\n"), 0o644); err != nil {
		return nil, err
	}
	script := filepath.Join(dir, "script.jsonl")
	need := c.repliesNeeded()
	if err := writeScript(script, need+need/10+20, c.chunks); err != nil {
		return nil, err
	}
	sysPath := os.Getenv("PATH")

	// The fake model.
	fake, err := startChild("fakegemini", c.fakegemini, []string{script}, []string{"PATH=" + sysPath, "HOME=" + home}, dir, logs)
	if err != nil {
		return nil, err
	}
	defer fake.stop(5 * time.Second)
	sctx, scancel := context.WithTimeout(ctx, 30*time.Second)
	fakeURL, err := fake.waitLine(sctx, "http://127.0.0.1:")
	scancel()
	if err != nil {
		return nil, err
	}
	proxy, err := newModelProxy(fakeURL, c.proxyIdle)
	if err != nil {
		return nil, err
	}
	defer proxy.Close()

	// castor a2a-server.
	cargs := []string{"a2a-server", "--host", "127.0.0.1", "--port", "0", "--workspace", ws, "--allowed-root", dir}
	if c.concurrency > 256 {
		// castor's default limit of turns running at once.
		cargs = append(cargs, "--max-concurrent-turns", fmt.Sprint(c.concurrency))
	}
	if c.store == "memory" {
		cargs = append(cargs, "--memory-store")
	} else {
		cargs = append(cargs, "--store-dir", filepath.Join(dir, "store"))
	}
	env := []string{
		"PATH=" + sysPath, "HOME=" + home, "LC_ALL=C", "NO_COLOR=1",
		"GEMINI_API_KEY=x", "GOOGLE_GEMINI_BASE_URL=" + proxy.URL, "GEMINI_CLI_TRUST_WORKSPACE=true",
	}
	env = append(env, c.castorEnv...)
	started := time.Now()
	castor, err := startChild("castor", c.castor, cargs, env, ws, logs)
	if err != nil {
		return nil, err
	}
	stopped := false
	defer func() {
		if !stopped {
			castor.stop(10 * time.Second)
		}
	}()
	sctx, scancel = context.WithTimeout(ctx, 30*time.Second)
	line, err := castor.waitLine(sctx, "Castor A2A server listening on ")
	scancel()
	if err != nil {
		return nil, err
	}
	base := strings.TrimPrefix(line, "Castor A2A server listening on ")
	if !strings.HasPrefix(base, "http://127.0.0.1:") {
		return nil, fmt.Errorf("castor listens on %q, not 127.0.0.1", base)
	}
	if err := waitCard(ctx, base); err != nil {
		return nil, err
	}
	res := &runResult{Run: n, Metrics: map[string]float64{}}
	res.set("startup_ms", ms(time.Since(started)))
	e := &runEnv{c: c, res: res, client: newA2AClient(base, ws), proxy: proxy, castor: castor, fake: fake}
	defer e.client.http.CloseIdleConnections()

	if err := sleepCtx(ctx, c.settle); err != nil {
		return res, err
	}
	idle, err := readMem(castor.pid())
	if err != nil {
		return res, err
	}
	res.set("idle_rss_mb", mb(idle.RSS))
	res.set("idle_anon_mb", mb(idle.Anon))
	res.set("idle_hwm_mb", mb(idle.HWM))
	c.progress("  castor up in %.0f ms, idle RSS %.1f MB (anon %.1f MB)", res.Metrics["startup_ms"], mb(idle.RSS), mb(idle.Anon))

	if err := e.phases(ctx); err != nil {
		return res, err
	}

	after, err := readMem(castor.pid())
	if err != nil {
		return res, err
	}
	res.set("load_rss_mb", mb(after.RSS))
	res.set("load_hwm_mb", mb(after.HWM))
	if err := e.checkTasks(ctx); err != nil {
		return res, err
	}
	unassigned, pfail := proxy.counts()
	res.set("model_calls_unassigned", float64(unassigned))
	if pfail > 0 {
		e.fail("model proxy", fmt.Errorf("%d model calls failed or were not answered 200", pfail))
	}
	res.set("errors", float64(res.errors))
	stopped = true
	// castor's own shutdown is bounded by 30 s: it ends the turns, then
	// saves every task in memory (with a file store, a flush of each).
	t0 := time.Now()
	err = castor.stop(35 * time.Second)
	res.set("stop_ms", ms(time.Since(t0)))
	return res, err
}

func (e *runEnv) phases(ctx context.Context) error {
	c, res := e.c, e.res
	to := c.turnTimeout

	// Warm-up: the very first turn is the cold one.
	for i := 0; i < c.warmup; i++ {
		tr := e.client.turn(ctx, "", to)
		if tr.err != nil {
			e.turnFailed("warm-up new task", tr)
			continue
		}
		e.proxy.take(tr.seq)
		if i == 0 {
			res.set("first_new_ms", ms(tr.total))
		}
		if fu := e.client.turn(ctx, tr.taskID, to); fu.err != nil {
			e.turnFailed("warm-up follow-up", fu)
		} else {
			e.proxy.take(fu.seq)
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// Sequential new tasks.
	c.progress("  %d sequential new-task turns", c.newTasks)
	cpu0 := cpuTime(e.castor.pid())
	var newS []turnSample
	for i := 0; i < c.newTasks && ctx.Err() == nil; i++ {
		tr := e.client.turn(ctx, "", to)
		if tr.err != nil {
			e.turnFailed("new task", tr)
			continue
		}
		s := e.sample(tr)
		e.logSlow("new-task", tr, s)
		newS = append(newS, s)
	}
	if len(newS) > 0 {
		res.set("new_cpu_ms", ms(cpuTime(e.castor.pid())-cpu0)/float64(len(newS)))
	}
	res.phaseStats("new", newS)

	// Sequential follow-ups, round-robin over a few tasks.
	c.progress("  %d sequential follow-up turns over %d tasks", c.fuTasks*c.followups, c.fuTasks)
	var ids []string
	for i := 0; i < c.fuTasks; i++ {
		tr := e.client.turn(ctx, "", to)
		if tr.err != nil {
			e.turnFailed("follow-up task start", tr)
			continue
		}
		e.proxy.take(tr.seq)
		ids = append(ids, tr.taskID)
	}
	var fuS []turnSample
	var fuRound []int // the round of each sample: its turn number on its task
	fakeCPU0, cpu0 := cpuTime(e.fake.pid()), cpuTime(e.castor.pid())
	calls := 0
	for r := 0; r < c.followups && ctx.Err() == nil; r++ {
		for j, id := range ids {
			if r == c.followups-1 && j == len(ids)-1 {
				// Keep the last follow-up's model request for the replay.
				e.proxy.capture(int(e.client.seq.Load()) + 1)
			}
			tr := e.client.turn(ctx, id, to)
			if tr.err != nil {
				e.turnFailed("follow-up", tr)
				continue
			}
			s := e.sample(tr)
			e.logSlow("follow-up", tr, s)
			calls += s.calls
			fuS = append(fuS, s)
			fuRound = append(fuRound, r)
		}
	}
	if len(fuS) > 0 {
		res.set("fu_cpu_ms", ms(cpuTime(e.castor.pid())-cpu0)/float64(len(fuS)))
	}
	if calls > 0 {
		res.set("fake_cpu_per_call_ms", ms(cpuTime(e.fake.pid())-fakeCPU0)/float64(calls))
	}
	res.phaseStats("fu", fuS)
	// Whether what castor adds grows with the task (the disk store's
	// saves): the first and the last tenth of the rounds.
	k := max(1, c.followups/10)
	var early, late []float64
	for i, s := range fuS {
		switch {
		case fuRound[i] < k:
			early = append(early, ms(s.added()))
		case fuRound[i] >= c.followups-k:
			late = append(late, ms(s.added()))
		}
	}
	if len(early) > 0 && len(late) > 0 && c.followups >= 2 {
		res.set("fu_early_added_p50", percentile(early, 50))
		res.set("fu_late_added_p50", percentile(late, 50))
	}

	// The fake's own time for the same request, and the proxy's share.
	if cr := e.proxy.capturedRequest(); cr != nil {
		res.set("replay_body_kb", float64(len(cr.body))/1024)
		if c.dumpRequest != "" {
			if err := os.WriteFile(c.dumpRequest, cr.body, 0o644); err != nil {
				return err
			}
		}
		hc := &http.Client{Transport: &http.Transport{Proxy: nil, DisableCompression: true}}
		var direct, proxied []float64
		for i := 0; i < c.replays && ctx.Err() == nil; i++ {
			d, err := replay(ctx, hc, e.proxy.upstream, cr, false)
			if err != nil {
				e.fail("direct replay", err)
				continue
			}
			direct = append(direct, ms(d))
			d, err = replay(ctx, hc, e.proxy.URL, cr, true)
			if err != nil {
				e.fail("proxied replay", err)
				continue
			}
			proxied = append(proxied, ms(d))
		}
		hc.CloseIdleConnections()
		res.set("fake_direct_p50", percentile(direct, 50))
		res.set("fake_proxied_p50", percentile(proxied, 50))
	} else if len(fuS) > 0 {
		e.fail("replay", errors.New("no follow-up model request was captured"))
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	// Concurrent streaming tasks.
	c.progress("  %d rounds of %d concurrent streaming tasks × %d turns", c.rounds, c.concurrency, c.turns)
	var mu sync.Mutex
	var concS, concNew, concFu []turnSample
	var wall time.Duration
	tasksDone := 0
	errs0 := e.errorCount()
	cpu0 = cpuTime(e.castor.pid())
	for round := 0; round < c.rounds && ctx.Err() == nil; round++ {
		var wg sync.WaitGroup
		gate := make(chan struct{})
		for w := 0; w < c.concurrency; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				<-gate
				id := ""
				for t := 0; t < c.turns; t++ {
					tr := e.client.turn(ctx, id, to)
					if tr.err != nil {
						e.turnFailed(fmt.Sprintf("concurrent turn %d", t+1), tr)
						// The task's remaining turns cannot run.
						for k := t + 1; k < c.turns; k++ {
							e.fail(fmt.Sprintf("concurrent turn %d", k+1), errors.New("skipped: an earlier turn of its task failed"))
						}
						return
					}
					id = tr.taskID
					s := e.sample(tr)
					e.logSlow("concurrent", tr, s)
					mu.Lock()
					concS = append(concS, s)
					if t == 0 {
						concNew = append(concNew, s)
					} else {
						concFu = append(concFu, s)
					}
					mu.Unlock()
				}
				mu.Lock()
				tasksDone++
				e.concTasks = append(e.concTasks, id)
				mu.Unlock()
			}()
		}
		start := time.Now()
		close(gate)
		wg.Wait()
		wall += time.Since(start)
	}
	if wall > 0 {
		res.set("conc_tasks_per_s", float64(tasksDone)/wall.Seconds())
		res.set("conc_turns_per_s", float64(len(concS))/wall.Seconds())
		res.set("conc_round_s", wall.Seconds()/float64(c.rounds))
	}
	if len(concS) > 0 {
		res.set("conc_cpu_ms", ms(cpuTime(e.castor.pid())-cpu0)/float64(len(concS)))
	}
	res.set("conc_errors", float64(e.errorCount()-errs0))
	res.phaseStats("conc", concS)
	res.phaseStats("concnew", concNew)
	res.phaseStats("concfu", concFu)
	return ctx.Err()
}

func waitCard(ctx context.Context, base string) error {
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{Proxy: nil}}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := hc.Get(base + ".well-known/agent-card.json")
		if err == nil {
			_, _ = io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		if err := sleepCtx(ctx, 5*time.Millisecond); err != nil {
			return err
		}
	}
	return errors.New("castor never served its agent card")
}

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// metric is one row of the report.
type metric struct {
	key, label, unit string
	lower            bool // lower is better
	target           string
	meets            func(v float64) bool
}

var metrics = []metric{
	{key: "startup_ms", label: "start → agent card served", unit: "ms", lower: true},
	{key: "idle_rss_mb", label: "idle RSS (VmRSS)", unit: "MB", lower: true, target: "< 30 MB", meets: func(v float64) bool { return v < 30 }},
	{key: "idle_anon_mb", label: "  of which anonymous (RssAnon)", unit: "MB", lower: true},
	{key: "idle_hwm_mb", label: "idle peak RSS (VmHWM)", unit: "MB", lower: true},
	{key: "first_new_ms", label: "first (cold) new-task turn", unit: "ms", lower: true},
	{key: "new_total_p50", label: "new-task turn: client total p50", unit: "ms", lower: true},
	{key: "new_total_p99", label: "new-task turn: client total p99", unit: "ms", lower: true},
	{key: "new_model_p50", label: "new-task turn: model time p50", unit: "ms", lower: true},
	{key: "new_added_p50", label: "new-task turn: added p50", unit: "ms", lower: true},
	{key: "new_added_p99", label: "new-task turn: added p99", unit: "ms", lower: true},
	{key: "new_cpu_ms", label: "new-task turn: castor CPU", unit: "ms", lower: true},
	{key: "fu_total_p50", label: "follow-up turn: client total p50", unit: "ms", lower: true},
	{key: "fu_total_p99", label: "follow-up turn: client total p99", unit: "ms", lower: true},
	{key: "fu_model_p50", label: "follow-up turn: model time p50", unit: "ms", lower: true},
	{key: "fu_added_p50", label: "follow-up turn: added p50", unit: "ms", lower: true, target: "< 1 ms", meets: func(v float64) bool { return v < 1 }},
	{key: "fu_added_p99", label: "follow-up turn: added p99", unit: "ms", lower: true},
	{key: "fu_early_added_p50", label: "  added p50, first 10% of turns", unit: "ms", lower: true},
	{key: "fu_late_added_p50", label: "  added p50, last 10% of turns", unit: "ms", lower: true},
	{key: "fu_cpu_ms", label: "follow-up turn: castor CPU", unit: "ms", lower: true},
	{key: "fu_calls", label: "model calls per turn", unit: "", lower: true},
	{key: "replay_body_kb", label: "model request body (follow-up)", unit: "KB", lower: true},
	{key: "fake_direct_p50", label: "same request direct to the fake p50", unit: "ms", lower: true},
	{key: "fake_proxied_p50", label: "same request through the proxy p50", unit: "ms", lower: true},
	{key: "fake_cpu_per_call_ms", label: "fake model CPU per call", unit: "ms", lower: true},
	{key: "conc_tasks_per_s", label: "concurrent: tasks/s", unit: "/s", lower: false},
	{key: "conc_turns_per_s", label: "concurrent: turns/s", unit: "/s", lower: false},
	{key: "conc_round_s", label: "concurrent: wall time per round", unit: "s", lower: true},
	{key: "conc_total_p50", label: "concurrent: turn total p50", unit: "ms", lower: true},
	{key: "conc_total_p99", label: "concurrent: turn total p99", unit: "ms", lower: true},
	{key: "conc_added_p50", label: "concurrent: added p50", unit: "ms", lower: true},
	{key: "conc_added_p99", label: "concurrent: added p99", unit: "ms", lower: true},
	{key: "concnew_total_p50", label: "  concurrent new-task turn p50", unit: "ms", lower: true},
	{key: "concnew_total_p99", label: "  concurrent new-task turn p99", unit: "ms", lower: true},
	{key: "concfu_total_p50", label: "  concurrent follow-up turn p50", unit: "ms", lower: true},
	{key: "concfu_total_p99", label: "  concurrent follow-up turn p99", unit: "ms", lower: true},
	{key: "conc_cpu_ms", label: "concurrent: castor CPU per turn", unit: "ms", lower: true},
	{key: "conc_errors", label: "concurrent: errors", unit: "", lower: true, target: "0", meets: func(v float64) bool { return v == 0 }},
	{key: "conc_bad_tasks", label: "concurrent: tasks without their text", unit: "", lower: true, target: "0", meets: func(v float64) bool { return v == 0 }},
	{key: "load_rss_mb", label: "RSS after the load (VmRSS)", unit: "MB", lower: true},
	{key: "load_hwm_mb", label: "peak RSS (VmHWM)", unit: "MB", lower: true, target: "< 300 MB", meets: func(v float64) bool { return v < 300 }},
	{key: "stop_ms", label: "SIGTERM → castor exited", unit: "ms", lower: true},
	{key: "errors", label: "errors (all phases)", unit: "", lower: true, target: "0", meets: func(v float64) bool { return v == 0 }},
}

func format(v float64) string {
	switch {
	case math.IsNaN(v):
		return "-"
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	default:
		return fmt.Sprintf("%.2f", v)
	}
}

func report(w io.Writer, c *config, results []*runResult) {
	if len(results) == 0 {
		fmt.Fprintln(w, "a2aload: no results")
		return
	}
	load := "?"
	if b, err := os.ReadFile("/proc/loadavg"); err == nil {
		load = strings.Join(strings.Fields(string(b))[:3], " ")
	}
	fmt.Fprintf(w, "\ncastor a2a-server, %s store | %s | %d CPUs | load avg %s | %d run(s)\n",
		c.store, runtime.Version(), runtime.NumCPU(), load, len(results))
	fmt.Fprintf(w, "per run: %d warm-up tasks, %d new-task turns, %d×%d follow-ups, %d replays, %d×%d concurrent tasks of %d turns; %d stream chunk(s) per reply\n",
		c.warmup, c.newTasks, c.fuTasks, c.followups, c.replays, c.rounds, c.concurrency, c.turns, c.chunks)
	fmt.Fprintln(w, "added = client total − model time (every model call timed at the proxy in front of the fake)")
	fmt.Fprintln(w)
	hdr := fmt.Sprintf("%-38s %9s %9s", "measurement", "best", "median")
	for _, r := range results {
		hdr += fmt.Sprintf(" %8s", fmt.Sprintf("run%d", r.Run))
	}
	fmt.Fprintf(w, "%s  %-4s %-8s %s\n", hdr, "unit", "target", "met")
	fmt.Fprintln(w, strings.Repeat("-", len(hdr)+20))
	for _, m := range metrics {
		var vs []float64
		for _, r := range results {
			v, ok := r.Metrics[m.key]
			if !ok {
				v = math.NaN()
			}
			vs = append(vs, v)
		}
		b, med := best(vs, m.lower), median(vs)
		line := fmt.Sprintf("%-38s %9s %9s", m.label, format(b), format(med))
		for _, v := range vs {
			line += fmt.Sprintf(" %8s", format(v))
		}
		met := ""
		if m.meets != nil && !math.IsNaN(med) {
			met = "yes"
			if !m.meets(med) {
				met = "NO"
			}
			if m.meets(b) != m.meets(med) {
				met += " (best: " + map[bool]string{true: "yes", false: "no"}[m.meets(b)] + ")"
			}
		}
		fmt.Fprintf(w, "%s  %-4s %-8s %s\n", line, m.unit, m.target, met)
	}
	for _, r := range results {
		for _, e := range r.Errors {
			fmt.Fprintf(w, "run%d error: %s\n", r.Run, e)
		}
	}
	fmt.Fprintln(w, "\nGemini CLI a2a-server (reference §6, same kind of VM): follow-up ~5.5 ms added (0.25.2), ~7.4 ms (head);")
	fmt.Fprintln(w, "new task ~17 ms / ~41 ms; idle RSS 532 MB / 189 MB; after 20 turns 564 MB / 224 MB.")
}

func writeJSON(path string, results []*runResult) error {
	clean := make([]*runResult, len(results))
	for i, r := range results {
		cp := *r
		cp.Metrics = map[string]float64{}
		for k, v := range r.Metrics {
			if !math.IsNaN(v) {
				cp.Metrics[k] = v
			}
		}
		clean[i] = &cp
	}
	b, err := json.MarshalIndent(clean, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(path, append(b, '\n'), 0o644)
}

// checkTasks reads every task of the concurrent phase with tasks/get once
// the load is over (from memory or, for evicted tasks, the store) and
// counts an error for each that does not show the model's text for every
// turn (checkTask). A few requests run at once.
func (e *runEnv) checkTasks(ctx context.Context) error {
	ids := e.concTasks
	e.c.progress("  checking the %d concurrent tasks with tasks/get", len(ids))
	var bad atomic.Int64
	next := make(chan string)
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for id := range next {
				t, err := e.client.getTask(ctx, id, e.c.turnTimeout)
				if err == nil {
					err = checkTask(t, e.c.turns)
				}
				if err != nil {
					bad.Add(1)
					e.fail("task check", err)
				}
			}
		}()
	}
	for _, id := range ids {
		if ctx.Err() != nil {
			break
		}
		next <- id
	}
	close(next)
	wg.Wait()
	e.res.set("conc_bad_tasks", float64(bad.Load()))
	return ctx.Err()
}
