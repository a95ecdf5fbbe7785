package mcp

import (
	"encoding/json"
	"strings"
)

// HasValidTypes reports whether every schema node the model needs typed has
// a type, following the wire spec's gating rule: a node without "type" is
// accepted only when it has anyOf, allOf or oneOf and each alternative
// passes; an object's properties and an array's items are checked in turn.
// Anything that is not a JSON object is accepted (there is nothing to
// check).
//
// Castor adds one thing: a node that is a local "$ref" ("#/$defs/x") is
// checked through its target instead of being rejected for lacking a type,
// since schema generators (the Go SDK's among them) describe every named
// type that way. A reference that leads back to itself is not followed
// twice; HasCycle reports such schemas separately.
func HasValidTypes(schema any) bool {
	root, _ := schema.(map[string]any)
	return validTypes(schema, root, map[string]bool{})
}

func validTypes(node any, root map[string]any, seen map[string]bool) bool {
	s, ok := node.(map[string]any)
	if !ok {
		return true
	}
	if ref, ok := s["$ref"].(string); ok && s["type"] == nil {
		if seen[ref] {
			return true
		}
		target, found := resolveRef(root, ref)
		if !found {
			return false
		}
		seen[ref] = true
		defer delete(seen, ref)
		return validTypes(target, root, seen)
	}
	if !truthy(s["type"]) {
		hasSub := false
		for _, k := range []string{"anyOf", "allOf", "oneOf"} {
			subs, ok := s[k].([]any)
			if !ok {
				continue
			}
			hasSub = true
			for _, sub := range subs {
				if !validTypes(sub, root, seen) {
					return false
				}
			}
		}
		if !hasSub {
			return false
		}
	}
	if s["type"] == "object" {
		if props, ok := s["properties"].(map[string]any); ok {
			for _, p := range props {
				if !validTypes(p, root, seen) {
					return false
				}
			}
		}
	}
	if s["type"] == "array" && truthy(s["items"]) {
		if !validTypes(s["items"], root, seen) {
			return false
		}
	}
	return true
}

// truthy is JavaScript's truthiness for decoded JSON, which Gemini CLI's
// checks rely on ("type": "" counts as missing).
func truthy(v any) bool {
	switch x := v.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	}
	return true
}

// resolveRef finds a local JSON pointer reference ("#/$defs/node") in
// root. Other references (remote, or by $id) are not resolved.
func resolveRef(root map[string]any, ref string) (any, bool) {
	if ref == "#" {
		return root, root != nil
	}
	if !strings.HasPrefix(ref, "#/") {
		return nil, false
	}
	var cur any = root
	for _, seg := range strings.Split(ref[2:], "/") {
		// JSON pointer escapes.
		seg = strings.ReplaceAll(strings.ReplaceAll(seg, "~1", "/"), "~0", "~")
		switch c := cur.(type) {
		case map[string]any:
			v, ok := c[seg]
			if !ok {
				return nil, false
			}
			cur = v
		case []any:
			i := 0
			for _, ch := range seg {
				if ch < '0' || ch > '9' {
					return nil, false
				}
				i = i*10 + int(ch-'0')
				if i >= len(c) {
					return nil, false
				}
			}
			if seg == "" {
				return nil, false
			}
			cur = c[i]
		default:
			return nil, false
		}
	}
	return cur, true
}

// HasCycle reports whether a schema refers to itself through local "$ref"s
// (a recursive type, or "#" meaning the whole schema). The Gemini API may
// refuse such schemas ("maximum schema depth exceeded"); Gemini CLI keeps
// the tool and explains the failure when it happens, and so does Castor.
func HasCycle(schema any) bool {
	root, _ := schema.(map[string]any)
	return cycle(schema, root, map[string]bool{}, map[string]bool{})
}

func cycle(node any, root map[string]any, visited, path map[string]bool) bool {
	switch n := node.(type) {
	case []any:
		for _, e := range n {
			if cycle(e, root, visited, path) {
				return true
			}
		}
	case map[string]any:
		if ref, ok := n["$ref"].(string); ok {
			if ref == "#" || ref == "#/" || path[ref] {
				return true
			}
			if !visited[ref] {
				if target, ok := resolveRef(root, ref); ok {
					visited[ref] = true
					path[ref] = true
					found := cycle(target, root, visited, path)
					delete(path, ref)
					if found {
						return true
					}
				}
			}
		}
		for k, v := range n {
			if k == "$ref" {
				continue
			}
			if cycle(v, root, visited, path) {
				return true
			}
		}
	}
	return false
}

// normalizeSchema turns whatever the SDK decoded for an input schema into a
// JSON object tree (map[string]any), or nil when it is not an object.
func normalizeSchema(v any) map[string]any {
	if v == nil {
		return nil
	}
	if m, ok := v.(map[string]any); ok {
		return m
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	return m
}
