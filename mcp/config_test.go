package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/golden"
)

func TestParseServersGolden(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "config", "servers.json"))
	if err != nil {
		t.Fatal(err)
	}
	var raw map[string]any
	if err := json.Unmarshal(data, &raw); err != nil {
		t.Fatal(err)
	}
	servers, errs := ParseServers(raw)
	var b strings.Builder
	for _, s := range servers {
		tr, fallback, terr := s.Transport()
		j, _ := json.Marshal(s)
		fmt.Fprintf(&b, "%s: %s\n  transport=%s fallback=%v err=%v endpoint=%q timeout=%v\n", s.Name, j, tr, fallback, terr, s.Endpoint(), s.RequestTimeout())
	}
	b.WriteString("errors:\n")
	for _, e := range errs {
		fmt.Fprintf(&b, "  %s\n", strings.ReplaceAll(e.Error(), "\n", "\n  "))
	}
	golden.Check(t, "config/servers.golden", []byte(b.String()))
}

func TestParseServerForms(t *testing.T) {
	tests := []struct {
		name string
		raw  any
		want string // Command of the result, or "error"
	}{
		{"map", map[string]any{"command": "a"}, "a"},
		{"raw message", json.RawMessage(`{"command": "b"}`), "b"},
		{"bytes", []byte(`{"command": "c"}`), "c"},
		{"bad json", []byte(`{`), "error"},
		{"array", []any{"x"}, "error"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := ParseServer("s", tt.raw)
			got := "error"
			if err == nil {
				got = c.Command
			}
			if got != tt.want {
				t.Errorf("got %q (%v), want %q", got, err, tt.want)
			}
		})
	}
}

func TestToolEnabled(t *testing.T) {
	tests := []struct {
		include, exclude []string
		tool             string
		want             bool
	}{
		{nil, nil, "a", true},
		{[]string{"a"}, nil, "a", true},
		{[]string{"a"}, nil, "b", false},
		{[]string{"a(arg)"}, nil, "a", true},
		{[]string{"ab"}, nil, "a", false},
		{[]string{"a"}, []string{"a"}, "a", false},
		{nil, []string{"a"}, "b", true},
		{[]string{}, nil, "a", false},
	}
	for _, tt := range tests {
		c := &ServerConfig{IncludeTools: tt.include, ExcludeTools: tt.exclude}
		if got := c.toolEnabled(tt.tool); got != tt.want {
			t.Errorf("include %q exclude %q: %s = %v, want %v", tt.include, tt.exclude, tt.tool, got, tt.want)
		}
	}
}

func TestRequestTimeout(t *testing.T) {
	if got := (&ServerConfig{}).RequestTimeout(); got != 10*time.Minute {
		t.Errorf("default = %v", got)
	}
	c, err := ParseServer("s", map[string]any{"command": "x", "timeout": float64(2500)})
	if err != nil || c.RequestTimeout() != 2500*time.Millisecond {
		t.Errorf("2500 ms = %v, %v", c.RequestTimeout(), err)
	}
}

// FuzzParseServer feeds arbitrary JSON to the settings parser: it must
// never panic, and whatever it accepts must have a transport or say why
// not.
func FuzzParseServer(f *testing.F) {
	data, err := os.ReadFile(filepath.Join("testdata", "config", "servers.json"))
	if err != nil {
		f.Fatal(err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		f.Fatal(err)
	}
	for _, v := range raw {
		f.Add([]byte(v))
	}
	f.Add([]byte(`{"timeout": 1e300}`))
	f.Add([]byte(`{"env": {"": ""}, "headers": null}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var v any
		if json.Unmarshal(b, &v) != nil {
			return
		}
		c, err := ParseServer("fuzz", v)
		if err != nil {
			if err.Error() == "" {
				t.Error("empty error")
			}
			return
		}
		if c.Timeout < 0 {
			t.Errorf("negative timeout %v", c.Timeout)
		}
		if _, _, err := c.Transport(); err != nil && err.Error() == "" {
			t.Error("empty transport error")
		}
		if _, err := json.Marshal(c); err != nil {
			t.Error(err)
		}
	})
}
