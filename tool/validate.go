package tool

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strings"
)

// ValidateArgs checks args against a JSON Schema and returns the first
// violation in Ajv's words, prefixed "params" as Gemini CLI reports it
// (e.g. "params must have required property 'file_path'"), or "" when args
// conform. It understands the keywords tool schemas use: type, required,
// properties, additionalProperties, items, enum, minimum, maximum,
// exclusiveMinimum, exclusiveMaximum, minLength, maxLength, minItems,
// maxItems, anyOf and oneOf.
func ValidateArgs(schema map[string]any, args map[string]any) string {
	if args == nil {
		args = map[string]any{}
	}
	return validate(schema, args, "params")
}

func validate(schema map[string]any, v any, path string) string {
	if schema == nil {
		return ""
	}
	if t, ok := schema["type"]; ok {
		if msg := checkType(t, v); msg != "" {
			return path + " " + msg
		}
	}
	if alts, ok := schema["anyOf"].([]any); ok {
		matched := false
		for _, a := range alts {
			if s, ok := a.(map[string]any); ok && validate(s, v, path) == "" {
				matched = true
				break
			}
		}
		if !matched {
			return path + " must match a schema in anyOf"
		}
	}
	if alts, ok := schema["oneOf"].([]any); ok {
		n := 0
		for _, a := range alts {
			if s, ok := a.(map[string]any); ok && validate(s, v, path) == "" {
				n++
			}
		}
		if n != 1 {
			return path + " must match exactly one schema in oneOf"
		}
	}
	if enum, ok := schema["enum"].([]any); ok {
		found := false
		for _, e := range enum {
			if jsonEqual(e, v) {
				found = true
				break
			}
		}
		if !found {
			return path + " must be equal to one of the allowed values"
		}
	}
	switch x := v.(type) {
	case map[string]any:
		return validateObject(schema, x, path)
	case []any:
		if n, ok := number(schema["minItems"]); ok && float64(len(x)) < n {
			return fmt.Sprintf("%s must NOT have fewer than %s items", path, fmtNum(n))
		}
		if n, ok := number(schema["maxItems"]); ok && float64(len(x)) > n {
			return fmt.Sprintf("%s must NOT have more than %s items", path, fmtNum(n))
		}
		if items, ok := schema["items"].(map[string]any); ok {
			for i, it := range x {
				if msg := validate(items, it, fmt.Sprintf("%s/%d", path, i)); msg != "" {
					return msg
				}
			}
		}
	case string:
		n := float64(len([]rune(x)))
		if m, ok := number(schema["minLength"]); ok && n < m {
			return fmt.Sprintf("%s must NOT have fewer than %s characters", path, fmtNum(m))
		}
		if m, ok := number(schema["maxLength"]); ok && n > m {
			return fmt.Sprintf("%s must NOT have more than %s characters", path, fmtNum(m))
		}
	default:
		if f, ok := number(v); ok {
			if m, ok := number(schema["minimum"]); ok && f < m {
				return fmt.Sprintf("%s must be >= %s", path, fmtNum(m))
			}
			if m, ok := number(schema["maximum"]); ok && f > m {
				return fmt.Sprintf("%s must be <= %s", path, fmtNum(m))
			}
			if m, ok := number(schema["exclusiveMinimum"]); ok && f <= m {
				return fmt.Sprintf("%s must be > %s", path, fmtNum(m))
			}
			if m, ok := number(schema["exclusiveMaximum"]); ok && f >= m {
				return fmt.Sprintf("%s must be < %s", path, fmtNum(m))
			}
		}
	}
	return ""
}

func validateObject(schema map[string]any, obj map[string]any, path string) string {
	for _, r := range stringList(schema["required"]) {
		if _, ok := obj[r]; !ok {
			return fmt.Sprintf("%s must have required property '%s'", path, r)
		}
	}
	props, _ := schema["properties"].(map[string]any)
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	if ap, ok := schema["additionalProperties"].(bool); ok && !ap {
		for _, k := range keys {
			if _, declared := props[k]; !declared {
				return path + " must NOT have additional properties"
			}
		}
	}
	for _, k := range keys {
		ps, ok := props[k].(map[string]any)
		if !ok {
			if ap, ok := schema["additionalProperties"].(map[string]any); ok {
				ps = ap
			} else {
				continue
			}
		}
		if msg := validate(ps, obj[k], path+"/"+k); msg != "" {
			return msg
		}
	}
	return ""
}

func checkType(t any, v any) string {
	var types []string
	switch x := t.(type) {
	case string:
		types = []string{x}
	case []any:
		for _, e := range x {
			if s, ok := e.(string); ok {
				types = append(types, s)
			}
		}
	case []string:
		types = x
	default:
		return ""
	}
	for _, ty := range types {
		if hasType(strings.ToLower(ty), v) {
			return ""
		}
	}
	lower := make([]string, len(types))
	for i, ty := range types {
		lower[i] = strings.ToLower(ty)
	}
	return "must be " + strings.Join(lower, ",")
}

func hasType(ty string, v any) bool {
	switch ty {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "null":
		return v == nil
	case "number":
		_, ok := number(v)
		return ok
	case "integer":
		f, ok := number(v)
		return ok && f == math.Trunc(f)
	}
	return true
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case float32:
		return float64(x), true
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	}
	return 0, false
}

func fmtNum(f float64) string {
	if f == math.Trunc(f) {
		return fmt.Sprintf("%d", int64(f))
	}
	return fmt.Sprintf("%g", f)
}

func stringList(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

func jsonEqual(a, b any) bool {
	if fa, ok := number(a); ok {
		fb, ok := number(b)
		return ok && fa == fb
	}
	return reflect.DeepEqual(a, b)
}
