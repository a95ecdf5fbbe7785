package mcp

import (
	"context"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/tool"
)

// Names of the resource tools, as Gemini CLI names them.
const (
	ListResourcesToolName = "list_mcp_resources"
	ReadResourceToolName  = "read_mcp_resource"
)

// Resource is a resource offered by a connected server.
type Resource struct {
	Server      string
	URI         string
	Name        string
	Title       string
	Description string
	MIMEType    string
}

// Resources returns the resources of the connected servers, by server name
// then in each server's order.
func (m *Manager) Resources() []Resource {
	var out []Resource
	for _, s := range m.servers {
		s.mu.Lock()
		rs := s.resources
		live := s.everConnected
		s.mu.Unlock()
		if !live {
			continue
		}
		for _, r := range rs {
			if r == nil {
				continue
			}
			out = append(out, Resource{Server: s.cfg.Name, URI: r.URI, Name: r.Name, Title: r.Title, Description: r.Description, MIMEType: r.MIMEType})
		}
	}
	return out
}

// FindResource returns the listed resource with the given URI. A URI may
// also be written "server:uri", the form list_mcp_resources prints.
func (m *Manager) FindResource(uri string) (Resource, bool) {
	all := m.Resources()
	for _, r := range all {
		if r.URI == uri {
			return r, true
		}
	}
	for _, r := range all {
		if r.Server+":"+r.URI == uri {
			return r, true
		}
	}
	return Resource{}, false
}

// ReadResource reads a resource from the server that offers it (or from
// server, when it is not ""), reconnecting first if needed.
func (m *Manager) ReadResource(ctx context.Context, server, uri string) (*sdk.ReadResourceResult, error) {
	if server == "" {
		r, ok := m.FindResource(uri)
		if !ok {
			return nil, fmt.Errorf("Resource not found for URI: %s", uri)
		}
		server, uri = r.Server, r.URI
	}
	s, ok := m.byName[server]
	if !ok {
		return nil, fmt.Errorf("MCP Client not found for server: %s", server)
	}
	var res *sdk.ReadResourceResult
	err := s.withSession(ctx, func(ctx context.Context, cs *sdk.ClientSession) (err error) {
		res, err = cs.ReadResource(ctx, &sdk.ReadResourceParams{URI: uri})
		return err
	})
	return res, err
}

// listResourcesTool is Gemini CLI's list_mcp_resources.
type listResourcesTool struct{ m *Manager }

func (t *listResourcesTool) Name() string        { return ListResourcesToolName }
func (t *listResourcesTool) DisplayName() string { return "List MCP Resources" }
func (t *listResourcesTool) Description() string {
	return "Lists all available resources exposed by connected MCP servers."
}
func (t *listResourcesTool) Kind() tool.Kind { return tool.KindSearch }
func (t *listResourcesTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"serverName": map[string]any{
				"description": "Optional filter to list resources from a specific server.",
				"type":        "string",
			},
		},
		"required": []any{},
	}
}

func (t *listResourcesTool) Build(args map[string]any) (tool.Call, error) {
	server, _ := args["serverName"].(string)
	return &listResourcesCall{m: t.m, server: server}, nil
}

type listResourcesCall struct {
	m      *Manager
	server string
}

func (c *listResourcesCall) Describe() string { return "List MCP resources" }

func (c *listResourcesCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

func (c *listResourcesCall) Execute(context.Context, func(string)) *tool.Result {
	var rs []Resource
	for _, r := range c.m.Resources() {
		if c.server == "" || r.Server == c.server {
			rs = append(rs, r)
		}
	}
	if len(rs) == 0 {
		if c.server != "" {
			return tool.Text("No resources found for server: " + c.server)
		}
		return tool.Text("No MCP resources found.")
	}
	var b strings.Builder
	b.WriteString("Available MCP Resources:\n")
	for _, r := range rs {
		fmt.Fprintf(&b, "- %s:%s", r.Server, r.URI)
		if r.Name != "" {
			b.WriteString(" | " + r.Name)
		}
		if r.Description != "" {
			b.WriteString(" | " + r.Description)
		}
		b.WriteByte('\n')
	}
	return &tool.Result{LLMText: b.String(), Display: fmt.Sprintf("Listed %d resources.", len(rs))}
}

// readResourceTool is Gemini CLI's read_mcp_resource.
type readResourceTool struct{ m *Manager }

func (t *readResourceTool) Name() string        { return ReadResourceToolName }
func (t *readResourceTool) DisplayName() string { return "Read MCP Resource" }
func (t *readResourceTool) Description() string {
	return "Reads the content of a specified Model Context Protocol (MCP) resource."
}
func (t *readResourceTool) Kind() tool.Kind { return tool.KindRead }
func (t *readResourceTool) Schema() map[string]any {
	return map[string]any{
		"type": "object",
		"properties": map[string]any{
			"uri": map[string]any{
				"description": "The URI of the MCP resource to read.",
				"type":        "string",
			},
		},
		"required": []any{"uri"},
	}
}

func (t *readResourceTool) Build(args map[string]any) (tool.Call, error) {
	uri, _ := args["uri"].(string)
	c := &readResourceCall{m: t.m, uri: uri}
	c.res, c.found = t.m.FindResource(uri)
	return c, nil
}

type readResourceCall struct {
	m     *Manager
	uri   string
	res   Resource
	found bool
}

func (c *readResourceCall) Describe() string {
	if c.found {
		return fmt.Sprintf("Read MCP resource \"%s\" from server \"%s\"", c.res.Name, c.res.Server)
	}
	return "Read MCP resource: " + c.uri
}

func (c *readResourceCall) Confirmation(context.Context) (*tool.ConfirmationDetails, error) {
	return nil, nil
}

func (c *readResourceCall) Execute(ctx context.Context, _ func(string)) *tool.Result {
	fail := func(t tool.ErrorType, msg string) *tool.Result {
		return &tool.Result{LLMText: "Error: " + msg, Display: "Error: " + msg, Error: &tool.Error{Type: t, Message: msg}}
	}
	if c.uri == "" {
		return fail(tool.ErrInvalidParams, "No URI provided.")
	}
	r, ok := c.m.FindResource(c.uri)
	if !ok {
		return fail(tool.ErrMCPResourceNotFound, "Resource not found for URI: "+c.uri)
	}
	res, err := c.m.ReadResource(ctx, r.Server, r.URI)
	if err != nil {
		if ctx.Err() != nil {
			return tool.Fail(tool.ErrCancelled, "Tool call aborted")
		}
		return fail(tool.ErrMCPToolError, "Failed to read resource: "+err.Error())
	}
	var b strings.Builder
	if res != nil {
		for _, rc := range res.Contents {
			switch {
			case rc == nil:
			case rc.Text != "":
				b.WriteString(rc.Text + "\n")
			case len(rc.Blob) > 0:
				fmt.Fprintf(&b, "[Binary Data (%s)]\n", rc.MIMEType)
			}
		}
	}
	text := b.String()
	if text == "" {
		text = "No content returned from resource."
	}
	return &tool.Result{
		LLMText: text,
		Display: fmt.Sprintf("Successfully read resource \"%s\" from server \"%s\"", r.Name, r.Server),
	}
}

// ResourceRef returns the resource an "@server:uri" reference of a
// prompt names, as Gemini CLI's @ command finds one: by server and URI
// only, so that a workspace path is never taken for a resource.
func (m *Manager) ResourceRef(ref string) (Resource, bool) {
	server, uri, ok := strings.Cut(ref, ":")
	if !ok || server == "" {
		return Resource{}, false
	}
	for _, r := range m.Resources() {
		if r.Server == server && r.URI == uri {
			return r, true
		}
	}
	return Resource{}, false
}

// ResourceParts turns what a server returned for a resource into parts
// for the model, as Gemini CLI's @ command does: the text of each text
// content, and "[Binary resource content <type>, <size> bytes]" for each
// binary one.
func ResourceParts(res *sdk.ReadResourceResult) []*genai.Part {
	var out []*genai.Part
	if res == nil {
		return out
	}
	for _, rc := range res.Contents {
		switch {
		case rc == nil:
		case rc.Text != "":
			out = append(out, genai.NewPartFromText(rc.Text))
		case len(rc.Blob) > 0:
			mime := rc.MIMEType
			if mime == "" {
				mime = "application/octet-stream"
			}
			out = append(out, genai.NewPartFromText(fmt.Sprintf("[Binary resource content %s, %d bytes]", mime, len(rc.Blob))))
		}
	}
	return out
}
