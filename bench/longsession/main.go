// Command longsession measures castor's memory over a long session: one
// castor process answers many prompts in a row, each a tool call
// (read_file) and then an answer of about 6 KB, served by fakegemini from a
// generated script, and the resident set size is read from /proc at
// checkpoints. Run it through bench/longsession.sh, which builds the
// binaries.
//
//	longsession -castor BIN -fakegemini BIN -face stream-json|acp|tui [-gemini BIN] [-turns 1000] [-at 100,500,1000] [-max-mb N]
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httputil"
	neturl "net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "longsession:", err)
		os.Exit(1)
	}
}

type config struct {
	castor, fake, face, dir string
	// gemini, when set, is Gemini CLI's launcher, run in the tui face
	// in castor's place for the same script.
	gemini       string
	model        string
	noClassifier bool
	// realUsage leaves usageMetadata out of the script, so the fake
	// reports each call's real prompt size and both sides compress their
	// history past half the window, as with the real service.
	realUsage     bool
	turns, answer int
	at            []int
	env           []string
	// maxMB stops the run once the face's process tree holds more
	// (Gemini CLI's terminal grows by gigabytes); 0: no limit.
	maxMB float64
	// turnTimeout bounds one turn: Gemini CLI slows as its memory grows.
	turnTimeout time.Duration
	// requests, when set, is a file that gets a line per model call.
	requests string
	// maxDiskMB stops the stream-json face of Gemini CLI once its session
	// files hold more: each resume appends the whole history again.
	maxDiskMB float64
}

func run() error {
	var c config
	var at, env string
	flag.StringVar(&c.castor, "castor", "", "castor binary")
	flag.StringVar(&c.fake, "fakegemini", "", "fakegemini binary")
	flag.StringVar(&c.face, "face", "stream-json", "stream-json, acp, tui (the interactive terminal in tmux) or resume (a -p -o stream-json process per prompt, each resuming the session: what 0.61's stream-json face is run as)")
	flag.StringVar(&c.dir, "dir", "", "scratch directory (default: a new temp dir, removed afterwards)")
	flag.IntVar(&c.turns, "turns", 1000, "prompts to send")
	flag.IntVar(&c.answer, "answer", 6144, "bytes of each answer")
	flag.StringVar(&at, "at", "100,500,1000", "turns after which RSS is read")
	flag.StringVar(&c.model, "m", "", "castor's -m (a model name skips the auto router and its classifier calls)")
	flag.BoolVar(&c.noClassifier, "no-classifier-replies", false, "leave the classifier's replies out of the script, so the auto router's classifier takes the tool-call replies and every turn is a bare 6 KB answer (the run issue 26 measured)")
	flag.StringVar(&c.gemini, "gemini", "", "Gemini CLI 0.61's gemini launcher (node_modules/.bin/gemini): run it instead of castor (stream-json: a -p process per prompt resuming the last session, as 0.61 has no stream-json input)")
	flag.StringVar(&env, "env", "", "extra environment for castor, comma-separated (GODEBUG=gctrace=1, GOGC=50 …)")
	flag.Float64Var(&c.maxMB, "max-mb", 0, "stop once the face's process tree holds more than this many MB of RSS (0: no limit)")
	flag.Float64Var(&c.maxDiskMB, "max-disk-mb", 4000, "with -gemini -face stream-json, stop once 0.61's session files hold more than this many MB")
	flag.BoolVar(&c.realUsage, "real-usage", false, "let the fake count each call's prompt tokens (request size / 4) instead of a fixed 2,000, so the history gets compressed once it passes half the window, as with the real service")
	flag.StringVar(&c.requests, "requests", "", "write a line per model call to this file (path, body bytes, contents), through a proxy in front of fakegemini")
	flag.DurationVar(&c.turnTimeout, "turn-timeout", 5*time.Minute, "longest wait for one turn")
	flag.Parse()
	if c.castor == "" || c.fake == "" {
		return errors.New("-castor and -fakegemini are needed")
	}
	// The faces start in the workspace: relative binaries would not be
	// found there.
	for _, p := range []*string{&c.castor, &c.fake, &c.gemini} {
		if *p == "" {
			continue
		}
		if abs, err := filepath.Abs(*p); err == nil {
			*p = abs
		}
	}
	for f := range strings.SplitSeq(at, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return fmt.Errorf("-at %q: %v", at, err)
		}
		c.at = append(c.at, n)
	}
	if env != "" {
		c.env = strings.Split(env, ",")
	}
	if c.dir == "" {
		d, err := os.MkdirTemp("", "longsession-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		c.dir = d
	}
	home, ws := filepath.Join(c.dir, "home"), filepath.Join(c.dir, "ws")
	for _, d := range []string{home, ws} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return err
		}
	}
	if c.gemini != "" {
		// Gemini CLI asks nothing at start with an API key chosen, no
		// folder trust and no update check.
		settings := `{"security": {"auth": {"selectedType": "gemini-api-key"}, "folderTrust": {"enabled": false}}, "general": {"disableAutoUpdate": true, "disableUpdateNag": true}, "privacy": {"usageStatisticsEnabled": false}, "ui": {"hideTips": true}}`
		if err := os.MkdirAll(filepath.Join(home, ".gemini"), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(home, ".gemini", "settings.json"), []byte(settings), 0o644); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(ws, "notes.txt"), []byte(strings.Repeat("A line of the notes file the model reads each turn.\n", 20)), 0o644); err != nil {
		return err
	}
	script := filepath.Join(c.dir, "script.jsonl")
	if err := writeScript(script, c.turns+5, c.answer, c.model == "" && !c.noClassifier, c.realUsage); err != nil {
		return err
	}
	// The fake keeps no request: each holds the whole history.
	fake := exec.Command(c.fake, "-keep", "1", script)
	fake.Stderr = os.Stderr
	out, err := fake.StdoutPipe()
	if err != nil {
		return err
	}
	if err := fake.Start(); err != nil {
		return err
	}
	defer func() { fake.Process.Kill(); fake.Wait() }()
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		return fmt.Errorf("fakegemini printed no URL: %v", err)
	}
	url = strings.TrimSpace(url)
	if c.requests != "" {
		log, err := os.Create(c.requests)
		if err != nil {
			return err
		}
		defer log.Close()
		if url, err = logRequests(url, log); err != nil {
			return err
		}
	}
	environ := append([]string{"HOME=" + home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=x",
		"GOOGLE_GEMINI_BASE_URL=" + url, "GEMINI_CLI_TRUST_WORKSPACE=true"}, c.env...)
	var s session
	switch {
	case c.face == "resume" || c.face == "stream-json" && c.gemini != "":
		s = &resumeRuns{c: c, ws: ws, env: environ, chats: filepath.Join(home, ".gemini", "tmp")}
	case c.face == "stream-json":
		s, err = startStreamJSON(c, ws, environ)
	case c.face == "acp":
		s, err = startACP(c, ws, environ)
	case c.face == "tui":
		s, err = startTUI(c, ws, environ)
	default:
		return fmt.Errorf("unknown face %q", c.face)
	}
	if err != nil {
		return err
	}
	defer s.close()
	// Interrupted, the session still ends whole (a 1,000-turn run of
	// Gemini CLI holds gigabytes).
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, os.Interrupt, syscall.SIGTERM)
	go func() {
		<-sig
		s.close()
		fake.Process.Kill()
		os.Exit(1)
	}()
	over := watch(s, c.maxMB)
	start := time.Now()
	face := c.face
	if _, ok := s.(measured); ok {
		face = "-p -r"
	}
	if c.gemini != "" {
		face += " (0.61)"
	}
	fmt.Printf("%-14s %6s %10s %10s %10s %8s %8s\n", "face", "turns", "RSS MB", "settled MB", "peak MB", "s", "turn s")
	for i := 1; i <= c.turns; i++ {
		t0 := time.Now()
		if err := s.turn(fmt.Sprintf("Read notes.txt and tell me about it (%d).", i)); err != nil {
			var full errStop
			if errors.As(err, &full) {
				fmt.Printf("%-14s %6d %10s %10s %10s %8.1f %8s  stopped: %v\n", face, i, "-", "-", "-", time.Since(start).Seconds(), "-", err)
				return nil
			}
			if mb := over.Load(); mb != nil {
				fmt.Printf("%-14s %6d %10.1f %10s %10s %8.1f %8s  stopped: over %.0f MB during turn %d\n",
					face, i-1, *mb, "-", "-", time.Since(start).Seconds(), "-", c.maxMB, i)
				return nil
			}
			return fmt.Errorf("turn %d: %v", i, err)
		}
		took := time.Since(t0).Seconds()
		if i%50 == 0 {
			rss, _ := memory(s.pid())
			if m, ok := s.(measured); ok {
				rss, _ = m.lastMemory()
			}
			fmt.Fprintf(os.Stderr, "longsession: %s turn %d, %.0f MB, %.0f s\n", face, i, rss, time.Since(start).Seconds())
		}
		for _, n := range c.at {
			if n != i {
				continue
			}
			elapsed := time.Since(start).Seconds()
			if m, ok := s.(measured); ok {
				// One process per turn: its own largest RSS and peak.
				rss, peak := m.lastMemory()
				fmt.Printf("%-14s %6d %10.1f %10s %10.1f %8.1f %8.1f  %s\n", face, i, rss, "-", peak, elapsed, took, m.note())
				continue
			}
			rss, peak := memory(s.pid())
			settled := settle(s.pid(), rss)
			fmt.Printf("%-14s %6d %10.1f %10.1f %10.1f %8.1f %8.1f\n", face, i, rss, settled, peak, elapsed, took)
		}
	}
	return nil
}

// watch reads the RSS of s's process tree every half second and ends s
// once it holds more than maxMB (0: never); the returned value is then the
// RSS that ended it.
func watch(s session, maxMB float64) *atomic.Pointer[float64] {
	var over atomic.Pointer[float64]
	if maxMB <= 0 {
		return &over
	}
	go func() {
		for range time.Tick(500 * time.Millisecond) {
			pid := s.pid()
			if pid <= 0 {
				continue
			}
			if rss, _ := memory(pid); rss > maxMB {
				over.Store(&rss)
				fmt.Fprintf(os.Stderr, "longsession: %.0f MB, over -max-mb %.0f: ending the session\n", rss, maxMB)
				s.close()
				return
			}
		}
	}()
	return &over
}

// bin is the program the faces run.
func (c config) bin() string {
	if c.gemini != "" {
		return c.gemini
	}
	return c.castor
}

func (c config) modelArgs() []string {
	if c.model == "" {
		return nil
	}
	return []string{"-m", c.model}
}

// settle is the RSS of pid once it stopped falling after a turn: the
// faces give memory back to the system on a goroutine of their own as a
// turn ends (internal/memtrim), which a read right at the turn's end can
// precede. It reads every 100 ms until a read is no lower than the one
// before, for at most 3 s.
func settle(pid int, rss float64) float64 {
	for range 30 {
		time.Sleep(100 * time.Millisecond)
		now, _ := memory(pid)
		if now >= rss {
			return now
		}
		rss = now
	}
	return rss
}

// memory is the VmRSS and VmHWM of pid and its descendants, in MB:
// Gemini CLI runs in a child node process it starts with a larger heap.
func memory(pid int) (rss, peak float64) {
	for _, p := range tree(pid) {
		r, k := memoryOf(p)
		rss, peak = rss+r, peak+k
	}
	return rss, peak
}

// tree is pid and its descendants.
func tree(pid int) []int {
	children := map[int][]int{}
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		// The parent is the second field after the command's ")".
		if i := strings.LastIndexByte(string(b), ')'); i >= 0 {
			if f := strings.Fields(string(b[i+1:])); len(f) > 1 {
				pp, _ := strconv.Atoi(f[1])
				children[pp] = append(children[pp], p)
			}
		}
	}
	all := []int{pid}
	for i := 0; i < len(all); i++ {
		all = append(all, children[all[i]]...)
	}
	return all
}

// memoryOf reads VmRSS and VmHWM of pid, in MB.
func memoryOf(pid int) (rss, peak float64) {
	b, _ := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	for l := range strings.SplitSeq(string(b), "\n") {
		f := strings.Fields(l)
		if len(f) < 2 {
			continue
		}
		kb, _ := strconv.ParseFloat(f[1], 64)
		switch f[0] {
		case "VmRSS:":
			rss = kb / 1024
		case "VmHWM:":
			peak = kb / 1024
		}
	}
	return rss, peak
}

// usageField is a reply's fixed usage numbers, left out under -real-usage.
var usageField = regexp.MustCompile(`,"usageMetadata":\{[^}]*\}`)

// writeScript writes n turns: a read_file call, then a text answer of
// about size bytes in a few chunks, each answer different; each turn
// starts with the auto router's classifier call when router is set. The
// streamed replies carry fixed usage numbers unless realUsage is set.
func writeScript(path string, n, size int, router, realUsage bool) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	call := `{"method":"generateContentStream","response":[{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"read_file","args":{"file_path":"notes.txt"}}}]},"finishReason":"STOP","index":0}],"usageMetadata":{"promptTokenCount":2000,"candidatesTokenCount":20,"totalTokenCount":2020}}]}` + "\n"
	if realUsage {
		call = usageField.ReplaceAllString(call, "")
	}
	// The auto router asks a classifier once per prompt, a unary call.
	classify := `{"method":"generateContent","response":{"candidates":[{"content":{"role":"model","parts":[{"text":"{\"complexity_reasoning\":\"a simple read\",\"complexity_score\":10}"}]},"finishReason":"STOP","index":0}]}}` + "\n"
	for i := range n {
		if router {
			w.WriteString(classify)
		}
		w.WriteString(call)
		var text strings.Builder
		for j := 0; text.Len() < size; j++ {
			fmt.Fprintf(&text, "Paragraph %d of answer %d: the notes describe the project's layout, its tests and how each package is built and checked. ", j, i)
			if j%4 == 3 {
				text.WriteString("\n\n")
			}
		}
		fmt.Fprintf(&text, "END-OF-ANSWER-%d.", i+1)
		t := text.String()
		var chunks []string
		const pieces = 8
		for k := range pieces {
			piece := t[k*len(t)/pieces : (k+1)*len(t)/pieces]
			b, _ := json.Marshal(piece)
			last := ""
			if k == pieces-1 {
				last = `,"finishReason":"STOP"`
			}
			chunks = append(chunks, fmt.Sprintf(`{"candidates":[{"content":{"role":"model","parts":[{"text":%s}]},"index":0%s}],"usageMetadata":{"promptTokenCount":2000,"candidatesTokenCount":1500,"totalTokenCount":3500}}`, b, last))
		}
		line := fmt.Sprintf(`{"method":"generateContentStream","response":[%s]}`+"\n", strings.Join(chunks, ","))
		if realUsage {
			line = usageField.ReplaceAllString(line, "")
		}
		w.WriteString(line)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// session is castor, or Gemini CLI, running one face.
type session interface {
	// turn sends the prompt and returns once its answer ended, with an
	// error unless the answer was the script's for this turn.
	turn(prompt string) error
	// pid is the process whose tree is measured (0: none running).
	pid() int
	close()
}

// measured is a session that runs a process per turn: its memory is that
// of the last turn's process over its life.
type measured interface {
	lastMemory() (rss, peak float64)
	// note is a word about the state the next process starts from.
	note() string
}

// errStop ends a run early on purpose (not a failed turn).
type errStop string

func (e errStop) Error() string { return string(e) }

// marker is the text the script's answer of turn n ends with.
func marker(n int) string { return fmt.Sprintf("END-OF-ANSWER-%d.", n) }

type proc struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func start(c config, ws string, env []string, args ...string) (*proc, error) {
	cmd := exec.Command(c.bin(), args...)
	cmd.Dir = ws
	cmd.Env = env
	cmd.Stderr = os.Stderr
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
	return &proc{cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}, nil
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) close() {
	p.in.Close()
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

// readJSON reads the next JSON line.
func (p *proc) readJSON() (map[string]any, error) {
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			return nil, err
		}
		var m map[string]any
		if json.Unmarshal(line, &m) == nil {
			return m, nil
		}
	}
}

type streamJSON struct {
	*proc
	n int
}

func startStreamJSON(c config, ws string, env []string) (session, error) {
	p, err := start(c, ws, env, append(c.modelArgs(), "-o", "stream-json", "--input-format", "stream-json")...)
	return &streamJSON{proc: p}, err
}

func (s *streamJSON) turn(prompt string) error {
	s.n++
	b, _ := json.Marshal(map[string]any{"type": "user", "message": map[string]any{"role": "user", "content": prompt}})
	if _, err := s.in.Write(append(b, '\n')); err != nil {
		return err
	}
	var text strings.Builder
	for {
		m, err := s.readJSON()
		if err != nil {
			return err
		}
		if m["type"] == "result" {
			return checkResult(m, text.String(), s.n)
		}
		assistantText(m, &text)
	}
}

// assistantText adds the text of a stream-json assistant message to b.
func assistantText(m map[string]any, b *strings.Builder) {
	if m["type"] == "message" && m["role"] == "assistant" {
		t, _ := m["content"].(string)
		b.WriteString(t)
	}
}

// checkResult is nil when a stream-json turn ended well with the
// script's answer n.
func checkResult(m map[string]any, text string, n int) error {
	if m["status"] != "success" {
		return fmt.Errorf("result %v", m)
	}
	if !strings.Contains(text, marker(n)) {
		return fmt.Errorf("the answer lacks %s: %.200q", marker(n), text)
	}
	return nil
}

// resumeRuns is Gemini CLI 0.61's nearest to a stream-json session, which
// it does not have (no --input-format): a process per prompt, `-p PROMPT
// -o stream-json`, each after the first resuming the session before it
// (`--resume latest`), so each loads the whole history.
type resumeRuns struct {
	c   config
	ws  string
	env []string
	n   int
	// chats holds 0.61's session files; disk is their size after a turn.
	chats string
	disk  float64

	mu        sync.Mutex
	cur       *exec.Cmd
	rss, peak float64
}

func (r *resumeRuns) turn(prompt string) error {
	r.n++
	args := []string{"-p", prompt, "-o", "stream-json"}
	if r.n > 1 {
		args = append(args, "--resume", "latest")
	}
	cmd := exec.Command(r.c.bin(), append(args, r.c.modelArgs()...)...)
	cmd.Dir, cmd.Env, cmd.Stderr = r.ws, r.env, os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return err
	}
	r.mu.Lock()
	r.cur = cmd
	r.mu.Unlock()
	// The process's memory over its life: the largest sum of its tree's
	// RSS seen, and the sum of each process's peak.
	stop := make(chan struct{})
	sampled := make(chan [2]float64)
	go func() {
		var top float64
		peaks := map[int]float64{}
		tick := time.NewTicker(50 * time.Millisecond)
		defer tick.Stop()
		for {
			var sum float64
			for _, p := range tree(cmd.Process.Pid) {
				rss, hwm := memoryOf(p)
				sum += rss
				peaks[p] = max(peaks[p], hwm)
			}
			top = max(top, sum)
			select {
			case <-stop:
				var peak float64
				for _, v := range peaks {
					peak += v
				}
				sampled <- [2]float64{top, peak}
				return
			case <-tick.C:
			}
		}
	}()
	var text strings.Builder
	var result map[string]any
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	for sc.Scan() {
		var m map[string]any
		if json.Unmarshal(sc.Bytes(), &m) != nil {
			continue
		}
		if m["type"] == "result" {
			result = m
		}
		assistantText(m, &text)
	}
	close(stop)
	mem := <-sampled
	werr := cmd.Wait()
	r.mu.Lock()
	r.cur, r.rss, r.peak = nil, mem[0], mem[1]
	r.mu.Unlock()
	if result == nil {
		return fmt.Errorf("no result event (%v)", werr)
	}
	if err := checkResult(result, text.String(), r.n); err != nil {
		return err
	}
	r.disk = dirMB(r.chats)
	if r.c.maxDiskMB > 0 && r.disk > r.c.maxDiskMB {
		return errStop(fmt.Sprintf("0.61's session files hold %.0f MB after turn %d, over -max-disk-mb %.0f", r.disk, r.n, r.c.maxDiskMB))
	}
	return nil
}

func (r *resumeRuns) note() string { return fmt.Sprintf("session files %.0f MB", r.disk) }

// dirMB is the size of the files under dir, in MB.
func dirMB(dir string) float64 {
	var n int64
	filepath.WalkDir(dir, func(_ string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if fi, err := d.Info(); err == nil {
				n += fi.Size()
			}
		}
		return nil
	})
	return float64(n) / (1 << 20)
}

func (r *resumeRuns) lastMemory() (rss, peak float64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.rss, r.peak
}

func (r *resumeRuns) pid() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur == nil || r.cur.Process == nil {
		return 0
	}
	return r.cur.Process.Pid
}

func (r *resumeRuns) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cur != nil && r.cur.Process != nil {
		for _, p := range tree(r.cur.Process.Pid) {
			if pr, err := os.FindProcess(p); err == nil {
				_ = pr.Kill()
			}
		}
	}
}

type acp struct {
	*proc
	id      int
	session string
	n       int
	// text is the answer of the turn under way.
	text strings.Builder
}

func startACP(c config, ws string, env []string) (session, error) {
	// 0.61's flag is --acp too (--experimental-acp is its deprecated
	// alias).
	p, err := start(c, ws, env, append(c.modelArgs(), "--acp")...)
	if err != nil {
		return nil, err
	}
	a := &acp{proc: p}
	if _, err := a.call("initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": map[string]any{}}); err != nil {
		return nil, err
	}
	res, err := a.call("session/new", map[string]any{"cwd": ws, "mcpServers": []any{}})
	if err != nil {
		return nil, err
	}
	a.session, _ = res["sessionId"].(string)
	return a, nil
}

// call sends a request and reads until its response, answering
// permission requests with the first option that allows.
func (a *acp) call(method string, params any) (map[string]any, error) {
	a.id++
	b, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": a.id, "method": method, "params": params})
	if _, err := a.in.Write(append(b, '\n')); err != nil {
		return nil, err
	}
	for {
		m, err := a.readJSON()
		if err != nil {
			return nil, err
		}
		if m["method"] == "session/update" {
			if p, ok := m["params"].(map[string]any); ok {
				if u, ok := p["update"].(map[string]any); ok && u["sessionUpdate"] == "agent_message_chunk" {
					if ct, ok := u["content"].(map[string]any); ok {
						t, _ := ct["text"].(string)
						a.text.WriteString(t)
					}
				}
			}
			continue
		}
		if m["method"] == "session/request_permission" {
			opt := "proceed_once"
			if p, ok := m["params"].(map[string]any); ok {
				if opts, ok := p["options"].([]any); ok && len(opts) > 0 {
					opt, _ = opts[0].(map[string]any)["optionId"].(string)
				}
			}
			r, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m["id"], "result": map[string]any{"outcome": map[string]any{"outcome": "selected", "optionId": opt}}})
			a.in.Write(append(r, '\n'))
			continue
		}
		if id, ok := m["id"].(float64); ok && int(id) == a.id && m["method"] == nil {
			if e, ok := m["error"]; ok {
				return nil, fmt.Errorf("%s: %v", method, e)
			}
			res, _ := m["result"].(map[string]any)
			return res, nil
		}
	}
}

func (a *acp) turn(prompt string) error {
	a.n++
	a.text.Reset()
	res, err := a.call("session/prompt", map[string]any{"sessionId": a.session, "prompt": []any{map[string]any{"type": "text", "text": prompt}}})
	if err != nil {
		return err
	}
	if res["stopReason"] != "end_turn" {
		return fmt.Errorf("stopReason %v", res["stopReason"])
	}
	if !strings.Contains(a.text.String(), marker(a.n)) {
		return fmt.Errorf("the answer lacks %s: %.200q", marker(a.n), a.text.String())
	}
	return nil
}

// tui is the interactive terminal in a tmux pane of its own server.
type tui struct {
	sock string
	pidv int
	n    int
	// timeout bounds a wait.
	timeout time.Duration
	// settle: Gemini CLI takes keys typed quickly as a paste, and an
	// Enter inside it as a new line; the prompt must be on screen first.
	settle bool
}

func startTUI(c config, ws string, env []string) (session, error) {
	sock := filepath.Join(c.dir, "tmux.sock")
	cmd := "cd '" + ws + "' && exec env -i TERM=xterm-256color"
	for _, kv := range env {
		cmd += " '" + kv + "'"
	}
	bin, ready := c.castor, func(s string) bool { return strings.Contains(s, "context left") && !strings.Contains(s, "starting") }
	if c.gemini != "" {
		bin, ready = c.gemini, func(s string) bool {
			return strings.Contains(s, "Type your message") && strings.Contains(s, "no sandbox")
		}
	}
	cmd += " '" + bin + "'"
	for _, a := range c.modelArgs() {
		cmd += " '" + a + "'"
	}
	t := &tui{sock: sock, settle: c.gemini != "", timeout: c.turnTimeout}
	if _, err := t.tmux("-f", "/dev/null", "new-session", "-d", "-s", "ls", "-x", "120", "-y", "40", cmd); err != nil {
		return nil, err
	}
	out, err := t.tmux("list-panes", "-t", "ls", "-F", "#{pane_pid}")
	if err != nil {
		return nil, err
	}
	if t.pidv, err = strconv.Atoi(strings.TrimSpace(out)); err != nil {
		return nil, fmt.Errorf("pane pid %q", out)
	}
	return t, t.wait(ready)
}

func (t *tui) tmux(args ...string) (string, error) {
	out, err := exec.Command("tmux", append([]string{"-S", t.sock}, args...)...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("tmux %v: %v: %s", args, err, out)
	}
	return string(out), nil
}

// wait polls the pane until ok holds, for at most t.timeout: every 20 ms,
// then every 250 ms after 5 s (a slow turn of Gemini CLI would otherwise
// spend a core on tmux).
func (t *tui) wait(ok func(string) bool) error {
	begin := time.Now()
	for deadline := begin.Add(t.timeout); time.Now().Before(deadline); {
		s, err := t.tmux("capture-pane", "-p", "-t", "ls")
		if err != nil {
			return err
		}
		if ok(s) {
			return nil
		}
		if time.Since(begin) < 5*time.Second {
			time.Sleep(20 * time.Millisecond)
		} else {
			time.Sleep(250 * time.Millisecond)
		}
	}
	s, _ := t.tmux("capture-pane", "-p", "-t", "ls")
	return fmt.Errorf("the terminal never got there:\n%s", s)
}

func (t *tui) turn(prompt string) error {
	t.n++
	if _, err := t.tmux("send-keys", "-t", "ls", "-l", prompt); err != nil {
		return err
	}
	if t.settle {
		if err := t.wait(func(s string) bool { return strings.Contains(s, prompt) }); err != nil {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := t.tmux("send-keys", "-t", "ls", "Enter"); err != nil {
		return err
	}
	end := marker(t.n)
	return t.wait(func(s string) bool { return strings.Contains(s, end) && !strings.Contains(s, "esc to cancel") })
}

func (t *tui) pid() int { return t.pidv }

// close ends the pane and what runs in it: Gemini CLI's child node
// process outlives the pane's hangup.
func (t *tui) close() {
	pids := tree(t.pidv)
	_, _ = t.tmux("kill-server")
	for _, p := range pids {
		if pr, err := os.FindProcess(p); err == nil {
			_ = pr.Kill()
		}
	}
}

// logRequests serves a proxy to the fake at target on 127.0.0.1 and
// returns its URL: each call's path, body size and number of contents go
// to w, so a run shows what the face sent (how many calls a turn, whether
// the history is whole). Answers stream through unbuffered.
func logRequests(target string, w io.Writer) (string, error) {
	u, err := neturl.Parse(target)
	if err != nil {
		return "", err
	}
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.FlushInterval = -1
	var mu sync.Mutex
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go http.Serve(ln, http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		var req struct {
			Contents []json.RawMessage `json:"contents"`
		}
		_ = json.Unmarshal(body, &req)
		mu.Lock()
		fmt.Fprintf(w, "%s bytes=%d contents=%d\n", r.URL.Path, len(body), len(req.Contents))
		mu.Unlock()
		proxy.ServeHTTP(rw, r)
	}))
	return "http://" + ln.Addr().String(), nil
}
