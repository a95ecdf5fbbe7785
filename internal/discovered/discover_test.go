package discovered

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/tool"
)

// testdataDir is the absolute testdata folder, where the commands run.
func testdataDir(t *testing.T) string {
	t.Helper()
	d, err := filepath.Abs("testdata")
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func discover(t *testing.T, shape string) ([]*Tool, []string, error) {
	t.Helper()
	return Discover(context.Background(), Config{
		DiscoveryCommand: "./declare.sh " + shape,
		CallCommand:      "./call.sh",
		Dir:              testdataDir(t),
		Environ:          []string{"PATH=" + os.Getenv("PATH"), "DISCOVERED_NAME=from_env"},
	})
}

func names(tools []*Tool) []string {
	var out []string
	for _, t := range tools {
		out = append(out, t.Name())
	}
	return out
}

// TestDiscover runs discovery commands printing each accepted shape and
// the ways a command can go wrong.
func TestDiscover(t *testing.T) {
	tests := []struct {
		shape string
		want  []string
		notes []string
		err   string
	}{
		{shape: "plain", want: []string{"discovered_tool_echo", "discovered_tool_now"}},
		{shape: "snake", want: []string{"discovered_tool_echo", "discovered_tool_now"}},
		{shape: "camel", want: []string{"discovered_tool_echo", "discovered_tool_now"}},
		{shape: "mixed", want: []string{"discovered_tool_echo", "discovered_tool_now", "discovered_tool_fail"}},
		{shape: "empty"},
		{shape: "env", want: []string{"discovered_tool_from_env"}},
		{shape: "pwd", want: []string{"discovered_tool_testdata"}},
		{
			shape: "malformed",
			want:  []string{"discovered_tool_echo"},
			notes: []string{
				"tools.discoveryCommand: item 1 skipped: it has no name",
				`tools.discoveryCommand: tool "has space" (item 2) skipped: its name may only hold letters, digits, '_', '.', ':' and '-'`,
				`tools.discoveryCommand: tool "ok" (item 3) skipped: its parametersJsonSchema is not a JSON object`,
				"tools.discoveryCommand: item 4 skipped: it is not a JSON object",
			},
		},
		{shape: "object", err: `tools.discoveryCommand "./declare.sh object" printed JSON object, not an array of function declarations`},
		{shape: "bad", err: `tools.discoveryCommand "./declare.sh bad" printed invalid JSON: unexpected end of JSON input`},
		{shape: "silent", err: `tools.discoveryCommand "./declare.sh silent" printed nothing; want a JSON array of function declarations`},
		{shape: "fail", err: `tools.discoveryCommand "./declare.sh fail" failed with exit code 3: no tools here: database is down`},
		{shape: "huge", err: `tools.discoveryCommand "./declare.sh huge" printed more than the size limit of 10485760 bytes`},
	}
	for _, tt := range tests {
		t.Run(tt.shape, func(t *testing.T) {
			tools, notes, err := discover(t, tt.shape)
			if got := errText(err); got != tt.err {
				t.Fatalf("error %q, want %q", got, tt.err)
			}
			if got := names(tools); !slices.Equal(got, tt.want) {
				t.Errorf("tools %q, want %q", got, tt.want)
			}
			if !slices.Equal(notes, tt.notes) {
				t.Errorf("notes:\n%s\nwant:\n%s", strings.Join(notes, "\n"), strings.Join(tt.notes, "\n"))
			}
		})
	}
}

// TestDiscoverSettings covers settings that keep the command from
// running at all.
func TestDiscoverSettings(t *testing.T) {
	tests := []struct {
		name            string
		discovery, call string
		err             string
	}{
		{"no call command", "./declare.sh plain", " ", `tools.discoveryCommand is set but tools.callCommand is not: the discovered tools could not be called, so none is loaded`},
		{"unclosed quote", `./declare.sh 'plain`, "./call.sh", `tools.discoveryCommand "./declare.sh 'plain" cannot be read as a command: 1:14: reached EOF without closing quote ` + "`'`"},
		{"blank", `""`, "./call.sh", `tools.discoveryCommand "\"\"" names no command`},
		{"bad call command", "./declare.sh plain", `"./call.sh`, `tools.callCommand "\"./call.sh" cannot be read as a command: 1:1: reached EOF without closing quote ` + "`\"`"},
		{"missing program", "./no-such-program", "./call.sh", `tools.discoveryCommand "./no-such-program" could not run: fork/exec ./no-such-program: no such file or directory`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tools, _, err := Discover(context.Background(), Config{DiscoveryCommand: tt.discovery, CallCommand: tt.call, Dir: testdataDir(t)})
			if got := errText(err); got != tt.err {
				t.Errorf("error %q, want %q", got, tt.err)
			}
			if tools != nil {
				t.Errorf("tools %q", names(tools))
			}
		})
	}
}

// TestDiscoverExpands: the command lines' variables come from Getenv,
// the session's environment rather than the process's.
func TestDiscoverExpands(t *testing.T) {
	env := map[string]string{"SHAPE": "snake", "CALL": "./call.sh"}
	tools, _, err := Discover(context.Background(), Config{
		DiscoveryCommand: "./declare.sh ${SHAPE}",
		CallCommand:      "$CALL",
		Dir:              testdataDir(t),
		Getenv:           func(k string) string { return env[k] },
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := names(tools); !slices.Equal(got, []string{"discovered_tool_echo", "discovered_tool_now"}) {
		t.Errorf("tools %q", got)
	}
	if !slices.Equal(tools[0].call, []string{"./call.sh"}) {
		t.Errorf("call command %q", tools[0].call)
	}
}

// TestDeclarationGolden pins what the model is told about a discovered
// tool (-update rewrites it).
func TestDeclarationGolden(t *testing.T) {
	tools, _, err := discover(t, "plain")
	if err != nil {
		t.Fatal(err)
	}
	var decls []any
	for _, tt := range tools {
		decls = append(decls, tool.Declaration(tt))
	}
	got, err := json.MarshalIndent(decls, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	got = append(got, '\n')
	golden.Check(t, "declarations.golden", got)
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
