//go:build unix

package builtin

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/castor-dev/castor/tool"
)

// pgidRE finds the process group line, whose number changes every run.
var pgidRE = regexp.MustCompile(`Process Group PGID: \d+`)

func TestShellResult(t *testing.T) {
	env, ws := fsTestEnv(t)
	fsWrite(t, ws, "sub/file.txt", "x")
	tests := []struct {
		name    string
		args    map[string]any
		want    string // with PGID replaced by N
		display string
		errType tool.ErrorType
	}{
		{"echo", map[string]any{"command": "echo hi"},
			"Command: echo hi\nDirectory: (root)\nOutput: <untrusted_context>\nhi\n</untrusted_context>\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: N", "hi", ""},
		{"exit code and stderr merged", map[string]any{"command": "echo out; echo err >&2; exit 3"},
			"Command: echo out; echo err >&2; exit 3\nDirectory: (root)\nOutput: <untrusted_context>\nout\nerr\n</untrusted_context>\nError: (none)\nExit Code: 3\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: N", "out\nerr", ""},
		{"no output", map[string]any{"command": "true"},
			"Command: true\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: N", "", ""},
		{"failure without output", map[string]any{"command": "exit 7"},
			"Command: exit 7\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: 7\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: N", "Command exited with code: 7", ""},
		{"killed by a signal", map[string]any{"command": "kill -TERM $$"},
			"Command: kill -TERM $$\nDirectory: (root)\nOutput: (empty)\nError: (none)\nExit Code: (none)\nSignal: 15\nBackground PIDs: (none)\nProcess Group PGID: N", "Command terminated by signal: 15", ""},
		{"directory", map[string]any{"command": "pwd; ls", "directory": "sub"},
			"Command: pwd; ls\nDirectory: sub\nOutput: <untrusted_context>\n" + filepath.Join(ws, "sub") + "\nfile.txt\n</untrusted_context>\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: N", "", ""},
		{"dir_path spelling", map[string]any{"command": "ls", "dir_path": "sub"},
			"Command: ls\nDirectory: sub\nOutput: <untrusted_context>\nfile.txt\n</untrusted_context>\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: N", "file.txt", ""},
		{"environment", map[string]any{"command": `echo "$GEMINI_CLI $CASTOR $PAGER"`},
			"Command: echo \"$GEMINI_CLI $CASTOR $PAGER\"\nDirectory: (root)\nOutput: <untrusted_context>\n1 1 cat\n</untrusted_context>\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: N", "1 1 cat", ""},
		{"ansi stripped and trimmed", map[string]any{"command": `printf '\n  \033[31mred\033[0m  \n\n'`},
			"Command: printf '\\n  \\033[31mred\\033[0m  \\n\\n'\nDirectory: (root)\nOutput: <untrusted_context>\nred\n</untrusted_context>\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: N", "red", ""},
		{"bash -c wrapper stripped", map[string]any{"command": `bash -c "echo wrapped"`},
			"Command: bash -c \"echo wrapped\"\nDirectory: (root)\nOutput: <untrusted_context>\nwrapped\n</untrusted_context>\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: N", "wrapped", ""},
		{"single-quoted substitution is literal", map[string]any{"command": `echo '$(date)'`},
			"Command: echo '$(date)'\nDirectory: (root)\nOutput: <untrusted_context>\n$(date)\n</untrusted_context>\nError: (none)\nExit Code: 0\nSignal: (none)\nBackground PIDs: (none)\nProcess Group PGID: N", "$(date)", ""},
		{"command substitution blocked", map[string]any{"command": `echo "$(touch ` + filepath.Join(ws, "pwned") + `)"`},
			commandSubstitutionBlocked, "Blocked: command substitution detected in shell command.", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := fsRun(t, NewShell(env), tt.args)
			if got := pgidRE.ReplaceAllString(r.LLMText, "Process Group PGID: N"); got != tt.want {
				t.Errorf("llmContent\n%s\nwant\n%s", got, tt.want)
			}
			if tt.display != "" && r.Display != tt.display {
				t.Errorf("display %q, want %q", r.Display, tt.display)
			}
			if (r.Error != nil) != (tt.errType != "") {
				t.Errorf("error %+v", r.Error)
			}
		})
	}
	if _, err := os.Stat(filepath.Join(ws, "pwned")); err == nil {
		t.Error("a blocked command substitution ran")
	}
}

func TestShellGolden(t *testing.T) {
	env, _ := fsTestEnv(t)
	r := fsRun(t, NewShell(env), map[string]any{"command": "printf 'a\\nb\\n'; echo warn >&2; exit 1", "description": "multi-line"})
	fsGolden(t, "shell/result.golden", pgidRE.ReplaceAllString(r.LLMText, "Process Group PGID: N"))
}

func TestShellBuildErrors(t *testing.T) {
	env, ws := fsTestEnv(t)
	fsWrite(t, ws, "f.txt", "x")
	outside := fsTempDir(t)
	if err := os.Symlink(outside, filepath.Join(ws, "out")); err != nil {
		t.Fatal(err)
	}
	notInWS := func(p string) string { return fsNotInWorkspace(env, p) }
	tests := []struct {
		name string
		args map[string]any
		typ  tool.ErrorType
		msg  string
	}{
		{"missing command", map[string]any{}, tool.ErrInvalidParams, "params must have required property 'command'"},
		{"blank command", map[string]any{"command": "  "}, tool.ErrInvalidParams, "Command cannot be empty."},
		{"missing directory", map[string]any{"command": "ls", "directory": "nope"}, tool.ErrInvalidParams, "Directory must exist."},
		{"file as directory", map[string]any{"command": "ls", "directory": "f.txt"}, tool.ErrInvalidParams, "Directory must exist."},
		{"dot-dot", map[string]any{"command": "ls", "directory": ".."}, tool.ErrPathNotInWorkspace, notInWS(filepath.Dir(ws))},
		{"absolute outside", map[string]any{"command": "ls", "dir_path": outside}, tool.ErrPathNotInWorkspace, notInWS(outside)},
		{"symlink outside", map[string]any{"command": "ls", "directory": "out"}, tool.ErrPathNotInWorkspace, notInWS(filepath.Join(ws, "out"))},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := fsPrepare(NewShell(env), "", tt.args)
			if err == nil || err.Type != tt.typ || err.Message != tt.msg {
				t.Errorf("got %+v\nwant %s %q", err, tt.typ, tt.msg)
			}
		})
	}
}

// pidAlive reports whether pid exists and is not a zombie.
func pidAlive(pid int) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return syscall.Kill(pid, 0) == nil
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	return len(f) > 0 && f[0] != "Z" && f[0] != "X"
}

// waitGone waits (boundedly) until none of pids is alive and reports the
// ones still alive. The bound only keeps a broken kill from hanging the
// test; no assertion depends on how fast processes die.
func waitGone(pids []int) []int {
	deadline := time.Now().Add(20 * time.Second)
	for {
		var alive []int
		for _, p := range pids {
			if pidAlive(p) {
				alive = append(alive, p)
			}
		}
		if len(alive) == 0 || time.Now().After(deadline) {
			return alive
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func TestShellBackgroundPIDs(t *testing.T) {
	env, _ := fsTestEnv(t)
	r := fsRun(t, NewShell(env), map[string]any{"command": "sleep 60 & sleep 61 & echo started"})
	m := regexp.MustCompile(`Background PIDs: ([\d, ]+)\n`).FindStringSubmatch(r.LLMText)
	if m == nil {
		t.Fatalf("no background PIDs in\n%s", r.LLMText)
	}
	var pids []int
	for _, f := range strings.Split(m[1], ", ") {
		n, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("bad pid %q", f)
		}
		pids = append(pids, n)
	}
	defer func() {
		for _, p := range pids {
			syscall.Kill(p, syscall.SIGKILL)
		}
	}()
	if len(pids) != 2 {
		t.Errorf("want 2 background PIDs, got %v", pids)
	}
	if !strings.Contains(r.LLMText, "Output: <untrusted_context>\nstarted\n</untrusted_context>\n") || !strings.Contains(r.LLMText, "Exit Code: 0\n") {
		t.Errorf("llmContent\n%s", r.LLMText)
	}
	pg := regexp.MustCompile(`Process Group PGID: (\d+)`).FindStringSubmatch(r.LLMText)
	for _, p := range pids {
		if !pidAlive(p) {
			t.Errorf("background process %d not running", p)
		}
		if g, _ := syscall.Getpgid(p); strconv.Itoa(g) != pg[1] {
			t.Errorf("process %d in group %d, want %s", p, g, pg[1])
		}
	}
}

func TestShellCancelKillsGroup(t *testing.T) {
	env, _ := fsTestEnv(t)
	c, err := fsPrepare(NewShell(env), "", map[string]any{"command": "echo begun; sleep 100 & sleep 100"})
	if err != nil {
		t.Fatal(err.Message)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var mu sync.Mutex
	var live []string
	out := func(s string) {
		mu.Lock()
		defer mu.Unlock()
		live = append(live, s)
		if strings.Contains(s, "begun") {
			cancel()
		}
	}
	done := make(chan *tool.Result)
	go func() { done <- c.Execute(ctx, out) }()

	// Learn the group's members while they run, then cancel (the live
	// output callback cancels too, once the first line arrived).
	var pids []int
	for pids == nil {
		select {
		case r := <-done:
			t.Fatalf("finished before cancel: %s", r.LLMText)
		default:
		}
		pids = sleepPIDs()
		if len(pids) < 2 {
			pids = nil
			time.Sleep(10 * time.Millisecond)
		}
	}
	cancel()
	r := <-done
	want := "Command was cancelled by user before it could complete. Below is the output before it was cancelled:\n<untrusted_context>\nbegun\n</untrusted_context>"
	if r.LLMText != want {
		t.Errorf("llmContent %q, want %q", r.LLMText, want)
	}
	if r.Error == nil || r.Error.Type != tool.ErrCancelled {
		t.Errorf("error %+v, want a cancellation", r.Error)
	}
	if alive := waitGone(pids); len(alive) > 0 {
		for _, p := range alive {
			syscall.Kill(p, syscall.SIGKILL)
		}
		t.Errorf("processes %v survived the cancellation", alive)
	}
}

// sleepPIDs lists "sleep 100" processes that are children of this test's
// shells (their parent's group leader is in our session of tests).
func sleepPIDs() []int {
	entries, _ := os.ReadDir("/proc")
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if string(cmdline) != "sleep\x00100\x00" {
			continue
		}
		// Only processes whose group leader is a child of this test binary.
		g, err := syscall.Getpgid(pid)
		if err != nil {
			continue
		}
		stat, _ := os.ReadFile("/proc/" + strconv.Itoa(g) + "/stat")
		s := string(stat)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
				pids = append(pids, pid)
			}
		}
	}
	return pids
}

func TestShellCancelledBeforeStart(t *testing.T) {
	env, _ := fsTestEnv(t)
	c, _ := fsPrepare(NewShell(env), "", map[string]any{"command": "echo no"})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	r := c.Execute(ctx, nil)
	if r.LLMText != "Command was cancelled by user before it could start." || r.Error == nil || r.Error.Type != tool.ErrCancelled {
		t.Errorf("got %q %+v", r.LLMText, r.Error)
	}
}

func TestShellInactivityTimeout(t *testing.T) {
	env, _ := fsTestEnv(t)
	env.ShellTimeout = 300 * time.Millisecond
	r := fsRun(t, NewShell(env), map[string]any{"command": "echo first; sleep 30"})
	// On a loaded machine the timeout may fire before "first" arrives; both
	// endings are Gemini CLI's.
	head := "Command was automatically cancelled because it exceeded the timeout of 0.0 minutes without output."
	if r.LLMText != head+" Below is the output before it was cancelled:\n<untrusted_context>\nfirst\n</untrusted_context>" && r.LLMText != head+" There was no output before it was cancelled." {
		t.Errorf("llmContent %q", r.LLMText)
	}
	if r.Error != nil {
		t.Errorf("a timeout is reported as output, got error %+v", r.Error)
	}
	env.ShellTimeout = 90 * time.Second
	c, _ := fsPrepare(NewShell(env), "", map[string]any{"command": "true"})
	if got := c.(*shellCall).result(shellResult{timedOut: true}).LLMText; got != "Command was automatically cancelled because it exceeded the timeout of 1.5 minutes without output. There was no output before it was cancelled." {
		t.Errorf("timeout text %q", got)
	}
}

func TestShellTruncation(t *testing.T) {
	env, _ := fsTestEnv(t)
	env.OutputLimit = 200
	r := fsRun(t, NewShell(env), map[string]any{"command": "seq 1 500"})
	m := regexp.MustCompile(`^Output too large\. Showing first 40 and last 160 characters\. For full output see: (\S+)\n`).FindStringSubmatch(r.LLMText)
	if m == nil {
		t.Fatalf("llmContent not truncated as expected:\n%s", r.LLMText)
	}
	file := m[1]
	if !strings.HasPrefix(file, filepath.Join(env.TempDir, "tool-outputs")+string(filepath.Separator)) {
		t.Errorf("saved under %s, want under the project temp dir", file)
	}
	full := fsRead(t, file)
	if !strings.HasPrefix(full, "Command: seq 1 500\nDirectory: (root)\nOutput: <untrusted_context>\n1\n2\n") || !strings.Contains(full, "\n500\n</untrusted_context>\nError: (none)") {
		t.Errorf("saved output incomplete:\n%.200s", full)
	}
	omitted := len(full) - 200
	if m := regexp.MustCompile(`\n\n\.\.\. \[([0-9,]+) characters omitted\] \.\.\.\n\n`).FindStringSubmatch(r.LLMText); m == nil || strings.ReplaceAll(m[1], ",", "") != strconv.Itoa(omitted) {
		t.Errorf("omission marker for %d characters missing:\n%s", omitted, r.LLMText)
	}
	if !strings.HasSuffix(r.LLMText, full[len(full)-160:]) {
		t.Error("tail not kept")
	}
	// The model may read the saved file back: it is inside the temp dir.
	rr := fsRun(t, NewReadFile(env), map[string]any{"absolute_path": file})
	if rr.Error != nil {
		t.Errorf("saved output not readable with read_file: %s", rr.Error.Message)
	}
}

func TestShellLiveOutput(t *testing.T) {
	env, _ := fsTestEnv(t)
	var mu sync.Mutex
	var got []string
	c, _ := fsPrepare(NewShell(env), "", map[string]any{"command": "echo one; echo two"})
	r := c.Execute(context.Background(), func(s string) {
		mu.Lock()
		defer mu.Unlock()
		got = append(got, s)
	})
	if r.Error != nil {
		t.Fatal(r.Error.Message)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) == 0 {
		t.Fatal("live output callback never called")
	}
	if last := got[len(got)-1]; last != "one\ntwo" {
		t.Errorf("last live output %q, want the whole output", last)
	}
}

func TestShellBinaryOutput(t *testing.T) {
	env, _ := fsTestEnv(t)
	var got []string
	c, _ := fsPrepare(NewShell(env), "", map[string]any{"command": `printf 'a\000b'`})
	r := c.Execute(context.Background(), func(s string) { got = append(got, s) })
	if !strings.Contains(r.LLMText, "Output: (empty)\n") {
		t.Errorf("binary output given to the model:\n%s", r.LLMText)
	}
	if len(got) == 0 || got[len(got)-1] != "[Binary output detected. Halting stream...]" {
		t.Errorf("live output %q", got)
	}
}

func TestShellIsBackground(t *testing.T) {
	env, _ := fsTestEnv(t)
	r := fsRun(t, NewShell(env), map[string]any{"command": "sleep 60", "is_background": true})
	m := regexp.MustCompile(`^Command moved to background \(PID: (\d+)\)\. Output hidden\. Press Ctrl\+B to view\.$`).FindStringSubmatch(r.LLMText)
	if m == nil {
		t.Fatalf("llmContent %q", r.LLMText)
	}
	pid, _ := strconv.Atoi(m[1])
	defer syscall.Kill(-pid, syscall.SIGKILL)
	if !pidAlive(pid) {
		t.Error("background command not running")
	}

	// A background command that fails at once is reported like any other
	// (the grace period is long here so that a slow machine cannot turn
	// "at once" into "later").
	r = fsRun(t, &shellTool{env: env, backgroundDelay: time.Minute}, map[string]any{"command": "echo nope; exit 4", "is_background": true})
	if !strings.Contains(r.LLMText, "Output: <untrusted_context>\nnope\n</untrusted_context>\n") || !strings.Contains(r.LLMText, "Exit Code: 4\n") {
		t.Errorf("llmContent\n%s", r.LLMText)
	}
}

func TestShellConfirmation(t *testing.T) {
	env, _ := fsTestEnv(t)
	tests := []struct {
		command string
		root    string
		roots   []string
	}{
		{"ls -la", "ls", []string{"ls"}},
		{"git status && npm test | tee out.log; (cd x && make)", "git, npm, tee, cd, make", []string{"git", "npm", "tee", "cd", "make"}},
		{"/usr/bin/git log", "git", []string{"git"}},
		{"FOO=1 go test ./... || go vet", "go, go", []string{"go"}},
		{`"quoted" arg`, "quoted", []string{"quoted"}},
		{"for f in *; do wc -l $f; done", "wc", []string{"wc"}},
		{"if [ -f x ]; then rm x; fi", "[, rm", []string{"[", "rm"}},
		{"echo 'unterminated", "echo", []string{"echo"}},
	}
	for _, tt := range tests {
		t.Run(tt.command, func(t *testing.T) {
			c, err := fsPrepare(NewShell(env), "", map[string]any{"command": tt.command})
			if err != nil {
				t.Fatal(err.Message)
			}
			d, _ := c.Confirmation(context.Background())
			if d == nil || d.Type != tool.ConfirmExec || d.Title != "Confirm Shell Command" || d.Command != tt.command {
				t.Fatalf("confirmation %+v", d)
			}
			if d.RootCommand != tt.root || strings.Join(d.RootCommands, ",") != strings.Join(tt.roots, ",") {
				t.Errorf("root %q roots %v, want %q %v", d.RootCommand, d.RootCommands, tt.root, tt.roots)
			}
		})
	}
	c, _ := fsPrepare(NewShell(env), "", map[string]any{"command": "echo `id`"})
	if d, _ := c.Confirmation(context.Background()); d != nil {
		t.Error("a command that will be blocked asks for confirmation")
	}
	c, _ = fsPrepare(NewShell(env), "", map[string]any{"command": "make", "description": "Build\nit", "dir_path": ".", "is_background": true})
	if got := c.Describe(); got != "make [in .] (Build it) [background]" {
		t.Errorf("Describe %q", got)
	}
}

func TestDetectCommandSubstitution(t *testing.T) {
	tests := map[string]bool{
		"echo $(date)":            true,
		"echo `date`":             true,
		`echo "$(date)"`:          true,
		`echo "` + "`date`" + `"`: true,
		"echo '$(date)'":          false,
		"echo '`date`'":           false,
		`echo \$(date)`:           false,
		"echo \\`date\\`":         false,
		`echo "\$(date)"`:         false,
		"diff <(ls a) <(ls b)":    true,
		"tee >(cat)":              true,
		`echo "<(not)"`:           false,
		"echo $((1+2))":           true, // arithmetic starts with $( too, as in Gemini CLI
		"echo ${HOME} $HOME":      false,
		"cat <<EOF\nplain\nEOF":   false,
		`echo "it's" '"' $(x)`:    true,
		"a && b || c; d | e > f":  false,
	}
	for cmd, want := range tests {
		if got := detectCommandSubstitution(cmd); got != want {
			t.Errorf("detectCommandSubstitution(%q) = %v, want %v", cmd, got, want)
		}
	}
}

func TestStripShellWrapper(t *testing.T) {
	tests := map[string]string{
		`bash -c "ls -la"`: "ls -la",
		`sh -c 'echo hi'`:  "echo hi",
		"  zsh -c make  ":  "make",
		"bashful thing":    "bashful thing",
		"  ls  ":           "ls",
	}
	for in, want := range tests {
		if got := stripShellWrapper(in); got != want {
			t.Errorf("stripShellWrapper(%q) = %q, want %q", in, got, want)
		}
	}
}

// FuzzShellCommandAnalysis feeds arbitrary command lines to the parsers
// that decide confirmation and blocking: they must never panic, and a
// command without any "$(", "`", "<(" or ">(" is never blocked.
func FuzzShellCommandAnalysis(f *testing.F) {
	for _, s := range []string{"ls -la", "echo $(x)", "a | b && (c; d)", "echo 'x", `"a"b'c'`, "f() { g; }", "<(x)", "\\", "$'\\x24(x)'"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, cmd string) {
		blocked := detectCommandSubstitution(cmd)
		if blocked && !strings.Contains(cmd, "$(") && !strings.Contains(cmd, "`") && !strings.Contains(cmd, "<(") && !strings.Contains(cmd, ">(") {
			t.Errorf("blocked without substitution syntax: %q", cmd)
		}
		for _, r := range commandRoots(cmd) {
			if r == "" {
				t.Errorf("empty root command for %q", cmd)
			}
		}
		_ = stripShellWrapper(cmd)
	})
}

func TestShellTimeoutFromEnv(t *testing.T) {
	tests := []struct {
		env  time.Duration
		want time.Duration
	}{
		{0, 5 * time.Minute}, // Gemini CLI's default
		{90 * time.Second, 90 * time.Second},
		{-1, 0}, // no bound: runShell starts no timer
	}
	for _, tt := range tests {
		env, _ := fsTestEnv(t)
		env.ShellTimeout = tt.env
		c, _ := fsPrepare(NewShell(env), "", map[string]any{"command": "true"})
		if got := c.(*shellCall).timeout(); got != tt.want {
			t.Errorf("ShellTimeout %v: timeout %v, want %v", tt.env, got, tt.want)
		}
	}
}
