package tool

import (
	"encoding/json"
	"regexp"
	"slices"

	"github.com/google/jsonschema-go/jsonschema"
)

// ValidateArgs checks args against a JSON Schema and returns Gemini CLI's
// message for the first violation, in Ajv's words prefixed "params" (e.g.
// "params must have required property 'file_path'"), or "" when args
// conform. github.com/google/jsonschema-go decides; see paramSchema.
//
// ValidateArgs prepares the schema on every call; a Registry prepares each
// tool's schema once.
func ValidateArgs(schema map[string]any, args map[string]any) string {
	return newParamSchema(schema).check(args)
}

// The drafts Ajv compiles for Gemini CLI. draft7 is what Ajv's default
// class, and so Gemini CLI, assumes for a schema that names none
// (jsonschema-go would assume 2020-12, where "items": [...] tuples and
// "dependencies" mean nothing).
const (
	draft7    = "http://json-schema.org/draft-07/schema#"
	draft2020 = "https://json-schema.org/draft/2020-12/schema"
)

// A paramSchema is a tool's parameter schema resolved by jsonschema-go,
// ready to check calls. jsonschema-go decides whether arguments conform;
// only when they do not does the walker (validate_ajv.go) go through the
// resolved schema to word the failure as Ajv would. jsonschema-go's
// errors are prose without the failing keyword or instance path, so they
// cannot be reworded; the walker must find a message whenever
// jsonschema-go rejects (FuzzValidateArgs checks both agree).
type paramSchema struct {
	// rs is nil when the schema is not checked: like Gemini CLI, which
	// skips validation for schemas Ajv cannot compile, and for the few
	// that jsonschema-go or the walker cannot take (see followable).
	// The tool's Build still checks the values it uses.
	rs     *jsonschema.Resolved
	draft7 bool
}

// newParamSchema resolves schema; it never fails (see paramSchema.rs).
func newParamSchema(schema map[string]any) *paramSchema {
	if schema == nil {
		return &paramSchema{}
	}
	s, ok := schemaFromMap(schema) // schemamap.go: the common shapes
	if !ok {
		b, err := json.Marshal(schema)
		if err != nil {
			return &paramSchema{}
		}
		s = &jsonschema.Schema{}
		if err := json.Unmarshal(b, s); err != nil {
			return &paramSchema{}
		}
	}
	if !jsonTypes(s) {
		return &paramSchema{}
	}
	// A JavaScript pattern that Go's RE2 cannot compile (a lookahead,
	// say) would make Resolve fail and leave every argument unchecked;
	// only that pattern goes unchecked instead.
	walkSchemas(s, func(n *jsonschema.Schema) {
		if n.Pattern == "" {
			return
		}
		if _, err := regexp.Compile(n.Pattern); err != nil {
			n.Pattern = ""
		}
	})
	switch s.Schema {
	case "", "http://json-schema.org/draft-07/schema", "https://json-schema.org/draft-07/schema#":
		s.Schema = draft7
	case draft7, draft2020:
	default:
		// Ajv compiles no other draft (2019-09, say), so Gemini CLI
		// skips validation; jsonschema-go would refuse every instance.
		return &paramSchema{}
	}
	if s.Schema == draft7 {
		// Keywords draft-07 does not have, which Ajv's draft-07 class
		// ignores but jsonschema-go would apply.
		walkSchemas(s, func(n *jsonschema.Schema) {
			n.UnevaluatedItems, n.UnevaluatedProperties, n.MinContains, n.MaxContains = nil, nil, nil, nil
		})
	}
	rs, err := s.Resolve(nil)
	if err != nil || !followable(rs.Schema()) {
		return &paramSchema{}
	}
	return &paramSchema{rs: rs, draft7: s.Schema == draft7}
}

// followable reports whether the walker can follow every $ref of root and
// no chain of $refs and in-place keywords (allOf, not, if…) comes back to
// where it started without descending into the value: jsonschema-go would
// recurse until the stack overflows, which no recover can catch, so such
// a schema is not checked here (Ajv, for its part, throws RangeError).
// A $dynamicRef, or a $ref beside an inner $id (whose base the walker does
// not track), is not followed either.
func followable(root *jsonschema.Schema) bool {
	w := walker{root: root}
	ok, refs, innerIDs := true, false, false
	walkSchemas(root, func(n *jsonschema.Schema) {
		refs = refs || n.Ref != ""
		innerIDs = innerIDs || (n != root && n.ID != "")
		if n.DynamicRef != "" || (n.Ref != "" && w.deref(n.Ref) == nil) {
			ok = false
		}
	})
	if !ok || (refs && innerIDs) {
		return false
	}
	const (
		unseen = iota
		open
		done
	)
	state := map[*jsonschema.Schema]int{}
	var visit func(n *jsonschema.Schema) bool
	visit = func(n *jsonschema.Schema) bool {
		if n == nil || state[n] == done {
			return true
		}
		if state[n] == open {
			return false
		}
		state[n] = open
		next := append([]*jsonschema.Schema{n.Not, n.If, n.Then, n.Else}, n.AllOf...)
		next = append(append(next, n.AnyOf...), n.OneOf...)
		for _, m := range []map[string]*jsonschema.Schema{n.DependentSchemas, n.DependencySchemas} {
			for _, c := range m {
				next = append(next, c)
			}
		}
		if n.Ref != "" {
			next = append(next, w.deref(n.Ref))
		}
		for _, c := range next {
			if !visit(c) {
				return false
			}
		}
		state[n] = done
		return true
	}
	walkSchemas(root, func(n *jsonschema.Schema) {
		ok = ok && visit(n)
	})
	return ok
}

// check returns Ajv's message for args, or "" when they conform.
func (p *paramSchema) check(args map[string]any) string {
	if p.rs == nil {
		return ""
	}
	if args == nil {
		args = map[string]any{}
	}
	err := p.rs.Validate(args)
	if err == nil {
		return ""
	}
	w := walker{root: p.rs.Schema(), draft7: p.draft7}
	if msg := errorsText(w.errs(p.rs.Schema(), args, "", false)); msg != "" {
		return msg
	}
	// Only for keywords Ajv words in ways the walker does not follow
	// (unevaluatedProperties, $dynamicRef, remote $refs).
	return "params is invalid: " + err.Error()
}

// jsonTypes reports whether every "type" in s names a JSON type in
// lower case: Ajv refuses to compile anything else ("STRING" is the
// Gemini API's spelling), so Gemini CLI does not validate against it.
func jsonTypes(s *jsonschema.Schema) bool {
	ok := true
	walkSchemas(s, func(n *jsonschema.Schema) {
		for _, t := range schemaTypes(n) {
			if !slices.Contains([]string{"string", "number", "integer", "boolean", "object", "array", "null"}, t) {
				ok = false
			}
		}
	})
	return ok
}
