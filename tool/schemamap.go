package tool

import (
	"encoding/json"
	"math"

	"github.com/google/jsonschema-go/jsonschema"
)

// schemaFromMap converts the common shape of a tool's parameter schema
// (what Gemini CLI's tools and most MCP servers declare: types,
// properties, required, items, enum, bounds, patterns) to the
// jsonschema.Schema that marshalling schema and unmarshalling it into one
// gives, without the round trip: jsonschema-go's UnmarshalJSON decodes
// every node twice through reflection, most of the cost of a tool's first
// call in a headless run. ok is false for any other key or value, and the
// caller goes the round trip (TestSchemaFromMapMatchesRoundTrip holds the
// two equal).
func schemaFromMap(m map[string]any) (s *jsonschema.Schema, ok bool) {
	s = &jsonschema.Schema{}
	for k, v := range m {
		switch k {
		case "type":
			switch t := v.(type) {
			case string:
				s.Type = t
			default:
				if s.Types, ok = stringList(v); !ok {
					return nil, false
				}
			}
		case "description", "title", "pattern", "format", "$schema":
			str, isStr := v.(string)
			if !isStr {
				return nil, false
			}
			switch k {
			case "description":
				s.Description = str
			case "title":
				s.Title = str
			case "pattern":
				s.Pattern = str
			case "format":
				s.Format = str
			default:
				s.Schema = str
			}
		case "required":
			if s.Required, ok = stringList(v); !ok {
				return nil, false
			}
		case "enum":
			if s.Enum, ok = scalarList(v); !ok {
				return nil, false
			}
		case "properties":
			props, isMap := v.(map[string]any)
			if !isMap {
				return nil, false
			}
			s.Properties = make(map[string]*jsonschema.Schema, len(props))
			for name, p := range props {
				if s.Properties[name], ok = subschema(p); !ok {
					return nil, false
				}
			}
		case "items", "additionalProperties":
			sub, subOK := subschema(v)
			if !subOK {
				return nil, false
			}
			if k == "items" {
				s.Items = sub
			} else {
				s.AdditionalProperties = sub
			}
		case "minimum", "maximum":
			f, isNum := boundValue(v)
			if !isNum {
				return nil, false
			}
			if k == "minimum" {
				s.Minimum = &f
			} else {
				s.Maximum = &f
			}
		case "minLength", "maxLength", "minItems", "maxItems":
			n, isInt := int32Value(v)
			if !isInt {
				return nil, false
			}
			switch k {
			case "minLength":
				s.MinLength = &n
			case "maxLength":
				s.MaxLength = &n
			case "minItems":
				s.MinItems = &n
			default:
				s.MaxItems = &n
			}
		case "default":
			b, err := json.Marshal(v)
			if err != nil {
				return nil, false
			}
			s.Default = b
		default:
			return nil, false
		}
	}
	return s, true
}

// subschema converts a schema in a keyword's place: an object, or true
// and false as jsonschema-go holds them.
func subschema(v any) (*jsonschema.Schema, bool) {
	switch x := v.(type) {
	case map[string]any:
		return schemaFromMap(x)
	case bool:
		if x {
			return &jsonschema.Schema{}, true
		}
		return &jsonschema.Schema{Not: &jsonschema.Schema{}}, true
	}
	return nil, false
}

// stringList is a list of strings as JSON decodes it: never nil.
func stringList(v any) ([]string, bool) {
	switch l := v.(type) {
	case []string:
		return append([]string{}, l...), true
	case []any:
		out := make([]string, 0, len(l))
		for _, e := range l {
			s, ok := e.(string)
			if !ok {
				return nil, false
			}
			out = append(out, s)
		}
		return out, true
	}
	return nil, false
}

// scalarList is an enum's values, when each comes back from JSON as it
// went in (strings, booleans, float64 numbers, null).
func scalarList(v any) ([]any, bool) {
	switch l := v.(type) {
	case []string:
		out := make([]any, len(l))
		for i, s := range l {
			out[i] = s
		}
		return out, true
	case []any:
		for _, e := range l {
			switch x := e.(type) {
			case string, bool, nil:
			case float64:
				if math.IsNaN(x) || math.IsInf(x, 0) {
					return nil, false
				}
			default:
				return nil, false
			}
		}
		return append([]any{}, l...), true
	}
	return nil, false
}

// boundValue is a bound as the round trip gives it: a float64.
func boundValue(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, !math.IsNaN(x) && !math.IsInf(x, 0)
	case int:
		return float64(x), x >= -1<<53 && x <= 1<<53
	}
	return 0, false
}

// int32Value is an integer-valued keyword as jsonschema-go reads it:
// integral and within 32 bits.
func int32Value(v any) (int, bool) {
	var f float64
	switch x := v.(type) {
	case int:
		f = float64(x)
	case float64:
		f = x
	default:
		return 0, false
	}
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, false
	}
	return int(f), true
}
