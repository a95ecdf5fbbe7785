package tool_test

import (
	"encoding/json"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/castor-dev/castor/tool"
	"github.com/castor-dev/castor/tool/builtin"
)

// checkSchemaFromMap fails unless SchemaFromMap gives m's round trip, or
// declines (wantDirect false allows that).
func checkSchemaFromMap(t *testing.T, name string, m map[string]any, wantDirect bool) {
	t.Helper()
	got, ok := tool.SchemaFromMap(m)
	if !ok {
		if wantDirect {
			t.Errorf("%s: the schema took the round trip", name)
		}
		return
	}
	want, err := tool.RoundTripSchema(m)
	if err != nil {
		t.Errorf("%s: converted, but the round trip fails: %v", name, err)
		return
	}
	if !reflect.DeepEqual(got, want) {
		gb, _ := json.Marshal(got)
		wb, _ := json.Marshal(want)
		t.Errorf("%s: converted\n%s\nround trip\n%s\n(%#v vs %#v)", name, gb, wb, got, want)
	}
}

// Every built-in tool's schema is converted without the round trip, to
// what the round trip gives.
func TestSchemaFromMapBuiltins(t *testing.T) {
	env := &builtin.Env{Workspace: tool.NewWorkspace(t.TempDir()), TempDir: t.TempDir()}
	for _, tl := range builtin.All(env) {
		checkSchemaFromMap(t, tl.Name(), tl.Schema(), true)
	}
}

// Values the round trip changes or refuses are declined or converted
// alike.
func TestSchemaFromMapMatchesRoundTrip(t *testing.T) {
	obj := func(kv ...any) map[string]any {
		m := map[string]any{}
		for i := 0; i < len(kv); i += 2 {
			m[kv[i].(string)] = kv[i+1]
		}
		return m
	}
	cases := []struct {
		name   string
		schema map[string]any
		direct bool
	}{
		{"empty", obj(), true},
		{"types list", obj("type", []any{"string", "null"}), true},
		{"types strings", obj("type", []string{"integer"}), true},
		{"types empty", obj("type", []any{}), true},
		{"type null", obj("type", nil), false},
		{"type number", obj("type", 3), false},
		{"empty properties", obj("type", "object", "properties", obj(), "required", []any{}), true},
		{"required strings", obj("required", []string{"a", "b"}), true},
		{"required mixed", obj("required", []any{"a", 1}), false},
		{"enum", obj("enum", []any{"a", true, 1.5, nil}), true},
		{"enum ints", obj("enum", []any{1, 2}), false},
		{"enum strings", obj("enum", []string{"x"}), true},
		{"bounds", obj("minimum", 0, "maximum", 2.5, "minLength", 1, "maxLength", 3.0, "minItems", 0, "maxItems", 7), true},
		{"bound not integral", obj("minLength", 1.5), false},
		{"bound too large", obj("maxItems", 1<<40), false},
		{"bool items", obj("items", true, "additionalProperties", false), true},
		{"nested", obj("properties", obj("a", obj("type", "array", "items", obj("type", "string", "pattern", "^x", "format", "uri")))), true},
		{"default", obj("default", obj("k", []any{1, "<&>"})), true},
		{"draft", obj("$schema", "http://json-schema.org/draft-07/schema#", "title", "T", "description", "D"), true},
		{"other keyword", obj("anyOf", []any{obj("type", "string")}), false},
		{"capitalised key", obj("Type", "string"), false},
		{"property not a schema", obj("properties", obj("a", "string")), false},
	}
	for _, c := range cases {
		checkSchemaFromMap(t, c.name, c.schema, c.direct)
	}
	rng := rand.New(rand.NewPCG(7, 8))
	for range 300 {
		checkSchemaFromMap(t, "random", randomToolSchema(rng, 3), false)
	}
}

// randomToolSchema is a random schema of the keywords schemaFromMap
// converts, with values of every Go type a schema written in Go holds.
func randomToolSchema(rng *rand.Rand, depth int) map[string]any {
	values := []any{"s", 1, 2.5, -3.0, true, false, nil, []any{"a"}, []string{"b"}, []any{1, "x"}, map[string]any{}}
	keys := []string{"type", "description", "title", "pattern", "format", "required", "enum", "minimum", "maximum", "minLength", "maxItems", "default"}
	m := map[string]any{}
	for range rng.IntN(4) {
		m[keys[rng.IntN(len(keys))]] = values[rng.IntN(len(values))]
	}
	if depth > 0 && rng.IntN(2) == 0 {
		props := map[string]any{}
		for range rng.IntN(3) {
			props[keys[rng.IntN(len(keys))]] = randomToolSchema(rng, depth-1)
		}
		m["properties"] = props
	}
	if depth > 0 && rng.IntN(3) == 0 {
		m["items"] = randomToolSchema(rng, depth-1)
	}
	return m
}
