package builtin

// Reading the model's tool arguments: typed getters and Gemini CLI's
// renamed parameters.

// argString returns args[key] when it is a string.
func argString(args map[string]any, key string) (string, bool) {
	s, ok := args[key].(string)
	return s, ok
}

// argNumber returns args[key] when it is a JSON number (float64 after
// decoding; Go integer types are accepted for callers building args by hand).
func argNumber(args map[string]any, key string) (float64, bool) {
	switch v := args[key].(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	}
	return 0, false
}

// argBool returns args[key] when it is a boolean.
func argBool(args map[string]any, key string) (bool, bool) {
	b, ok := args[key].(bool)
	return b, ok
}

// argStringList returns the string elements of args[key] when it is an
// array ([]any from JSON, or []string).
func argStringList(args map[string]any, key string) []string {
	switch v := args[key].(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// renameArgs returns a copy of args in which each key of renames that is
// present is also stored under its new name, unless the new name is already
// set. The old key is kept: schemas allow extra properties, and tools use
// its presence to tell which parameter style the model used. args itself is
// never modified.
func renameArgs(args map[string]any, renames map[string]string) map[string]any {
	out := make(map[string]any, len(args)+len(renames))
	for k, v := range args {
		out[k] = v
	}
	for from, to := range renames {
		if v, ok := args[from]; ok {
			if _, set := args[to]; !set {
				out[to] = v
			}
		}
	}
	return out
}
