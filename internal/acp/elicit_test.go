package acp

import (
	"context"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/castor-dev/castor/mcp"
)

// fakeElicitor is an ACP client answering elicitation/create.
type fakeElicitor struct {
	got  []sdk.UnstableCreateElicitationRequest
	resp sdk.UnstableCreateElicitationResponse
	err  error
}

func (f *fakeElicitor) UnstableCreateElicitation(_ context.Context, p sdk.UnstableCreateElicitationRequest) (sdk.UnstableCreateElicitationResponse, error) {
	f.got = append(f.got, p)
	return f.resp, f.err
}

func TestAskClient(t *testing.T) {
	form := mcp.ElicitRequest{Server: "crm", Mode: mcp.ElicitForm, Message: "Name?", Schema: map[string]any{
		"type": "object", "title": "You", "properties": map[string]any{"name": map[string]any{"type": "string"}}, "required": []any{"name"}}}
	link := mcp.ElicitRequest{Server: "auth", Mode: mcp.ElicitURL, Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e1"}
	both := &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}, Url: &sdk.ElicitationUrlCapabilities{}}
	accept := sdk.UnstableCreateElicitationResponse{Accept: &sdk.UnstableCreateElicitationAccept{Action: "accept", Content: map[string]any{"name": "Ada"}}}
	tests := []struct {
		name   string
		caps   *sdk.ElicitationCapabilities
		req    mcp.ElicitRequest
		client *fakeElicitor
		want   mcp.ElicitResult
		asked  string // the request sent, as JSON ("" when not asked)
		warn   string
	}{
		{"no capability", nil, form, &fakeElicitor{}, mcp.ElicitResult{Action: mcp.ElicitDecline}, "",
			`MCP server 'crm' asked: "Name?" (fields: name). Declined: the ACP client does not answer form questions (clientCapabilities.elicitation).`},
		{"form only, URL asked", &sdk.ElicitationCapabilities{Form: &sdk.ElicitationFormCapabilities{}}, link, &fakeElicitor{},
			mcp.ElicitResult{Action: mcp.ElicitDecline}, "", "does not answer url questions"},
		{"empty capability means form", &sdk.ElicitationCapabilities{}, form, &fakeElicitor{resp: accept},
			mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada"}},
			`{"_meta":{"mcpServer":"crm","sessionId":"s1"},"message":"Name?","mode":"form","requestedSchema":{"properties":{"name":{"type":"string"}},"required":["name"],"title":"You","type":"object"}}`, ""},
		{"url", both, link, &fakeElicitor{resp: sdk.UnstableCreateElicitationResponse{Accept: &sdk.UnstableCreateElicitationAccept{Action: "accept"}}},
			mcp.ElicitResult{Action: mcp.ElicitAccept},
			`{"_meta":{"mcpServer":"auth","sessionId":"s1"},"elicitationId":"e1","message":"Sign in","mode":"url","url":"https://example.com/login"}`, ""},
		{"declined by the user", both, form, &fakeElicitor{resp: sdk.UnstableCreateElicitationResponse{Decline: &sdk.UnstableCreateElicitationDecline{Action: "decline"}}},
			mcp.ElicitResult{Action: mcp.ElicitDecline}, "*", ""},
		{"cancelled by the user", both, form, &fakeElicitor{resp: sdk.UnstableCreateElicitationResponse{Cancel: &sdk.UnstableCreateElicitationCancel{Action: "cancel"}}},
			mcp.ElicitResult{Action: mcp.ElicitCancel}, "*", ""},
		{"client fails", both, form, &fakeElicitor{err: errors.New("Method not found")},
			mcp.ElicitResult{Action: mcp.ElicitDecline}, "*", "Declined: the ACP client failed to answer: Method not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var warns []string
			got, err := askClient(context.Background(), tt.client, tt.caps, "s1", tt.req, func(s string) { warns = append(warns, s) })
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %+v, %v; want %+v", got, err, tt.want)
			}
			switch {
			case tt.asked == "" && len(tt.client.got) != 0:
				t.Errorf("asked the client %+v", tt.client.got)
			case tt.asked != "" && len(tt.client.got) != 1:
				t.Errorf("asked the client %d times", len(tt.client.got))
			case tt.asked != "" && tt.asked != "*":
				b, _ := json.Marshal(tt.client.got[0])
				if string(b) != tt.asked {
					t.Errorf("sent %s\nwant %s", b, tt.asked)
				}
			}
			if tt.warn == "" && len(warns) != 0 || tt.warn != "" && (len(warns) != 1 || !strings.Contains(warns[0], tt.warn)) {
				t.Errorf("warnings %q, want one with %q", warns, tt.warn)
			}
		})
	}
}
