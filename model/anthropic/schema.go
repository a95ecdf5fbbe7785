package anthropic

import (
	"encoding/json"
	"maps"
	"slices"
)

// inputSchema adapts a tool's JSON Schema to what the Messages API takes
// as input_schema: an object at the top, without anyOf, oneOf or allOf
// there (the API refuses them; MCP servers send them). The alternatives'
// properties are merged into one object; only allOf's required stay
// required, since with anyOf or oneOf no single branch is.
func inputSchema(params any) any {
	m, ok := params.(map[string]any)
	if !ok {
		// A raw schema of another Go type (an MCP server's): as a map.
		raw, err := json.Marshal(params)
		if err != nil || json.Unmarshal(raw, &m) != nil || m == nil {
			return map[string]any{"type": "object", "properties": map[string]any{}}
		}
	}
	combinators := []string{"anyOf", "oneOf", "allOf"}
	if m["type"] == "object" && !slices.ContainsFunc(combinators, func(k string) bool { return m[k] != nil }) {
		return m
	}
	out := maps.Clone(m)
	out["type"] = "object"
	props, _ := out["properties"].(map[string]any)
	props = maps.Clone(props)
	if props == nil {
		props = map[string]any{}
	}
	required, _ := out["required"].([]any)
	for _, k := range combinators {
		alts, _ := out[k].([]any)
		delete(out, k)
		for _, a := range alts {
			am, _ := a.(map[string]any)
			if p, ok := am["properties"].(map[string]any); ok {
				for name, s := range p {
					if _, dup := props[name]; !dup {
						props[name] = s
					}
				}
			}
			if r, ok := am["required"].([]any); ok && k == "allOf" {
				required = append(required, r...)
			}
		}
	}
	out["properties"] = props
	if len(required) > 0 {
		out["required"] = required
	}
	return out
}
