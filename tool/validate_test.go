package tool

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/golden"
	"github.com/castor-dev/castor/internal/npmtest"
)

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
	if golden.Update() {
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
	rng := rand.New(rand.NewPCG(5, 6))
	for i := range 100 {
		schemas = append(schemas, newParamSchema(randomSchema(rng, i%2 == 1)))
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

// TestAjvMessagesRandomSchemas compares Castor's message with Ajv's for
// random schemas (draft-07 and 2020-12, nested keywords of every kind
// Castor words) and random arguments. It leaves out what Castor knowingly
// does differently (format, keywords beside a draft-07 $ref).
func TestAjvMessagesRandomSchemas(t *testing.T) {
	node := ajvNode(t)
	rng := rand.New(rand.NewPCG(3, 4))
	names := []string{"a", "b", "c", "x1", "v"}
	var cases []ajvCase
	var prepared []*paramSchema
	for i := range 400 {
		s := randomSchema(rng, i%2 == 1)
		p := newParamSchema(s)
		for range 25 {
			args, _ := randomValue(rng, names, 0, true).(map[string]any)
			cases = append(cases, ajvCase{Schema: s, Args: args})
			prepared = append(prepared, p)
		}
	}
	msgs := ajvRun(t, node, cases)
	bad, rejected := 0, 0
	defer func() { t.Logf("Ajv rejected %d of %d calls", rejected, len(cases)) }()
	for i, c := range cases {
		if msgs[i] != "" {
			rejected++
		}
		if got := prepared[i].check(c.Args); got != msgs[i] && bad < 10 {
			bad++
			t.Errorf("schema %s\nargs %s\nCastor %q\nAjv    %q", js(c.Schema), js(c.Args), got, msgs[i])
		}
	}
}

// randomSchema draws a tool schema: an object of random properties, with
// a definition its subschemas may refer to.
func randomSchema(rng *rand.Rand, is2020 bool) map[string]any {
	g := schemaGen{rng: rng, draft2020: is2020}
	s := g.object(0)
	leaf := g
	leaf.noRef = true // a $ref cycle in place: Castor knowingly skips those
	s["definitions"] = map[string]any{"d": leaf.schema(2)}
	if is2020 {
		s["$schema"] = draft2020
	}
	return s
}

// schemaGen draws random schemas.
type schemaGen struct {
	rng       *rand.Rand
	draft2020 bool
	noRef     bool
}

func (g schemaGen) pick(n int) int { return g.rng.IntN(n) }

func (g schemaGen) value() any {
	return []any{"a", "ab", "", 0.0, 1.0, 2.5, true, nil}[g.pick(8)]
}

func (g schemaGen) schema(depth int) any {
	if depth >= 3 {
		return map[string]any{"type": []string{"string", "number", "integer", "boolean", "null"}[g.pick(5)]}
	}
	switch g.pick(12) {
	case 0:
		return g.pick(2) == 0 // true or false
	case 1:
		if !g.noRef {
			return map[string]any{"$ref": "#/definitions/d"}
		}
		return g.object(depth)
	case 2, 3:
		return g.object(depth)
	}
	s := map[string]any{}
	switch g.pick(5) {
	case 0:
		s["type"] = []any{"string", "number"}
	case 1, 2:
		s["type"] = []string{"string", "number", "integer", "array", "object", "boolean", "null"}[g.pick(7)]
	}
	if g.pick(6) == 0 {
		// Distinct: Ajv refuses a schema with duplicate enum values
		// (its meta-schema), which Castor does not check.
		vals := []any{"a", "ab", "", 0.0, 1.0, 2.5, true, nil}
		i := g.pick(len(vals))
		s["enum"] = []any{vals[i], vals[(i+1+g.pick(len(vals)-1))%len(vals)]}
	}
	if g.pick(10) == 0 {
		s["const"] = g.value()
	}
	if g.pick(3) == 0 {
		for _, k := range []string{"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"} {
			if g.pick(3) == 0 {
				s[k] = float64(g.pick(4))
			}
		}
		if g.pick(4) == 0 {
			s["multipleOf"] = []float64{0.5, 2, 3}[g.pick(3)]
		}
	}
	if g.pick(3) == 0 {
		if g.pick(2) == 0 {
			s["minLength"] = g.pick(3)
		}
		if g.pick(2) == 0 {
			s["maxLength"] = g.pick(3)
		}
		if g.pick(3) == 0 {
			s["pattern"] = []string{"^a", "b$", "^[a-z]+$"}[g.pick(3)]
		}
	}
	if g.pick(3) == 0 {
		g.array(s, depth)
	}
	switch g.pick(8) {
	case 0:
		s["anyOf"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
	case 1:
		s["oneOf"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
	case 2:
		s["allOf"] = []any{g.schema(depth + 1), g.schema(depth + 1)}
	case 3:
		// Not true nor {}: jsonschema-go reads {"not": true} as it reads
		// false, and Castor words it so (a case records this).
		n, ok := g.schema(depth + 1).(map[string]any)
		if !ok || len(n) == 0 {
			n = map[string]any{"type": "string"}
		}
		s["not"] = n
	case 4:
		s["if"] = g.schema(depth + 1)
		s["then"] = g.schema(depth + 1)
		if g.pick(2) == 0 {
			s["else"] = g.schema(depth + 1)
		}
	}
	if g.draft2020 && !g.noRef && g.pick(8) == 0 {
		s["$ref"] = "#/definitions/d"
	}
	return s
}

func (g schemaGen) array(s map[string]any, depth int) {
	if g.pick(2) == 0 {
		s["minItems"] = g.pick(3)
	}
	if g.pick(3) == 0 {
		s["maxItems"] = g.pick(3)
	}
	if g.pick(3) == 0 {
		s["uniqueItems"] = true
	}
	if g.pick(4) == 0 {
		s["contains"] = g.schema(depth + 1)
		if g.draft2020 && g.pick(2) == 0 {
			s["minContains"] = g.pick(3)
		}
		if g.draft2020 && g.pick(3) == 0 {
			s["maxContains"] = g.pick(3)
		}
	}
	if _, ok := s["contains"]; g.draft2020 && !ok && g.pick(4) == 0 {
		// Not beside contains: the items contains matches count as
		// evaluated for jsonschema-go, not for Ajv (a case records it).
		s["unevaluatedItems"] = g.schema(depth + 1)
	}
	_, contains := s["contains"]
	switch g.pick(3) {
	case 0:
		s["items"] = g.schema(depth + 1)
	case 1:
		if contains {
			break // Ajv skips contains on [] beside a tuple (a case records it)
		}
		tuple := []any{g.schema(depth + 1), g.schema(depth + 1)}
		rest := any(g.pick(2) == 0)
		if g.pick(2) == 0 {
			rest = g.schema(depth + 1)
		}
		if g.draft2020 {
			s["prefixItems"], s["items"] = tuple, rest
		} else {
			s["items"], s["additionalItems"] = tuple, rest
		}
	}
}

func (g schemaGen) object(depth int) map[string]any {
	s := map[string]any{"type": "object"}
	props := map[string]any{}
	for _, n := range []string{"a", "b", "c"} {
		if g.pick(2) == 0 {
			props[n] = g.schema(depth + 1)
		}
	}
	s["properties"] = props
	if g.pick(2) == 0 {
		s["required"] = []any{[]string{"a", "b", "c"}[g.pick(3)]}
	}
	switch g.pick(4) {
	case 0:
		s["additionalProperties"] = false
	case 1:
		s["additionalProperties"] = g.schema(depth + 1)
	}
	if g.pick(5) == 0 {
		s["patternProperties"] = map[string]any{"^x": g.schema(depth + 1)}
	}
	if g.pick(6) == 0 {
		s["propertyNames"] = map[string]any{"maxLength": 1}
	}
	if g.pick(6) == 0 {
		s["minProperties"] = g.pick(3)
	}
	if g.pick(6) == 0 {
		s["maxProperties"] = g.pick(3)
	}
	if g.draft2020 && g.pick(5) == 0 {
		s["unevaluatedProperties"] = g.schema(depth + 1)
	}
	if g.pick(6) == 0 {
		if g.draft2020 {
			s["dependentRequired"] = map[string]any{"a": []any{"b"}}
		} else {
			s["dependencies"] = map[string]any{"a": []any{"b", "c"}, "b": map[string]any{"required": []any{"c"}}}
		}
	}
	return s
}

// TestPrepareSchemaCache checks the registry validates against the schema
// of the tool registered now: replacing a tool drops its cached schema.
func TestPrepareSchemaCache(t *testing.T) {
	needs := func(p string) map[string]any {
		return map[string]any{"type": "object", "required": []any{p}}
	}
	reg := NewRegistry(benchTool{"t", needs("a")})
	for _, want := range []string{"params must have required property 'a'", "params must have required property 'a'"} {
		if _, _, err := reg.Prepare("t", nil, nil); err == nil || err.Message != want {
			t.Fatalf("Prepare = %v, want %q", err, want)
		}
	}
	reg.Register(benchTool{"t", needs("b")})
	if _, _, err := reg.Prepare("t", nil, nil); err == nil || err.Message != "params must have required property 'b'" {
		t.Fatalf("after Register, Prepare = %v", err)
	}
	reg.Unregister("t")
	reg.Register(benchTool{"t", needs("c")})
	if _, _, err := reg.Prepare("t", map[string]any{"c": 1}, nil); err != nil {
		t.Fatalf("after Unregister and Register, Prepare = %v", err)
	}
}
