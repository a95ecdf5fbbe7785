package tui

import (
	"context"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/castor-dev/castor/mcp"
)

// formSchema has one field of each kind the form shows.
var formSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"name":  map[string]any{"type": "string", "title": "Name", "description": "What people call you"},
		"age":   map[string]any{"type": "integer", "default": 30},
		"ok":    map[string]any{"type": "boolean"},
		"level": map[string]any{"type": "string", "enum": []any{"low", "high"}, "enumNames": []any{"Low", "High"}},
	},
	"required": []any{"name"},
}

// formKeys turns a script into key presses: words in braces are named keys
// ({tab}, {enter}, {esc}, {left}, {right}, {space}, {bs}, {ctrl+c}),
// anything else is typed.
func formKeys(script string) []tea.Msg {
	named := map[string]tea.KeyPressMsg{
		"tab": {Code: tea.KeyTab}, "enter": {Code: tea.KeyEnter}, "esc": {Code: tea.KeyEscape},
		"left": {Code: tea.KeyLeft}, "right": {Code: tea.KeyRight}, "space": {Code: tea.KeySpace, Text: " "},
		"bs": {Code: tea.KeyBackspace}, "ctrl+c": {Code: 'c', Mod: tea.ModCtrl}, "up": {Code: tea.KeyUp},
	}
	var out []tea.Msg
	for script != "" {
		if strings.HasPrefix(script, "{") {
			end := strings.Index(script, "}")
			out = append(out, named[script[1:end]])
			script = script[end+1:]
			continue
		}
		r := []rune(script)[0]
		out = append(out, tea.KeyPressMsg{Code: r, Text: string(r)})
		script = script[len(string(r)):]
	}
	return out
}

func TestElicitForm(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   mcp.ElicitResult
		// open: the form is still shown, with this error.
		open string
	}{
		// Fields in order: name*, age, level, ok.
		{"defaults", "Ada{enter}", mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada", "age": int64(30)}}, ""},
		{"every field", "Ad{bs}da{tab}{bs}{bs}41{tab}{right}{right}{tab}y{enter}",
			mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada", "age": int64(41), "level": "high", "ok": true}}, ""},
		{"toggle and choice back", "x{tab}{tab}{left}{tab}{space}{space}{enter}",
			mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "x", "age": int64(30), "level": "high", "ok": false}}, ""},
		{"paste-like typing with spaces", "Ada{space}L.{enter}", mcp.ElicitResult{Action: mcp.ElicitAccept, Content: map[string]any{"name": "Ada L.", "age": int64(30)}}, ""},
		{"required missing", "{enter}", mcp.ElicitResult{}, "name"},
		{"bad number", "Ada{tab}x{enter}", mcp.ElicitResult{}, "not a whole number"},
		{"decline", "Ada{esc}", mcp.ElicitResult{Action: mcp.ElicitDecline}, ""},
		{"cancel", "{ctrl+c}", mcp.ElicitResult{Action: mcp.ElicitCancel}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, log := newTestModel(t)
			reply := make(chan mcp.ElicitResult, 1)
			m.Update(elicitMsg{form: newElicitForm(mcp.ElicitRequest{Server: "crm", Message: "Who are you?", Schema: formSchema}, reply)})
			for _, k := range formKeys(tt.script) {
				m.Update(k)
			}
			if tt.open != "" {
				if len(m.elicits) != 1 || !strings.Contains(m.elicits[0].err, tt.open) {
					t.Fatalf("want the form open with an error about %q, got %d forms %+v", tt.open, len(m.elicits), m.elicits)
				}
				if !strings.Contains(m.View().Content, tt.open) {
					t.Errorf("the error is not shown:\n%s", m.View().Content)
				}
				return
			}
			select {
			case got := <-reply:
				if !reflect.DeepEqual(got, tt.want) {
					t.Errorf("answer %+v, want %+v", got, tt.want)
				}
			default:
				t.Fatalf("no answer; form %+v", m.elicits[0])
			}
			if len(m.elicits) != 0 {
				t.Error("form still shown")
			}
			if !strings.Contains(strings.Join(*log, "\n"), `MCP server 'crm' asked: "Who are you?"`) {
				t.Errorf("no note of the question printed: %q", *log)
			}
		})
	}
}

func TestElicitURL(t *testing.T) {
	var opened []string
	openURL = func(u string) error { opened = append(opened, u); return nil }
	t.Cleanup(func() { openURL = nil })
	tests := []struct {
		url, key string
		want     mcp.ElicitAction
		opened   int
	}{
		{"https://example.com/login", "{enter}", mcp.ElicitAccept, 1},
		{"https://example.com/login", "{esc}", mcp.ElicitDecline, 0},
		{"file:///etc/passwd", "{enter}{esc}", mcp.ElicitDecline, 0},
	}
	for _, tt := range tests {
		opened = nil
		m, _ := newTestModel(t)
		reply := make(chan mcp.ElicitResult, 1)
		m.Update(elicitMsg{form: newElicitForm(mcp.ElicitRequest{Server: "auth", Mode: mcp.ElicitURL, Message: "Sign in", URL: tt.url}, reply)})
		if v := m.View().Content; !strings.Contains(v, tt.url) || !strings.Contains(v, "Sign in") {
			t.Errorf("view lacks the URL or message:\n%s", v)
		}
		for _, k := range formKeys(tt.key) {
			m.Update(k)
		}
		if got := <-reply; got.Action != tt.want || len(opened) != tt.opened {
			t.Errorf("%s %s: got %s, opened %v", tt.url, tt.key, got.Action, opened)
		}
	}
}

// TestElicitCallback runs the callback as the MCP manager does, from
// another goroutine: the answer comes back, and a server that stops
// waiting takes its form away.
func TestElicitCallback(t *testing.T) {
	m, _ := newTestModel(t)
	msgs := make(chan tea.Msg, 4)
	m.send = func(msg tea.Msg) { msgs <- msg }
	req := mcp.ElicitRequest{Server: "crm", Message: "Name?", Schema: formSchema}

	done := make(chan mcp.ElicitResult, 1)
	go func() {
		r, _ := m.elicit(context.Background(), req)
		done <- r
	}()
	m.Update(<-msgs)
	for _, k := range formKeys("Bo{enter}") {
		m.Update(k)
	}
	if r := <-done; r.Action != mcp.ElicitAccept || r.Content["name"] != "Bo" {
		t.Errorf("got %+v", r)
	}

	ctx, cancel := context.WithCancel(context.Background())
	errc := make(chan error, 1)
	go func() {
		_, err := m.elicit(ctx, req)
		errc <- err
	}()
	m.Update(<-msgs)
	if len(m.elicits) != 1 {
		t.Fatal("form not shown")
	}
	cancel()
	select {
	case err := <-errc:
		if !errors.Is(err, context.Canceled) {
			t.Errorf("err %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("the callback did not return after cancellation")
	}
	m.Update(<-msgs)
	if len(m.elicits) != 0 {
		t.Error("form still shown after the server gave up")
	}
}

func TestElicitView(t *testing.T) {
	m, log := newTestModel(t)
	m.Update(elicitMsg{form: newElicitForm(mcp.ElicitRequest{Server: "crm", Message: "Who are you?", Schema: formSchema}, make(chan mcp.ElicitResult, 1))})
	for _, k := range formKeys("Ada{tab}") {
		m.Update(k)
	}
	checkGolden(t, "elicit_form", strings.Join(*log, "\n")+"\n=== live area\n"+m.View().Content+"\n")
}
