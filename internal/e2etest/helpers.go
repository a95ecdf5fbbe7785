package e2etest

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/acp"
	"github.com/castor-dev/castor/internal/fakegemini"
	"google.golang.org/genai"
)

// FunctionResponse is the name and response of the functionResponse
// part i of c, which must be the user's.
func FunctionResponse(t *testing.T, c *genai.Content, i int) (string, map[string]any) {
	t.Helper()
	if c.Role != "user" || len(c.Parts) <= i || c.Parts[i].FunctionResponse == nil {
		t.Fatalf("want functionResponse at %d, got %s", i, MustJSON(c))
	}
	fr := c.Parts[i].FunctionResponse
	return fr.Name, fr.Response
}

// Readme is the README.md of the demo workspace of several tests.
const Readme = "# Demo project\n\nThis is the README of the demo project.\n"

// WriteFiles writes files (path relative to root → content).
func WriteFiles(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// ContentsText is every text part the request sent, joined.
func ContentsText(r *fakegemini.Request) string {
	var b strings.Builder
	for _, c := range r.Contents {
		for _, p := range c.Parts {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// LastUserText is the text of the request's last content.
func LastUserText(r *fakegemini.Request) string {
	c := r.LastContent()
	if c == nil {
		return ""
	}
	var b strings.Builder
	for _, p := range c.Parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// WriteAt writes the file p, making its folder.
func WriteAt(t *testing.T, p, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// WithReviewer gives e's user a "reviewer" subagent (read_file only) and
// the workspace a main.go for it to read.
func WithReviewer(t *testing.T, e *Env) {
	t.Helper()
	e.Write("main.go", "package main\n")
	WriteAt(t, filepath.Join(e.Home, ".gemini", "agents", "reviewer.md"),
		"---\nname: reviewer\ndescription: Reviews Go code.\ntools: [read_file]\n---\nReview: ${query}\n")
}

// WriteSettings writes v as ~/.gemini/settings.json of e.
func WriteSettings(t *testing.T, e *Env, v any) {
	t.Helper()
	raw, _ := json.Marshal(v)
	if err := os.MkdirAll(filepath.Join(e.Home, ".gemini"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(e.Home, ".gemini", "settings.json"), raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

// DeclaredSet is the set of function names the request declares.
func DeclaredSet(r *fakegemini.Request) map[string]bool {
	out := map[string]bool{}
	for _, d := range r.FunctionDeclarations() {
		out[d.Name] = true
	}
	return out
}

// StartACPClient starts the built binary with --acp and args in e's
// workspace (trusted), connects the SDK's Go client with h, and opens one
// session; stderr collects the agent's.
func StartACPClient(t *testing.T, e *Env, h acp.Handler, args ...string) (*acp.Client, sdk.SessionId, *bytes.Buffer) {
	t.Helper()
	cmd := Command(t, append([]string{"--acp"}, args...)...)
	cmd.Dir = e.WS
	cmd.Env = []string{"HOME=" + e.Home, "PATH=" + os.Getenv("PATH"), "GEMINI_API_KEY=k", "GOOGLE_GEMINI_BASE_URL=" + e.Srv.URL, "GEMINI_CLI_TRUST_WORKSPACE=true"}
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	c, err := acp.Start(cmd, h)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := c.Init(ctx); err != nil {
		t.Fatal(err)
	}
	s, err := c.NewSession(ctx, sdk.NewSessionRequest{Cwd: e.WS, McpServers: []sdk.McpServer{}})
	if err != nil {
		t.Fatalf("session/new: %v; stderr:\n%s", err, stderr.String())
	}
	return c, s.SessionId, stderr
}
