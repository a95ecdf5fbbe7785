package config

import "strings"

// FileOf returns the settings file whose value for the key at path the
// merge kept: the highest-precedence layer in use that sets it. It is ""
// when no file sets it (a default, or a value an extension added), so
// that a reader reporting a bad value can name the file to fix.
func (s *Settings) FileOf(path ...string) string {
	if s == nil {
		return ""
	}
	for i := len(s.Files) - 1; i >= 0; i-- {
		lf := s.Files[i]
		if !lf.Exists || lf.Skipped != "" {
			continue
		}
		if hasKey(lf.Raw, path) {
			return lf.Path
		}
	}
	return ""
}

// hasKey reports whether obj holds a value at path.
func hasKey(obj map[string]any, path []string) bool {
	var v any = obj
	for _, k := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return false
		}
		if v, ok = m[k]; !ok {
			return false
		}
	}
	return true
}

// whereIs names the file a dotted key's value comes from for a warning,
// or "settings" when no file sets it.
func (s *Settings) whereIs(key string) string {
	if f := s.FileOf(strings.Split(key, ".")...); f != "" {
		return f
	}
	return "settings"
}
