// Package e2etest runs the built castor command the way a user does, for
// the end-to-end tests under e2e/: it builds the binary once per test
// binary, gives every test an isolated user (a home, a workspace and the
// fake Gemini server), runs castor there, and opens it in a tmux terminal
// whose screen the test reads.
//
// Every e2e package has one TestMain that calls Main. Every process a test
// starts through this package ends with the test (t.Cleanup) and also
// when the test binary dies on go test's -timeout, which runs no cleanup:
// castor processes and tmux servers are started as children that the
// kernel signals when the test process goes (DieWithTest).
//
// A castor the test holds while it runs (a server, an ACP agent, a run it
// interrupts) is a Process (Env.Start): its stdout read line by line
// (Line, LineWhere, ListenURL), its stdin written (Send), signalled
// (Signal) and awaited (Wait, WantExit), each wait bounded by HangLimit.
//
// With CASTOR_E2E_COVERDIR set to a folder, the binary is built with
// -cover over the whole module and every castor process writes its
// coverage counters there (bench/coverage.sh reads them).
//
// Moving an end-to-end test written in internal/cli's old style
// (package cli_test, newEnv, e.run, r.code…) into e2e/<face>/:
//
//	git mv internal/cli/x_e2e_test.go e2e/<face>/what_it_checks_test.go
//
// then `sed -i -f internal/e2etest/adopt.sed` on it makes these renames:
// package <face>_test (FACE in the clause is left for you); newEnv → e2etest.New;
// *env → *e2etest.Env; e.srv/ws/home/tuiEnv/t → e.Srv/WS/Home/TUIEnv/T;
// e.run/write/environ/sessionFile → e.Run/Write/Environ/SessionFile;
// result and r.code/stdout/stderr → e2etest.Result and r.Code/Stdout/
// Stderr; e.startTUI → e.StartTUI and tm.waitFor/submit/keys/golden/
// screen → tm.WaitFor/Submit/Keys/Golden/Screen; e.startStream →
// e.StartStream (p.Until/Send/Close/All); castorBinary(t) →
// e2etest.Binary(t), and exec.Command(castorBinary(t), args...) →
// e2etest.Command(t, args...); mustJSON → e2etest.MustJSON;
// helperMCPServer → e2etest.HelperMCPServer. Methods a test file
// defined on env become functions taking the *e2etest.Env. Golden
// screens move to e2e/<face>/testdata/tui/. Independent tests start with
// t.Parallel() (each has its own home, ports and tmux server); a new
// e2e/<face> package needs only main_test.go with
// func TestMain(m *testing.M) { e2etest.Main(m) }.
package e2etest

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/castor-dev/castor/internal/proc/proctest"
)

// CoverDirEnv names the folder where a -cover build of castor writes its
// coverage data; unset, the binary is built without coverage.
const CoverDirEnv = "CASTOR_E2E_COVERDIR"

// The temporary folders of a test binary start with these prefixes and
// its pid, so that the next run can tell leftovers (removeLeftovers).
const (
	binDirPrefix  = "castor-e2e-"
	tmuxDirPrefix = "castor-tmux-"
)

// The castor binary is built once per test binary, by the first test that
// needs it, so that a run that skips every end-to-end test costs no build.
var (
	buildOnce sync.Once
	binDir    string
	binary    string // what tests run: the binary, or its coverage wrapper
	realBin   string // the built executable itself
	buildErr  error
)

// Main is the TestMain of every e2e package: it serves as the helper MCP
// server when the test binary is started as one (HelperMCPServer), runs
// the tests with more of them at once than there are cores (they mostly
// wait for castor, tmux and the fake server), and removes the built
// binary at the end.
func Main(m *testing.M) {
	if label := os.Getenv(mcpHelperEnv); label != "" {
		os.Exit(serveHelperMCP(label))
	}
	removeLeftovers()
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		_ = flag.Set("test.parallel", fmt.Sprint(max(4, 2*runtime.GOMAXPROCS(0))))
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// Binary returns the path of the built castor command, building it on
// first use.
func Binary(t testing.TB) string {
	t.Helper()
	build()
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binary
}

// Executable is the built castor executable itself, for tests that read
// its bytes; Binary is what they run (under coverage, a wrapper).
func Executable(t testing.TB) string {
	t.Helper()
	Binary(t)
	return realBin
}

func build() {
	buildOnce.Do(func() {
		binDir, buildErr = os.MkdirTemp("", fmt.Sprintf("%s%d-", binDirPrefix, os.Getpid()))
		if buildErr != nil {
			return
		}
		args := []string{"build"}
		cover := os.Getenv(CoverDirEnv)
		if cover != "" {
			args = append(args, "-cover", "-coverpkg=github.com/castor-dev/castor/...")
		}
		realBin = filepath.Join(binDir, "castor")
		if cover != "" {
			// The executable keeps its name (tests look for "castor"
			// processes); the wrapper sets GOCOVERDIR for every run,
			// whatever environment the test gives castor.
			realBin = filepath.Join(binDir, "cover", "castor")
		}
		args = append(args, "-o", realBin, "github.com/castor-dev/castor/cmd/castor")
		if out, err := exec.Command("go", args...).CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go %v: %v\n%s", args, err, out)
			return
		}
		binary = realBin
		if cover != "" {
			abs, err := filepath.Abs(cover)
			if err == nil {
				err = os.MkdirAll(abs, 0o755)
			}
			if err != nil {
				buildErr = err
				return
			}
			binary = filepath.Join(binDir, "castor")
			script := "#!/bin/sh\nGOCOVERDIR=" + shellQuote(abs) + " exec " + shellQuote(realBin) + ` "$@"` + "\n"
			buildErr = os.WriteFile(binary, []byte(script), 0o755)
		}
	})
}

// DieWithTest makes cmd end with the test binary, even on go test's
// timeout, which runs no cleanup (proctest.DieWithTest); it returns cmd.
func DieWithTest(cmd *exec.Cmd) *exec.Cmd { return proctest.DieWithTest(cmd) }

// Command is exec.Command of the built binary with args. A castor it
// starts is killed when the test ends (a test that fails half-way leaves
// none running), and with the test binary should that die
// (DieWithTest).
func Command(t testing.TB, args ...string) *exec.Cmd {
	t.Helper()
	cmd := DieWithTest(exec.Command(Binary(t), args...))
	t.Cleanup(func() {
		if cmd.Process != nil {
			// Harmless once it has exited: os.Process knows it did.
			_ = cmd.Process.Kill()
		}
	})
	return cmd
}
