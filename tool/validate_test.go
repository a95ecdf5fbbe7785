package tool

import (
	"bytes"
	"encoding/json"
	"flag"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
)

var update = flag.Bool("update", false, "rewrite testdata/ajv/cases.json's messages from Ajv (needs npm ci in testdata/ajv)")

var readSchema = map[string]any{
	"type": "object",
	"properties": map[string]any{
		"file_path": map[string]any{"type": "string"},
		"offset":    map[string]any{"type": "number", "minimum": 0},
		"limit":     map[string]any{"type": "integer", "minimum": 1},
		"mode":      map[string]any{"type": "string", "enum": []any{"a", "b"}},
		"paths":     map[string]any{"type": "array", "items": map[string]any{"type": "string"}, "minItems": 1},
		"opts": map[string]any{"type": "object", "properties": map[string]any{
			"deep": map[string]any{"type": "boolean"},
		}, "additionalProperties": false},
	},
	"required": []any{"file_path"},
}

func TestValidateArgs(t *testing.T) {
	tests := []struct {
		args string
		want string
	}{
		{`{"file_path":"/a"}`, ""},
		{`{}`, "params must have required property 'file_path'"},
		{`{"file_path":3}`, "params/file_path must be string"},
		{`{"file_path":"x","offset":-1}`, "params/offset must be >= 0"},
		{`{"file_path":"x","limit":1.5}`, "params/limit must be integer"},
		{`{"file_path":"x","limit":0}`, "params/limit must be >= 1"},
		{`{"file_path":"x","mode":"c"}`, "params/mode must be equal to one of the allowed values"},
		{`{"file_path":"x","paths":[]}`, "params/paths must NOT have fewer than 1 items"},
		{`{"file_path":"x","paths":["a",2]}`, "params/paths/1 must be string"},
		{`{"file_path":"x","opts":{"deep":true,"x":1}}`, "params/opts must NOT have additional properties"},
		{`{"file_path":"x","opts":{"deep":"yes"}}`, "params/opts/deep must be boolean"},
		{`{"file_path":"x","unknown":1}`, ""},
	}
	for _, tt := range tests {
		var args map[string]any
		if err := json.Unmarshal([]byte(tt.args), &args); err != nil {
			t.Fatal(err)
		}
		if got := ValidateArgs(readSchema, args); got != tt.want {
			t.Errorf("ValidateArgs(%s) = %q, want %q", tt.args, got, tt.want)
		}
	}
}

// ajvCase is one entry of testdata/ajv/cases.json: want is Ajv's message
// for args (written by TestAjvMessages -update); castor, with why, is
// Castor's where it knowingly differs.
type ajvCase struct {
	Name   string          `json:"name"`
	Schema map[string]any  `json:"schema"`
	Args   map[string]any  `json:"args"`
	Want   string          `json:"want"`
	Castor *string         `json:"castor,omitempty"`
	Why    string          `json:"why,omitempty"`
	Raw    json.RawMessage `json:"-"`
}

const casesFile = "testdata/ajv/cases.json"

func loadCases(t testing.TB) []ajvCase {
	t.Helper()
	b, err := os.ReadFile(casesFile)
	if err != nil {
		t.Fatal(err)
	}
	var cases []ajvCase
	if err := json.Unmarshal(b, &cases); err != nil {
		t.Fatalf("%s: %v", casesFile, err)
	}
	return cases
}

// TestValidateArgsCases checks Castor's message for every case of
// testdata/ajv/cases.json, whose messages are Ajv's (TestAjvMessages).
func TestValidateArgsCases(t *testing.T) {
	for _, c := range loadCases(t) {
		want := c.Want
		if c.Castor != nil {
			want = *c.Castor
		}
		if got := ValidateArgs(c.Schema, c.Args); got != want {
			t.Errorf("%s: ValidateArgs(%s) = %q, want %q", c.Name, js(c.Args), got, want)
		}
	}
}

// TestAjvMessages runs the cases through Ajv itself, configured as Gemini
// CLI's SchemaValidator configures it, and checks the messages recorded
// in testdata/ajv/cases.json are Ajv's; -update rewrites them.
func TestAjvMessages(t *testing.T) {
	node := ajvNode(t)
	cases := loadCases(t)
	msgs := ajvRun(t, node, cases)
	if *update {
		for i := range cases {
			cases[i].Want = msgs[i]
		}
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", " ")
		if err := enc.Encode(cases); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(casesFile, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	for i, c := range cases {
		if msgs[i] != c.Want {
			t.Errorf("%s: Ajv says %q, %s records %q (go test -run TestAjvMessages -update)", c.Name, msgs[i], casesFile, c.Want)
		}
	}
}

// FuzzValidateArgs feeds arbitrary JSON arguments (outside input from the
// model) against the schemas of the cases: validation must never panic,
// and jsonschema-go and the Ajv wording must agree: a call jsonschema-go
// rejects gets a message from the walker, and the walker finds nothing
// in a call jsonschema-go accepts.
func FuzzValidateArgs(f *testing.F) {
	cases := loadCases(f)
	schemas := []*paramSchema{newParamSchema(readSchema)}
	for _, c := range cases {
		schemas = append(schemas, newParamSchema(c.Schema))
	}
	for _, s := range []string{`{}`, `{"file_path":"x"}`, `{"paths":[1,{"a":[]}]}`, `{"opts":{"deep":null}}`, `{"limit":1e308}`} {
		f.Add(uint8(0), s)
	}
	for i, c := range cases {
		f.Add(uint8(i+1), js(c.Args))
	}
	f.Fuzz(func(t *testing.T, which uint8, s string) {
		var args map[string]any
		if json.Unmarshal([]byte(s), &args) != nil {
			return
		}
		p := schemas[int(which)%len(schemas)]
		msg := p.check(args)
		if msg != "" && !strings.HasPrefix(msg, "params") {
			t.Errorf("message %q does not start with params", msg)
		}
		if p.rs == nil {
			return
		}
		if args == nil {
			args = map[string]any{}
		}
		invalid := p.rs.Validate(args) != nil
		w := walker{root: p.rs.Schema(), draft7: p.draft7}
		worded := w.errs(p.rs.Schema(), args, "", false) != nil
		if invalid != worded {
			sb, _ := json.Marshal(p.rs.Schema())
			t.Errorf("jsonschema-go invalid=%v but the walker found a message=%v\nschema %s\nargs %s", invalid, worded, sb, s)
		}
	})
}

// ajvNode returns node, or reports it or the Ajv packages missing.
func ajvNode(t *testing.T) string {
	t.Helper()
	node := npmtest.LookPath(t, "node")
	if _, err := os.Stat(filepath.Join("testdata", "ajv", "node_modules", "ajv")); err != nil {
		npmtest.Missing(t, "testdata/ajv/node_modules/ajv is missing: run npm ci --ignore-scripts in tool/testdata/ajv")
	}
	return node
}

// ajvRun returns Ajv's message for each case (testdata/ajv/messages.mjs).
func ajvRun(t *testing.T, node string, cases []ajvCase) []string {
	t.Helper()
	in, _ := json.Marshal(cases)
	cmd := exec.Command(node, filepath.Join("testdata", "ajv", "messages.mjs"))
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("messages.mjs: %v\n%s", err, stderr.Bytes())
	}
	var msgs []string
	if err := json.Unmarshal(out, &msgs); err != nil || len(msgs) != len(cases) {
		t.Fatalf("messages.mjs printed %d messages for %d cases (%v): %s", len(msgs), len(cases), err, out)
	}
	return msgs
}

// TestAjvMessagesRandom compares Castor's message with Ajv's for random
// arguments against every schema of the cases (but those where Castor
// knowingly differs): values are drawn from the names and values the
// schemas use, so most calls break some keyword and the order in which
// keywords are tried shows. The seed is fixed, so a failure repeats.
func TestAjvMessagesRandom(t *testing.T) {
	node := ajvNode(t)
	var names []string
	var schemas []map[string]any
	for _, c := range loadCases(t) {
		if c.Castor != nil || strings.Contains(js(c.Schema), `"format"`) {
			continue // Castor knowingly differs (it checks no format)
		}
		schemas = append(schemas, c.Schema)
		walkNames(c.Schema, &names)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	const perSchema = 200
	var cases []ajvCase
	var prepared []*paramSchema
	for _, s := range schemas {
		p := newParamSchema(s)
		for range perSchema {
			args, _ := randomValue(rng, names, 0, true).(map[string]any)
			cases = append(cases, ajvCase{Schema: s, Args: args})
			prepared = append(prepared, p)
		}
	}
	msgs := ajvRun(t, node, cases)
	bad := 0
	for i, c := range cases {
		if got := prepared[i].check(c.Args); got != msgs[i] && bad < 20 {
			bad++
			t.Errorf("schema %s\nargs %s\nCastor %q\nAjv    %q", js(c.Schema), js(c.Args), got, msgs[i])
		}
	}
}

// walkNames collects the property names a schema mentions.
func walkNames(v any, names *[]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if k == "properties" || k == "patternProperties" || k == "dependencies" || k == "dependentRequired" {
				if m, ok := e.(map[string]any); ok {
					for name := range m {
						*names = append(*names, name)
					}
				}
			}
			if k == "required" {
				if l, ok := e.([]any); ok {
					for _, n := range l {
						if s, ok := n.(string); ok {
							*names = append(*names, s)
						}
					}
				}
			}
			walkNames(e, names)
		}
	case []any:
		for _, e := range x {
			walkNames(e, names)
		}
	}
}

// randomValue draws a JSON value; top draws an object.
func randomValue(rng *rand.Rand, names []string, depth int, top bool) any {
	kind := rng.IntN(7)
	if top {
		kind = 6
	} else if depth >= 3 {
		kind = rng.IntN(4)
	}
	switch kind {
	case 0:
		return []any{"", "a", "ab", "abc", "A1", "😀", "1", "x-a", "xy", "2025-01-02T03:04:05Z"}[rng.IntN(10)]
	case 1:
		return []any{-1.0, 0.0, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 9.0, 11.0, 1e20}[rng.IntN(11)]
	case 2:
		return rng.IntN(2) == 0
	case 3:
		return nil
	case 4, 5:
		n := rng.IntN(4)
		a := make([]any, n)
		for i := range a {
			a[i] = randomValue(rng, names, depth+1, false)
		}
		if n > 1 && rng.IntN(3) == 0 {
			a[n-1] = a[0] // a duplicate for uniqueItems
		}
		return a
	}
	m := map[string]any{}
	for range rng.IntN(4) {
		k := "v"
		if rng.IntN(4) > 0 && len(names) > 0 {
			k = names[rng.IntN(len(names))]
		}
		m[k] = randomValue(rng, names, depth+1, false)
	}
	return m
}
