package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/castor-dev/castor/tool"
)

// profileSchema is a form with every kind of field a form shows.
var profileSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":     map[string]any{"type": "string", "title": "Your name", "description": "Full name"},
		"age":      map[string]any{"type": "integer", "minimum": 0, "default": 30},
		"score":    map[string]any{"type": "number"},
		"verified": map[string]any{"type": "boolean", "default": true},
		"status":   map[string]any{"type": "string", "enum": []any{"active", "inactive"}, "enumNames": []any{"Active", "Inactive"}},
		"color": map[string]any{"type": "string", "oneOf": []any{
			map[string]any{"const": "r", "title": "Red"}, map[string]any{"const": "g", "title": "Green"}}},
		"email": map[string]any{"type": "string", "format": "email"},
		"tags": map[string]any{"type": "array", "maxItems": 2, "items": map[string]any{"anyOf": []any{
			map[string]any{"const": "a", "title": "Alpha"}, map[string]any{"const": "b", "title": "Beta"}}}},
	},
	"required": []any{"status", "name"},
}

func TestElicitFields(t *testing.T) {
	got := ElicitFields(profileSchema)
	want := []ElicitField{
		{Name: "status", Title: "status", Type: "enum", Choices: []string{"active", "inactive"}, ChoiceTitles: []string{"Active", "Inactive"}, Required: true},
		{Name: "name", Title: "Your name", Description: "Full name", Type: "string", Required: true},
		{Name: "age", Title: "age", Type: "integer", Default: 30},
		{Name: "color", Title: "color", Type: "enum", Choices: []string{"r", "g"}, ChoiceTitles: []string{"Red", "Green"}},
		{Name: "email", Title: "email", Type: "string", Format: "email"},
		{Name: "score", Title: "score", Type: "number"},
		{Name: "tags", Title: "tags", Type: "multi", Choices: []string{"a", "b"}, ChoiceTitles: []string{"Alpha", "Beta"}},
		{Name: "verified", Title: "verified", Type: "boolean", Default: true},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ElicitFields:\n got %+v\nwant %+v", got, want)
	}
	if f := ElicitFields(nil); f != nil {
		t.Errorf("ElicitFields(nil) = %v", f)
	}
}

func TestParseValue(t *testing.T) {
	fields := map[string]ElicitField{}
	for _, f := range ElicitFields(profileSchema) {
		fields[f.Name] = f
	}
	tests := []struct {
		field, text string
		want        any
		err         string
	}{
		{"name", "  Ada Lovelace ", "  Ada Lovelace ", ""},
		{"name", "", nil, ""},
		{"age", "42", int64(42), ""},
		{"age", "4.5", nil, "not a whole number"},
		{"score", "95.5", 95.5, ""},
		{"score", "NaN", nil, "not a number"},
		{"score", "1e999", nil, "not a number"},
		{"verified", "Yes", true, ""},
		{"verified", "off", false, ""},
		{"verified", "maybe", nil, "not yes or no"},
		{"status", "inactive", "inactive", ""},
		{"status", "Active", "active", ""},
		{"status", "gone", nil, "not one of active, inactive"},
		{"color", "Green", "g", ""},
		{"tags", "Alpha, b,", []any{"a", "b"}, ""},
		{"tags", "a,c", nil, "not one of a, b"},
	}
	for _, tt := range tests {
		t.Run(tt.field+"="+tt.text, func(t *testing.T) {
			got, err := fields[tt.field].ParseValue(tt.text)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) || !strings.Contains(err.Error(), tt.field) {
					t.Fatalf("error %v, want one naming %s and saying %q", err, tt.field, tt.err)
				}
				return
			}
			if err != nil || !reflect.DeepEqual(got, tt.want) {
				t.Fatalf("got %#v, %v; want %#v", got, err, tt.want)
			}
			if got != nil && fields[tt.field].Type != "enum" && fields[tt.field].Type != "multi" {
				if back := fields[tt.field].FormatValue(got); strings.TrimSpace(back) != strings.TrimSpace(tt.text) && tt.field != "verified" {
					t.Errorf("FormatValue(%#v) = %q, want %q", got, back, tt.text)
				}
			}
		})
	}
}

func TestDecodeElicitContent(t *testing.T) {
	tests := []struct {
		name   string
		schema map[string]any
		data   string
		want   map[string]any
		err    string
	}{
		{"defaults filled", profileSchema, `{"name":"Ada","status":"active"}`,
			map[string]any{"name": "Ada", "status": "active", "age": 30.0, "verified": true}, ""},
		{"all given", profileSchema, `{"name":"Ada","status":"inactive","age":7,"score":1.5,"verified":false,"color":"g","email":"a@b.c"}`,
			map[string]any{"name": "Ada", "status": "inactive", "age": 7.0, "score": 1.5, "verified": false, "color": "g", "email": "a@b.c"}, ""},
		{"required missing", profileSchema, `{"name":"Ada"}`, nil, "status"},
		{"wrong type", profileSchema, `{"name":"Ada","status":"active","age":"old"}`, nil, "age"},
		{"not an integer", profileSchema, `{"name":"Ada","status":"active","age":1.5}`, nil, "age"},
		{"below minimum", profileSchema, `{"name":"Ada","status":"active","age":-1}`, nil, "age"},
		{"not in enum", profileSchema, `{"name":"Ada","status":"gone"}`, nil, "status"},
		{"too many items", profileSchema, `{"name":"Ada","status":"active","tags":["a","b","a"]}`, nil, "tags"},
		{"not in oneOf", profileSchema, `{"name":"Ada","status":"active","color":"b"}`, nil, "color"},
		{"not an object", profileSchema, `[1]`, nil, "not a JSON object"},
		{"trailing data", profileSchema, `{} {}`, nil, "after its JSON object"},
		{"broken", profileSchema, `{"name":`, nil, "not a JSON object"},
		{"no schema", nil, `{"x":1}`, map[string]any{"x": 1.0}, ""},
		{"null is empty", nil, `null`, map[string]any{}, ""},
		{"bad schema", map[string]any{"type": 5}, `{}`, nil, "requested schema"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecodeElicitContent(tt.schema, []byte(tt.data))
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("got %v, %v; want an error mentioning %q", got, err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("got %#v\nwant %#v", got, tt.want)
			}
		})
	}
}

func TestDescribeAndDecline(t *testing.T) {
	var lines []string
	decline := DeclineElicit("nobody here.", func(s string) { lines = append(lines, s) })
	res, err := decline(context.Background(), ElicitRequest{Server: "docs", Mode: ElicitForm, Message: "Who\nare you?", Schema: profileSchema})
	if err != nil || res.Action != ElicitDecline || res.Content != nil {
		t.Fatalf("got %+v, %v", res, err)
	}
	_, _ = decline(context.Background(), ElicitRequest{Server: "auth", Mode: ElicitURL, Message: "Sign in", URL: "https://example.com/login"})
	_, _ = decline(context.Background(), ElicitRequest{Server: "evil", Mode: ElicitURL, Message: "\x1b[2J", URL: "https://x/\x1b]0;t\a"})
	want := []string{
		`MCP server 'docs' asked: "Who are you?" (fields: status, name, age, color, email, score, tags, verified). Declined: nobody here.`,
		`MCP server 'auth' asked: "Sign in" (open https://example.com/login). Declined: nobody here.`,
		`MCP server 'evil' asked: "\x1b[2J" (open https://x/?]0;t?). Declined: nobody here.`,
	}
	if !reflect.DeepEqual(lines, want) {
		t.Errorf("reported\n%q\nwant\n%q", lines, want)
	}
}

// elicitServer is a streamable HTTP MCP server whose tools ask the
// client: "form" asks for profileSchema, "url" asks to open a page. Each
// returns what the client answered, and records the client's
// elicitation capability.
func elicitServer(t *testing.T) (url string, caps func() *sdk.ElicitationCapabilities) {
	t.Helper()
	var mu sync.Mutex
	var seen *sdk.ElicitationCapabilities
	s := sdk.NewServer(&sdk.Implementation{Name: "asker", Version: "1"}, nil)
	answer := func(res *sdk.ElicitResult, err error) (*sdk.CallToolResult, error) {
		if err != nil {
			return textResult("error: " + err.Error()), nil
		}
		b, _ := json.Marshal(res.Content)
		return textResult(fmt.Sprintf("%s %s", res.Action, b)), nil
	}
	s.AddTool(&sdk.Tool{Name: "form", InputSchema: objectSchema(map[string]any{})}, func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		mu.Lock()
		seen = r.Session.InitializeParams().Capabilities.Elicitation
		mu.Unlock()
		return answer(r.Session.Elicit(ctx, &sdk.ElicitParams{Message: "Tell me about you", RequestedSchema: profileSchema}))
	})
	s.AddTool(&sdk.Tool{Name: "url", InputSchema: objectSchema(map[string]any{})}, func(ctx context.Context, r *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		return answer(r.Session.Elicit(ctx, &sdk.ElicitParams{Mode: "url", Message: "Sign in", URL: "https://example.com/login", ElicitationID: "e1"}))
	})
	srv := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s }, nil))
	t.Cleanup(srv.Close)
	return srv.URL, func() *sdk.ElicitationCapabilities {
		mu.Lock()
		defer mu.Unlock()
		return seen
	}
}

func TestElicitation(t *testing.T) {
	url, caps := elicitServer(t)
	tests := []struct {
		name  string
		tool  string
		reply func(ElicitRequest) (ElicitResult, error)
		want  string // the tool's result, as the server saw the answer
		debug string // a line expected in the debug log
	}{
		{"accept fills defaults", "form", func(ElicitRequest) (ElicitResult, error) {
			return ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "Ada", "status": "active", "score": int64(3)}}, nil
		}, `accept {"age":30,"name":"Ada","score":3,"status":"active","verified":true}`, ""},
		{"decline", "form", func(ElicitRequest) (ElicitResult, error) {
			return ElicitResult{Action: ElicitDecline}, nil
		}, "decline null", ""},
		{"cancel drops content", "form", func(ElicitRequest) (ElicitResult, error) {
			return ElicitResult{Action: ElicitCancel, Content: map[string]any{"name": "x"}}, nil
		}, "cancel null", ""},
		{"content off schema", "form", func(ElicitRequest) (ElicitResult, error) {
			return ElicitResult{Action: ElicitAccept, Content: map[string]any{"name": "Ada", "status": "gone"}}, nil
		}, "error: ", "does not fit its schema"},
		{"unknown action", "form", func(ElicitRequest) (ElicitResult, error) {
			return ElicitResult{Action: "maybe"}, nil
		}, "error: ", ""},
		{"callback error", "form", func(ElicitRequest) (ElicitResult, error) {
			return ElicitResult{}, errors.New("terminal gone")
		}, "error: ", ""},
		{"url accepted", "url", func(r ElicitRequest) (ElicitResult, error) {
			if r.Mode != ElicitURL || r.URL != "https://example.com/login" || r.ElicitationID != "e1" || r.Schema != nil {
				return ElicitResult{}, fmt.Errorf("unexpected request %+v", r)
			}
			return ElicitResult{Action: ElicitAccept, Content: map[string]any{"ignored": true}}, nil
		}, "accept null", ""},
		{"no callback declines", "form", nil, "decline null", `MCP server 'asker' asked: "Tell me about you" (fields: status, name`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var asked []ElicitRequest
			var fn ElicitFunc
			if tt.reply != nil {
				fn = func(_ context.Context, r ElicitRequest) (ElicitResult, error) {
					asked = append(asked, r)
					return tt.reply(r)
				}
			}
			m, d := startManager(t, Options{Servers: []*ServerConfig{{Name: "asker", HTTPURL: url}}, Elicit: fn})
			res := run(t, m, tt.tool, map[string]any{})
			got := resultText(res)
			if !strings.HasPrefix(got, tt.want) || (!strings.HasSuffix(tt.want, " ") && got != tt.want) {
				t.Errorf("server saw %q, want %q", got, tt.want)
			}
			if tt.debug != "" && !d.contains(tt.debug) {
				t.Errorf("debug log lacks %q:\n%s", tt.debug, d)
			}
			if fn != nil && (len(asked) != 1 || asked[0].Server != "asker") {
				t.Errorf("callback asked %+v", asked)
			}
		})
	}
	if c := caps(); c == nil || c.Form == nil || c.URL == nil {
		t.Errorf("client elicitation capability = %+v, want form and url", c)
	}
}

// resultText is the text the model would see for a result, without the
// wrapper around an untrusted server's text.
func resultText(r *tool.Result) string {
	if r.Error != nil {
		return "error: " + r.Error.Message
	}
	var b strings.Builder
	b.WriteString(r.LLMText)
	for _, p := range append(r.LLMParts, r.LLMPart) {
		if p != nil {
			b.WriteString(p.Text)
		}
	}
	t := strings.TrimPrefix(b.String(), "<untrusted_context>\n")
	return strings.TrimSuffix(t, "\n</untrusted_context>")
}

// FuzzDecodeElicitContent feeds arbitrary bytes as a form's content:
// decoding never panics, and what it accepts is an object that passes the
// schema when decoded again.
func FuzzDecodeElicitContent(f *testing.F) {
	for _, s := range []string{`{"name":"Ada","status":"active"}`, `{}`, `null`, `[]`, `{"age":1e400}`, `{"name":"\ud800"}`, `{"a":{"b":[1,2]}}`, ``} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := DecodeElicitContent(profileSchema, data)
		if err != nil {
			return
		}
		again, err := json.Marshal(got)
		if err != nil {
			t.Fatalf("accepted content does not marshal: %v", err)
		}
		if _, err := DecodeElicitContent(profileSchema, again); err != nil {
			t.Fatalf("accepted %q, then rejected its own output %s: %v", data, again, err)
		}
	})
}

// FuzzParseValue types arbitrary text into every kind of field: parsing
// never panics, and a parsed value passes the schema.
func FuzzParseValue(f *testing.F) {
	for _, s := range []string{"", "42", "-1", "yes", "Active", "g", "3.5", "1e309", "\x00"} {
		f.Add(s)
	}
	fields := ElicitFields(profileSchema)
	f.Fuzz(func(t *testing.T, text string) {
		for _, fl := range fields {
			v, err := fl.ParseValue(text)
			if err != nil || v == nil {
				continue
			}
			content := map[string]any{"name": "x", "status": "active", fl.Name: v}
			data, err := json.Marshal(content)
			if err != nil {
				t.Fatalf("%s: parsed %q to %#v, which does not marshal: %v", fl.Name, text, v, err)
			}
			if _, err := DecodeElicitContent(profileSchema, data); err != nil && fl.Name != "age" && fl.Name != "tags" {
				// age has a minimum and tags a maximum count the parser
				// does not check; the manager reports those.
				t.Fatalf("%s: parsed %q to %#v, which the schema rejects: %v", fl.Name, text, v, err)
			}
		}
	})
}
