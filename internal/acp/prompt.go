package acp

import (
	"encoding/base64"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"
)

func base64Of(b []byte) string { return base64.StdEncoding.EncodeToString(b) }

// maxLinkedFile bounds what a resource link may pull into a prompt.
const maxLinkedFile = 20 << 20

// promptInput is a prompt split as the session needs it: the typed text
// (slash commands and ExpandPrompt work on it) and the context that came
// with it.
type promptInput struct {
	text    string
	context []*genai.Part
	// echo are the blocks as the user sent them, for the record.
	echo []sdk.ContentBlock
}

// splitPrompt reads ACP content blocks. Embedded resources and linked
// files become context the way Gemini CLI's @ includes do; images and
// audio become inline data. A block that cannot be read is an error
// naming it, never silently dropped.
func splitPrompt(blocks []sdk.ContentBlock, root string) (*promptInput, error) {
	in := &promptInput{echo: blocks}
	var text []string
	var files []string
	for i, b := range blocks {
		switch {
		case b.Text != nil && b.Text.Type != "" && b.Text.Type != "text":
			// The SDK decodes a block of a type it does not know as an
			// empty text block; it would vanish from the prompt unnoticed.
			return nil, fmt.Errorf("prompt[%d]: unsupported content block type %q: use text, image, audio, resource or resource_link", i, b.Text.Type)
		case b.Text != nil:
			text = append(text, b.Text.Text)
		case b.Image != nil:
			p, err := inline(b.Image.Data, b.Image.MimeType)
			if err != nil {
				return nil, fmt.Errorf("prompt[%d] (image): %v", i, err)
			}
			in.context = append(in.context, p)
		case b.Audio != nil:
			p, err := inline(b.Audio.Data, b.Audio.MimeType)
			if err != nil {
				return nil, fmt.Errorf("prompt[%d] (audio): %v", i, err)
			}
			in.context = append(in.context, p)
		case b.Resource != nil:
			r := b.Resource.Resource
			switch {
			case r.TextResourceContents != nil:
				files = append(files, includeText(displayURI(r.TextResourceContents.Uri, root), r.TextResourceContents.Text))
			case r.BlobResourceContents != nil:
				mt := "application/octet-stream"
				if r.BlobResourceContents.MimeType != nil {
					mt = *r.BlobResourceContents.MimeType
				}
				p, err := inline(r.BlobResourceContents.Blob, mt)
				if err != nil {
					return nil, fmt.Errorf("prompt[%d] (resource %s): %v", i, r.BlobResourceContents.Uri, err)
				}
				in.context = append(in.context, p)
			}
		case b.ResourceLink != nil:
			l := b.ResourceLink
			path, ok := filePath(l.Uri)
			if !ok {
				text = append(text, fmt.Sprintf("[%s](%s)", l.Name, l.Uri))
				continue
			}
			fi, err := os.Stat(path)
			if err != nil {
				return nil, fmt.Errorf("prompt[%d] (resource_link %s): %v", i, l.Uri, err)
			}
			if !fi.Mode().IsRegular() || fi.Size() > maxLinkedFile {
				// Directories, devices and FIFOs (which could block
				// forever) are left for the model to look at with tools.
				text = append(text, "@"+displayURI(l.Uri, root))
				continue
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil, fmt.Errorf("prompt[%d] (resource_link %s): %v", i, l.Uri, err)
			}
			files = append(files, includeText(displayURI(l.Uri, root), string(data)))
		default:
			// Gemini CLI refuses a block it does not know too ("Unexpected
			// chunk type").
			return nil, fmt.Errorf("prompt[%d]: unsupported content block type: use text, image, audio, resource or resource_link", i)
		}
	}
	in.text = strings.Join(text, "")
	if len(files) > 0 {
		body := "\n--- Content from referenced files ---" + strings.Join(files, "") + "\n--- End of content ---"
		in.context = append(in.context, genai.NewPartFromText(body))
	}
	return in, nil
}

// includeText is one file in Gemini CLI's @-include block.
func includeText(name, text string) string {
	return "\nContent from @" + name + ":\n" + text
}

func inline(data, mimeType string) (*genai.Part, error) {
	b, err := base64.StdEncoding.DecodeString(data)
	if err != nil {
		return nil, fmt.Errorf("data is not base64: %v", err)
	}
	return &genai.Part{InlineData: &genai.Blob{MIMEType: mimeType, Data: b}}, nil
}

// filePath is the local path of a file: URI (or a bare absolute path).
func filePath(uri string) (string, bool) {
	if filepath.IsAbs(uri) {
		return uri, true
	}
	u, err := url.Parse(uri)
	if err != nil || u.Scheme != "file" {
		return "", false
	}
	return filepath.FromSlash(u.Path), true
}

// displayURI names a resource the way the user sees it: a path relative
// to the workspace when it is a file inside it.
func displayURI(uri, root string) string {
	p, ok := filePath(uri)
	if !ok {
		return uri
	}
	if rel, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(rel, "..") {
		return filepath.ToSlash(rel)
	}
	return p
}
