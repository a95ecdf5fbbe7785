package config

import (
	"path/filepath"
	"testing"
)

func TestSecuritySwitches(t *testing.T) {
	tests := []struct {
		settings     string
		yolo, always bool
	}{
		{`{}`, false, false},
		{`{"security": {"disableYoloMode": true}}`, true, false},
		{`{"security": {"disableYoloMode": false}}`, false, false},
		{`{"security": {"disableAlwaysAllow": true}}`, false, true},
		{`{"security": {"disableAlwaysAllow": true, "disableYoloMode": true}}`, true, true},
	}
	for _, tt := range tests {
		root := realTempDir(t)
		writeTree(t, root, map[string]string{"home/.gemini/settings.json": tt.settings, "ws/": ""})
		st, err := Load(LoadOptions{Workspace: filepath.Join(root, "ws"), HomeDir: filepath.Join(root, "home"), Env: EnvMap(nil)})
		if err != nil {
			t.Fatal(err)
		}
		if got := st.YoloDisabled(); got != tt.yolo {
			t.Errorf("%s: YoloDisabled %v, want %v", tt.settings, got, tt.yolo)
		}
		if got := st.AlwaysAllowDisabled(); got != tt.always {
			t.Errorf("%s: AlwaysAllowDisabled %v, want %v", tt.settings, got, tt.always)
		}
	}
	var nilSettings *Settings
	if nilSettings.YoloDisabled() || nilSettings.AlwaysAllowDisabled() {
		t.Error("nil settings disable YOLO mode")
	}
}
