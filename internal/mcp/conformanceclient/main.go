// Command conformanceclient is a small MCP client built on Castor's mcp
// package, for the client scenarios of the @modelcontextprotocol/conformance
// suite (mcp/conformance_test.go runs them).
//
// Usage:
//
//	conformanceclient <server-url>
//
// The suite starts a scenario server, then runs this command with the
// server's URL as the last argument and the scenario's name in
// MCP_CONFORMANCE_SCENARIO (auth scenarios with pre-registered clients add
// MCP_CONFORMANCE_CONTEXT, a JSON object with client_id and client_secret).
//
// The command does what Castor does with a configured streamable HTTP
// server. For the initialize scenario it probes the server as `castor mcp
// list` does (initialize, then ping). For every other scenario it starts an
// [mcp.Manager] with the server, which initializes the session and lists
// the server's tools, prompts and resources, and then calls every tool the
// server offers through the engine's tool interface, with arguments made
// from the tool's input schema. OAuth runs through the manager's
// authorization-code flow; the "browser" is an HTTP client that follows the
// authorization server's redirect back to Castor's loopback callback. A
// server's question (elicitation) is answered as a user who submits the
// form untouched would: accepted, with the schema's defaults, which the
// manager fills in.
//
// It exits 0 when everything succeeded and 1, with the reason on stderr,
// otherwise.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/castor-dev/castor/mcp"
)

// serverName is the mcpServers key the scenario server is configured under.
const serverName = "conformance"

// timeout bounds the whole run, below the suite's 30-second default.
const timeout = 20 * time.Second

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: conformanceclient <server-url>")
		os.Exit(2)
	}
	if err := run(os.Args[len(os.Args)-1], os.Getenv("MCP_CONFORMANCE_SCENARIO"), os.Getenv("MCP_CONFORMANCE_CONTEXT")); err != nil {
		fmt.Fprintln(os.Stderr, "conformanceclient:", err)
		os.Exit(1)
	}
}

// scenarioContext is the part of MCP_CONFORMANCE_CONTEXT the client uses.
type scenarioContext struct {
	ClientID     string `json:"client_id"`
	ClientSecret string `json:"client_secret"`
}

// run connects to serverURL as the scenario requires.
func run(serverURL, scenario, rawContext string) error {
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	defer cancel()

	cfg := &mcp.ServerConfig{Name: serverName, HTTPURL: serverURL, Timeout: timeout - 5*time.Second}
	if rawContext != "" {
		var sc scenarioContext
		if err := json.Unmarshal([]byte(rawContext), &sc); err != nil {
			return fmt.Errorf("MCP_CONFORMANCE_CONTEXT: %v", err)
		}
		if sc.ClientID != "" {
			cfg.OAuth = &mcp.OAuthConfig{Enabled: true, ClientID: sc.ClientID, ClientSecret: sc.ClientSecret}
		}
	}
	dir, err := os.MkdirTemp("", "castor-conformance-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts := mcp.Options{
		Servers:       []*mcp.ServerConfig{cfg},
		FolderTrusted: true,
		Debug:         func(s string) { fmt.Fprintln(os.Stderr, s) },
		OAuth: &mcp.OAuthOptions{
			TokenFile:       filepath.Join(dir, mcp.TokenFileName),
			OpenBrowser:     browse,
			CallbackTimeout: 10 * time.Second,
		},
		Elicit: func(_ context.Context, req mcp.ElicitRequest) (mcp.ElicitResult, error) {
			fmt.Println(mcp.DescribeElicit(req), "Accepted with the defaults.")
			return mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{}}, nil
		},
	}

	if scenario == "initialize" {
		if err := mcp.Probe(ctx, cfg, opts); err != nil {
			return fmt.Errorf("probing %s: %w", serverURL, err)
		}
		fmt.Println("connected")
		return nil
	}

	m := mcp.Start(ctx, opts)
	defer m.Close()
	st, _ := m.Status(serverName)
	if st.Status != mcp.StatusConnected {
		return fmt.Errorf("server %s: %s", st.Status, st.Reason)
	}
	fmt.Printf("connected over %s: %d tools, %d prompts, %d resources\n", st.Transport, st.Tools, st.Prompts, st.Resources)
	var errs []error
	for _, t := range m.Tools() {
		mt, ok := t.(*mcp.Tool)
		if !ok {
			continue // list_mcp_resources and read_mcp_resource
		}
		args := argsFor(mt.Schema())
		call, err := mt.Build(args)
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %v", mt.ServerToolName(), err))
			continue
		}
		res := call.Execute(ctx, nil)
		if res.Error != nil {
			errs = append(errs, fmt.Errorf("%s: %s", mt.ServerToolName(), res.Error.Message))
			continue
		}
		fmt.Printf("%s(%s): %s\n", mt.ServerToolName(), call.Describe(), res.Display)
	}
	return errors.Join(errs...)
}

// argsFor makes arguments for a tool from its input schema: each required
// property gets its default, or a plain value of its type (numbers count
// up from 2 so that two of them differ).
func argsFor(schema map[string]any) map[string]any {
	args := map[string]any{}
	props, _ := schema["properties"].(map[string]any)
	req, _ := schema["required"].([]any)
	names := make([]string, 0, len(req))
	for _, r := range req {
		if s, ok := r.(string); ok {
			names = append(names, s)
		}
	}
	sort.Strings(names)
	n := 2
	for _, name := range names {
		p, _ := props[name].(map[string]any)
		if d, ok := p["default"]; ok {
			args[name] = d
			continue
		}
		switch p["type"] {
		case "number", "integer":
			args[name] = n
			n++
		case "boolean":
			args[name] = true
		case "array":
			args[name] = []any{}
		case "object":
			args[name] = map[string]any{}
		default:
			args[name] = "castor"
		}
	}
	return args
}

// browse stands in for the user's browser: it opens the authorization URL,
// which the suite's authorization server answers with a redirect carrying
// the code, and follows that redirect to Castor's loopback callback.
func browse(authURL string) error {
	if err := loopback(authURL); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	noFollow := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := get(ctx, noFollow, authURL)
	if err != nil {
		return err
	}
	loc := resp.Header.Get("Location")
	if resp.StatusCode/100 != 3 || loc == "" {
		return fmt.Errorf("authorization endpoint answered %s without a redirect", resp.Status)
	}
	u, err := resp.Request.URL.Parse(loc)
	if err != nil {
		return fmt.Errorf("authorization redirect %q: %v", loc, err)
	}
	if err := loopback(u.String()); err != nil {
		return err
	}
	_, err = get(ctx, noFollow, u.String())
	return err
}

// loopback refuses a URL that leaves this machine: the suite's servers all
// listen on loopback.
func loopback(u string) error {
	p, err := url.Parse(u)
	if err != nil {
		return err
	}
	switch p.Hostname() {
	case "127.0.0.1", "localhost", "::1":
		return nil
	}
	return fmt.Errorf("refusing to open %s: not a loopback address", p.Redacted())
}

// get fetches u and discards the body.
func get(ctx context.Context, c *http.Client, u string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return nil, err
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp, nil
}
