package config

import (
	"encoding/json"
	"testing"
)

func FuzzValidateSettings(f *testing.F) {
	f.Add(`{"model": "x"}`)
	f.Add(`{"general": {"defaultApprovalMode": "yolo", "maxAttempts": 3}}`)
	f.Add(`{"context": {"fileName": ["A.md", 1]}, "tools": {"core": null}}`)
	f.Fuzz(func(t *testing.T, s string) {
		var obj map[string]any
		if json.Unmarshal([]byte(s), &obj) != nil {
			return
		}
		if err := validateSettings(obj); err != nil {
			if ie, ok := err.(*InvalidSettingsError); !ok || len(ie.Problems) == 0 || err.Error() == "" {
				t.Errorf("bad error %v", err)
			}
		}
	})
}

func TestValidateSettingsAcceptsDefaults(t *testing.T) {
	if err := validateSettings(defaults()); err != nil {
		t.Errorf("the defaults are invalid: %v", err)
	}
}
