package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/internal/textutil"
)

// ResultParts turns the content blocks of a tool result into the parts the
// model receives, as the wire spec and Gemini CLI's
// transformMcpContentToParts do:
//
//   - text → {text};
//   - image and audio → {text: "[Tool '<tool>' provided the following
//     image|audio data with mime-type: <mime>]"} then {inlineData};
//   - an embedded resource with text → {text};
//   - an embedded resource with a blob → {text: "[Tool '<tool>' provided the
//     following embedded resource with mime-type: <mime>]"} then
//     {inlineData} (mime defaults to application/octet-stream);
//   - a resource link → {text: "Resource Link: <title or name> at <uri>"};
//   - anything else (including an embedded resource with neither text nor
//     blob) is dropped.
//
// toolName is the server's own name for the tool. A nil content list (a
// result without "content") gives Gemini CLI's "[Error: Could not parse
// tool response]" part. When wrap is set, text is enclosed in
// <untrusted_context> tags the way current Gemini CLI does.
func ResultParts(toolName string, content []sdk.Content, wrap bool) []*genai.Part {
	if content == nil {
		return []*genai.Part{{Text: "[Error: Could not parse tool response]"}}
	}
	if toolName == "" {
		toolName = "unknown tool"
	}
	text := func(s string) *genai.Part {
		if wrap {
			s = textutil.WrapUntrusted(s)
		}
		return &genai.Part{Text: s}
	}
	parts := []*genai.Part{}
	for _, c := range content {
		switch b := c.(type) {
		case *sdk.TextContent:
			parts = append(parts, text(b.Text))
		case *sdk.ImageContent:
			parts = append(parts, media(toolName, "image", b.MIMEType, b.Data)...)
		case *sdk.AudioContent:
			parts = append(parts, media(toolName, "audio", b.MIMEType, b.Data)...)
		case *sdk.EmbeddedResource:
			r := b.Resource
			switch {
			case r == nil:
			case r.Text != "":
				parts = append(parts, text(r.Text))
			case len(r.Blob) > 0:
				mime := r.MIMEType
				if mime == "" {
					mime = "application/octet-stream"
				}
				parts = append(parts,
					&genai.Part{Text: fmt.Sprintf("[Tool '%s' provided the following embedded resource with mime-type: %s]", toolName, mime)},
					&genai.Part{InlineData: &genai.Blob{MIMEType: mime, Data: r.Blob}})
			}
		case *sdk.ResourceLink:
			parts = append(parts, &genai.Part{Text: fmt.Sprintf("Resource Link: %s at %s", orString(b.Title, b.Name), b.URI)})
		}
	}
	return parts
}

func media(toolName, kind, mime string, data []byte) []*genai.Part {
	if data == nil {
		// genai omits nil data on the wire; the model still gets the
		// (empty) part Gemini CLI would send.
		data = []byte{}
	}
	return []*genai.Part{
		{Text: fmt.Sprintf("[Tool '%s' provided the following %s data with mime-type: %s]", toolName, kind, mime)},
		{InlineData: &genai.Blob{MIMEType: mime, Data: data}},
	}
}

// ResultDisplay flattens the content blocks of a tool result into the one
// string UIs show (Gemini CLI's getStringifiedResultForDisplay): text as is,
// "[Image: <mime>]", "[Audio: <mime>]", "[Link to <title or name>: <uri>]",
// an embedded resource's text or "[Embedded Resource: <mime or unknown
// type>]", and "[Unknown content type: <type>]", one block per line. A nil
// content list shows the raw result as a JSON code block.
func ResultDisplay(res *sdk.CallToolResult) string {
	if res == nil || res.Content == nil {
		b, _ := json.MarshalIndent(res, "", "  ")
		return "```json\n" + string(b) + "\n```"
	}
	lines := make([]string, 0, len(res.Content))
	for _, c := range res.Content {
		switch b := c.(type) {
		case *sdk.TextContent:
			lines = append(lines, b.Text)
		case *sdk.ImageContent:
			lines = append(lines, "[Image: "+b.MIMEType+"]")
		case *sdk.AudioContent:
			lines = append(lines, "[Audio: "+b.MIMEType+"]")
		case *sdk.ResourceLink:
			lines = append(lines, fmt.Sprintf("[Link to %s: %s]", orString(b.Title, b.Name), b.URI))
		case *sdk.EmbeddedResource:
			if b.Resource != nil && b.Resource.Text != "" {
				lines = append(lines, b.Resource.Text)
				continue
			}
			mime := "unknown type"
			if b.Resource != nil && b.Resource.MIMEType != "" {
				mime = b.Resource.MIMEType
			}
			lines = append(lines, "[Embedded Resource: "+mime+"]")
		default:
			lines = append(lines, "[Unknown content type: "+contentType(c)+"]")
		}
	}
	return strings.Join(lines, "\n")
}

// contentType reads the wire "type" of a content block.
func contentType(c sdk.Content) string {
	if c == nil {
		return "undefined"
	}
	b, err := c.MarshalJSON()
	if err != nil {
		return "undefined"
	}
	var w struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(b, &w) != nil || w.Type == "" {
		return "undefined"
	}
	return w.Type
}

func orString(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
