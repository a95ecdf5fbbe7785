package config

import "testing"

func TestExpandEnvVars(t *testing.T) {
	env := EnvMap(map[string]string{"A": "alpha", "EMPTY": "", "B_2": "bee"})
	tests := []struct {
		in, want string
	}{
		{"plain", "plain"},
		{"$A", "alpha"},
		{"${A}", "alpha"},
		{"x-$A-y", "x-alpha-y"},
		{"$A$B_2", "alphabee"},
		{"${A}suffix", "alphasuffix"},
		{"$Asuffix", "$Asuffix"}, // the name runs on: unset, kept
		{"$UNSET", "$UNSET"},
		{"${UNSET}", "${UNSET}"},
		{"${UNSET:-fallback}", "fallback"},
		{"${UNSET:-}", ""},
		{"${A:-fallback}", "alpha"},
		{"${EMPTY:-fallback}", ""}, // set but empty: no default, unlike sh
		{"$EMPTY.", "."},
		{"$5", "$5"},
		{"cost: $", "cost: $"},
		{"${", "${"},
		{"${A", "${A"},
		{"${UNSET:-a b/c}", "a b/c"},
		{"$$A", "$alpha"},
	}
	for _, tt := range tests {
		if got := ExpandEnvVars(tt.in, env); got != tt.want {
			t.Errorf("ExpandEnvVars(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestExpandTree(t *testing.T) {
	env := EnvMap(map[string]string{"TOKEN": "secret"})
	tree := map[string]any{
		"$TOKEN": "key untouched",
		"list":   []any{"$TOKEN", 1.0, true, nil},
		"nested": map[string]any{"v": "Bearer ${TOKEN}"},
	}
	got := expandTree(tree, env).(map[string]any)
	if got["$TOKEN"] != "key untouched" {
		t.Errorf("keys must not be expanded: %v", got)
	}
	if l := got["list"].([]any); l[0] != "secret" || l[1] != 1.0 || l[2] != true || l[3] != nil {
		t.Errorf("list = %v", l)
	}
	if v := got["nested"].(map[string]any)["v"]; v != "Bearer secret" {
		t.Errorf("nested = %v", v)
	}
}
