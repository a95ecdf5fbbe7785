package acp

import (
	"encoding/json"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
	"google.golang.org/genai"

	"github.com/castor-dev/castor/agent"
	"github.com/castor-dev/castor/internal/chats"
	"github.com/castor-dev/castor/tool"
)

// replay turns a recorded conversation into the updates session/load
// sends: user messages, thoughts, answers and tool calls, in order.
// Notices (info, warnings, errors) are the terminal's, not the
// conversation's, and are left out.
func replay(conv *chats.Conversation, tools *tool.Registry, root string) []sdk.SessionUpdate {
	var out []sdk.SessionUpdate
	for i := range conv.Messages {
		m := &conv.Messages[i]
		switch m.Type {
		case chats.TypeUser:
			parts := m.DisplayContent
			if len(parts) == 0 {
				parts = m.Content
			}
			for _, b := range partsBlocks(parts) {
				out = append(out, sdk.UpdateUserMessage(b))
			}
		case chats.TypeGemini:
			for _, t := range m.Thoughts {
				if s := thoughtText(&agent.Thought{Subject: t.Subject, Description: t.Description}); s != "" {
					out = append(out, sdk.UpdateAgentThoughtText(s))
				}
			}
			for _, b := range partsBlocks(m.Content) {
				out = append(out, sdk.UpdateAgentMessage(b))
			}
			for j := range m.ToolCalls {
				out = append(out, replayCall(&m.ToolCalls[j], tools, root)...)
			}
		}
	}
	return out
}

// partsBlocks are the text and inline data of recorded parts as content
// blocks; thoughts and function parts are not what anyone said.
func partsBlocks(parts []*genai.Part) []sdk.ContentBlock {
	var out []sdk.ContentBlock
	var text strings.Builder
	flush := func() {
		if text.Len() > 0 {
			out = append(out, sdk.TextBlock(text.String()))
			text.Reset()
		}
	}
	for _, p := range parts {
		switch {
		case p == nil || p.Thought:
		case p.Text != "":
			text.WriteString(p.Text)
		case p.InlineData != nil && strings.HasPrefix(p.InlineData.MIMEType, "image/"):
			flush()
			out = append(out, sdk.ImageBlock(base64Of(p.InlineData.Data), p.InlineData.MIMEType))
		case p.InlineData != nil && strings.HasPrefix(p.InlineData.MIMEType, "audio/"):
			flush()
			out = append(out, sdk.AudioBlock(base64Of(p.InlineData.Data), p.InlineData.MIMEType))
		}
	}
	flush()
	return out
}

// replayCall is a recorded call as one finished tool_call, with the plan
// it set when it was write_todos.
func replayCall(c *chats.ToolCallRecord, tools *tool.Registry, root string) []sdk.SessionUpdate {
	kind := sdk.ToolKindOther
	title := c.DisplayName
	if t, ok := tools.Get(c.Name); ok {
		kind = toolKind(t.Kind())
		if title == "" {
			title = t.DisplayName()
		}
	}
	if d := strings.TrimSpace(c.Description); d != "" {
		title = d
	}
	if title == "" {
		title = c.Name
	}
	status := sdk.ToolCallStatusCompleted
	if c.Status == chats.StatusError || c.Status == chats.StatusCancelled {
		status = sdk.ToolCallStatusFailed
	}
	out := []sdk.SessionUpdate{{ToolCall: &sdk.SessionUpdateToolCall{
		ToolCallId: sdk.ToolCallId(c.ID),
		Title:      title,
		Kind:       kind,
		Status:     status,
		Locations:  callLocations(c.Name, c.Args, root),
		RawInput:   rawArgs(c.Args),
		Content:    displayContent(c.ResultDisplay),
	}}}
	if c.Name == "write_todos" && status == sdk.ToolCallStatusCompleted {
		if u, ok := planUpdate(c.Args); ok {
			out = append(out, u)
		}
	}
	return out
}

// displayContent turns a recorded resultDisplay back into content: a
// file diff, or text.
func displayContent(d any) []sdk.ToolCallContent {
	switch v := d.(type) {
	case nil:
		return nil
	case string:
		if strings.TrimSpace(v) == "" {
			return nil
		}
		return []sdk.ToolCallContent{textContent(v)}
	}
	b, err := json.Marshal(d)
	if err != nil {
		return nil
	}
	var fd tool.FileDiff
	if json.Unmarshal(b, &fd) == nil && (fd.FileDiff != "" || fd.NewContent != "") {
		path := fd.FilePath
		if path == "" {
			path = fd.FileName
		}
		return []sdk.ToolCallContent{diffContent(path, fd.OriginalContent, fd.NewContent)}
	}
	return nil
}
