package headless_test

import (
	"encoding/json"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
	"github.com/castor-dev/castor/internal/fakegemini"
)

const personSchema = `{
  "type": "object",
  "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
  "required": ["name", "age"]
}`

// TestOutputSchema runs the built binary with --output-schema: every
// model call carries the schema as responseJsonSchema; an answer that
// does not match is sent back once with the validation message, and the
// matching second answer is printed (alone in text mode, as "response"
// in the json envelope). A second miss exits 1 with the message.
func TestOutputSchema(t *testing.T) {
	t.Parallel()
	const good = `{"name": "Ada", "age": 36}`
	tests := []struct {
		name      string
		format    []string
		replies   []fakegemini.Reply
		wantCode  int
		wantOut   string
		wantInErr string
	}{
		{"text, second try", nil,
			[]fakegemini.Reply{fakegemini.Text(`{"name": "Ada"}`), fakegemini.Text(good)},
			0, good + "\n", `missing properties: ["age"]`},
		{"json envelope, second try", []string{"-o", "json"},
			[]fakegemini.Reply{fakegemini.Text("Ada is 36."), fakegemini.Text(good)},
			0, "", "the answer is not JSON"},
		{"two misses exit 1", nil,
			[]fakegemini.Reply{fakegemini.Text(`{"name": "Ada"}`), fakegemini.Text(`{"age": "36"}`)},
			1, "", `does not match the output schema after a retry: validating root: validating /properties/age: type: 36 has type "string", want "integer"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			e := e2etest.New(t, tt.replies...)
			e.Write("person.json", personSchema)
			r := e.Run(append([]string{"-p", "Who is Ada?", "--output-schema", "person.json"}, tt.format...)...)
			if r.Code != tt.wantCode || !strings.Contains(r.Stderr, tt.wantInErr) {
				t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.Code, r.Stdout, r.Stderr)
			}
			if tt.wantOut != "" && r.Stdout != tt.wantOut {
				t.Errorf("stdout = %q, want %q", r.Stdout, tt.wantOut)
			}
			if len(tt.format) > 0 {
				var env struct {
					Response string `json:"response"`
				}
				if err := json.Unmarshal([]byte(r.Stdout), &env); err != nil || env.Response != good {
					t.Errorf("json envelope: %v %q", err, r.Stdout)
				}
			}
			reqs := e.Srv.Requests()
			if len(reqs) != 2 {
				t.Fatalf("%d model calls, want 2", len(reqs))
			}
			var want any
			_ = json.Unmarshal([]byte(personSchema), &want)
			for i, req := range reqs {
				g := req.GenerationConfig
				if g == nil || g.ResponseMIMEType != "application/json" || !reflect.DeepEqual(g.ResponseJsonSchema, want) {
					t.Errorf("call %d: generationConfig %+v", i+1, g)
				}
			}
			if last := e2etest.LastUserText(reqs[1]); !strings.Contains(last, "does not match the required JSON schema") {
				t.Errorf("the retry does not say why: %q", last)
			}
		})
	}
}

// TestOutputSchemaRefused checks the mistakes that stop a run before any
// model call: a schema file that is not JSON (exit 42, naming the file),
// and --output-schema in the interactive terminal.
func TestOutputSchemaRefused(t *testing.T) {
	t.Parallel()
	e := e2etest.New(t)
	e.Write("bad.json", `{"type": `)
	r := e.Run("-p", "x", "--output-schema", "bad.json")
	if r.Code != 42 || !strings.Contains(r.Stderr, "--output-schema bad.json") {
		t.Errorf("bad schema: exit %d %q", r.Code, r.Stderr)
	}
	r = e.Run("-p", "x", "--output-schema", filepath.Join(e.WS, "missing.json"))
	if r.Code != 42 || !strings.Contains(r.Stderr, "missing.json") {
		t.Errorf("missing schema: exit %d %q", r.Code, r.Stderr)
	}
	if n := len(e.Srv.Requests()); n != 0 {
		t.Errorf("%d model calls", n)
	}
}
