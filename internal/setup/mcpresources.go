package setup

import (
	"context"
	"fmt"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/mcp"
)

// refContentFooter closes the referenced contents when no file was read
// (read_many_files writes it after files).
const refContentFooter = "\n--- End of content ---"

// resourceRef finds the MCP resource an @server:uri reference names.
func (x *expander) resourceRef(ref string) (mcp.Resource, bool) {
	if x.mcp == nil {
		return mcp.Resource{}, false
	}
	return x.mcp.ResourceRef(ref)
}

// readResources reads the resources @server:uri references name, each
// introduced by "Content from @uri:", as Gemini CLI's @ command does; a
// resource that cannot be read stops the prompt with Gemini CLI's error.
func (x *expander) readResources(ctx context.Context, rs []mcp.Resource) ([]*genai.Part, error) {
	var out []*genai.Part
	for _, r := range rs {
		res, err := x.mcp.ReadResource(ctx, r.Server, r.URI)
		if err != nil {
			return nil, fmt.Errorf("Exiting due to an error processing the @ command: Error reading resource %s: %v", r.URI, err)
		}
		out = append(out, genai.NewPartFromText("\nContent from @"+r.URI+":\n"))
		out = append(out, mcp.ResourceParts(res)...)
	}
	return out, nil
}

// withResources appends resource contents read for a prompt with no file
// reference, framed as Gemini CLI frames referenced contents.
func withResources(out, resources []*genai.Part) []*genai.Part {
	if len(resources) == 0 {
		return out
	}
	out = append(out, genai.NewPartFromText(refContentHeader))
	out = append(out, resources...)
	return append(out, genai.NewPartFromText(refContentFooter))
}
