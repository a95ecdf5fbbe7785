package config

import (
	"os"
	"path/filepath"
	"testing"
)

func TestSetDotEnvValue(t *testing.T) {
	tests := []struct {
		name, before, key, value, after string
	}{
		{"new file", "", "K", "v", "K=v\n"},
		{"append keeps comments", "# mine\nA=1\n", "K", "v", "# mine\nA=1\nK=v\n"},
		{"replace in place", "A=1\nK=old # note\nB=2\n", "K", "new", "A=1\nK=new\nB=2\n"},
		{"replace export and colon", "export K: old\n", "K", "x", "K=x\n"},
		{"multi-line value replaced whole", "K=\"one\ntwo\"\nB=2\n", "K", "v", "K=v\nB=2\n"},
		{"spaces quoted", "", "K", "a b", "K=\"a b\"\n"},
		{"hash quoted", "", "K", "a #b", "K=\"a #b\"\n"},
		{"double quote uses single", "", "K", `say "hi"`, "K='say \"hi\"'\n"},
		{"newline escaped", "", "K", "a\nb", "K=\"a\\nb\"\n"},
		{"empty", "", "K", "", "K=\n"},
		{"repeated key collapses", "K=1\nK=2\n", "K", "3", "K=3\n"},
		{"unclosed quote is one line", "K=\"old\nB=2\n", "K", "v", "K=v\nB=2\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), ".env")
			if tt.before != "" {
				os.WriteFile(p, []byte(tt.before), 0o600)
			}
			if err := SetDotEnvValue(p, tt.key, tt.value); err != nil {
				t.Fatal(err)
			}
			data, _ := os.ReadFile(p)
			if string(data) != tt.after {
				t.Errorf("file %q, want %q", data, tt.after)
			}
			if got := readDotEnvFile(p)[tt.key]; got != tt.value {
				t.Errorf("read back %q, want %q", got, tt.value)
			}
		})
	}
	if err := SetDotEnvValue(filepath.Join(t.TempDir(), ".env"), "BAD KEY", "v"); err == nil {
		t.Error("a key with a space was accepted")
	}
}

// FuzzSetDotEnvValue: whatever is stored is read back as given, or
// refused with an error; other keys keep their values.
func FuzzSetDotEnvValue(f *testing.F) {
	for _, v := range []string{"v", "a b", `"x"`, "it's", "a\nb", "#c", " lead", "trail ", "`b`", `\n`, "a\\", "'\"`"} {
		f.Add("OTHER=1\n", v)
	}
	f.Fuzz(func(t *testing.T, before, value string) {
		p := filepath.Join(t.TempDir(), ".env")
		os.WriteFile(p, []byte(before), 0o600)
		others := readDotEnvFile(p)
		if err := SetDotEnvValue(p, "K", value); err != nil {
			return
		}
		got := readDotEnvFile(p)
		if got["K"] != value {
			t.Fatalf("stored %q, read back %q", value, got["K"])
		}
		for k, v := range others {
			if k != "K" && got[k] != v {
				t.Fatalf("%s changed from %q to %q", k, v, got[k])
			}
		}
	})
}
