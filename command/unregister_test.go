package command

import "testing"

// TestUnregister: Unregister takes back exactly the command given, and
// leaves one that replaced it under the same name.
func TestUnregister(t *testing.T) {
	mine := &Command{Name: "greet", Description: "mine"}
	tests := []struct {
		name     string
		setup    func(r *Registry)
		removed  bool
		stillHas string // description of "greet" afterwards, "" for none
	}{
		{"registered", func(r *Registry) { r.Register(mine) }, true, ""},
		{"replaced since", func(r *Registry) { r.Register(mine); r.Register(&Command{Name: "greet", Description: "theirs"}) }, false, "theirs"},
		{"never registered", func(*Registry) {}, false, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := DefaultRegistry()
			tt.setup(r)
			before := len(r.Commands())
			if got := r.Unregister(mine); got != tt.removed {
				t.Errorf("Unregister = %v, want %v", got, tt.removed)
			}
			c, _, _ := r.Lookup("greet")
			switch {
			case tt.stillHas == "" && c != nil:
				t.Errorf("greet is still registered (%q)", c.Description)
			case tt.stillHas != "" && (c == nil || c.Description != tt.stillHas):
				t.Errorf("greet = %v, want %q", c, tt.stillHas)
			}
			if want := before - map[bool]int{true: 1}[tt.removed]; len(r.Commands()) != want {
				t.Errorf("%d commands, want %d", len(r.Commands()), want)
			}
			if c, _, _ := r.Lookup("memory"); c == nil {
				t.Error("a built-in went")
			}
		})
	}
	if r := DefaultRegistry(); r.Unregister(nil) {
		t.Error("Unregister(nil) removed something")
	}
}
