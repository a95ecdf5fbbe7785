package cli

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/castor-dev/castor/agent"
)

func TestCleanerValue(t *testing.T) {
	in := map[string]any{
		"path\x1b[31m": "/tmp/\x1b]0;t\x07x",
		"list":         []any{"a\x07", 1.5, true, nil, map[string]any{"k": "\u009b2Jv"}},
		"n":            float64(3),
	}
	want := map[string]any{
		"path": "/tmp/x",
		"list": []any{"a", 1.5, true, nil, map[string]any{"k": "v"}},
		"n":    float64(3),
	}
	c := cleaner{}
	if got := c.value(in); !reflect.DeepEqual(got, want) {
		t.Errorf("value = %#v\nwant %#v", got, want)
	}
	raw := cleaner{raw: true}
	if got := raw.value(in); !reflect.DeepEqual(got, in) {
		t.Errorf("raw value changed: %#v", got)
	}
}

func TestCleanerStats(t *testing.T) {
	clean := map[string]*agent.ToolNameStats{"read_file": {Count: 1}}
	if got := cleanKeys(clean); reflect.ValueOf(got).Pointer() != reflect.ValueOf(clean).Pointer() {
		t.Error("clean keys were copied")
	}
	c := cleaner{}
	s := c.stats(agent.Stats{
		Models: map[string]*agent.ModelStats{"gemini\x1b]0;x\x07": {}},
		Tools:  agent.ToolStats{ByName: map[string]*agent.ToolNameStats{"\x1b[2Kevil": {Count: 2}}},
	})
	if _, ok := s.Models["gemini"]; !ok || len(s.Models) != 1 {
		t.Errorf("models = %v", s.Models)
	}
	if n := s.Tools.ByName["evil"]; n == nil || n.Count != 2 {
		t.Errorf("tools = %v", s.Tools.ByName)
	}
}

// TestTextRendererPieces: a sequence split between two pieces of a
// response is removed whole, and one left unfinished at the end of a
// response does not swallow the next.
func TestTextRendererPieces(t *testing.T) {
	for _, raw := range []bool{false, true} {
		var out, errOut bytes.Buffer
		r := newRenderer(FormatText, &out, &errOut, raw)
		for _, ev := range []*agent.Event{
			{Type: agent.EventContent, Text: "one \x1b[3"},
			{Type: agent.EventContent, Text: "1mred\x1b]0;never ended"},
			{Type: agent.EventFinished},
			{Type: agent.EventContent, Text: "two\r"},
			{Type: agent.EventContent, Text: "\n"},
			{Type: agent.EventWarning, Text: "careful\x1b[2J"},
		} {
			r.event(ev)
		}
		r.finish(agent.Stats{}, nil, 0, 0)
		want, wantErr := "one red\ntwo\r\n", "Warning: careful\n"
		if raw {
			want, wantErr = "one \x1b[31mred\x1b]0;never ended\ntwo\r\n", "Warning: careful\x1b[2J\n"
		}
		if out.String() != want || errOut.String() != wantErr {
			t.Errorf("raw %v: stdout %q, stderr %q; want %q, %q", raw, out.String(), errOut.String(), want, wantErr)
		}
	}
}

func TestStreamRendererPieces(t *testing.T) {
	var out bytes.Buffer
	r := newRenderer(FormatStreamJSON, &out, &out, false)
	for _, ev := range []*agent.Event{
		{Type: agent.EventContent, Text: "a\x1b]52;c;"},
		{Type: agent.EventContent, Text: "eA==\x07b"},
		{Type: agent.EventContent, Text: "c\xe2\x82"}, // a character split in two
		{Type: agent.EventContent, Text: "\xacd"},
		{Type: agent.EventFinished},
	} {
		r.event(ev)
	}
	var contents []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		if i := strings.Index(line, `"content":`); i >= 0 {
			contents = append(contents, line[i:strings.Index(line, `,"delta"`)])
		}
	}
	want := []string{`"content":"a"`, `"content":"b"`, `"content":"c"`, `"content":"€d"`}
	if !reflect.DeepEqual(contents, want) {
		t.Errorf("contents = %q, want %q", contents, want)
	}
}
