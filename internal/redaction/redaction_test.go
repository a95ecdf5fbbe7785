package redaction

import (
	"slices"
	"strings"
	"testing"
)

func TestApply(t *testing.T) {
	base := []string{
		"PATH=/bin", "HOME=/h", "TERM=xterm", "PLAIN=ok", "OTHER=fine",
		"GITHUB_TOKEN=x", "MY_SECRET=x", "api_key=x", "Db_Password=x", "DATABASE_URL=x",
		"URL=https://user:pass@host", "GEMINI_CLI_HOME=/g", "GIT_CONFIG_KEY_0=core.pager",
		"JWT=eyJabc.def.ghi", "NOTE=ghp_" + strings.Repeat("a", 36), "AWS=akia" + strings.Repeat("B", 16),
		"PEM=-----BEGIN OPENSSH PRIVATE KEY-----", "EMPTY=",
	}
	tests := []struct {
		name  string
		rules Rules
		env   []string
		want  []string
	}{
		{"off passes everything", Rules{}, base, base},
		{"off ignores the lists", Rules{Blocked: []string{"PLAIN"}}, base, base},
		{"on", Rules{Enabled: true}, base,
			[]string{"PATH=/bin", "HOME=/h", "TERM=xterm", "PLAIN=ok", "OTHER=fine", "GEMINI_CLI_HOME=/g", "GIT_CONFIG_KEY_0=core.pager", "EMPTY="}},
		{"allowed and blocked, any case", Rules{Enabled: true, Allowed: []string{"my_secret", "database_url"}, Blocked: []string{"other", "path"}}, base,
			[]string{"HOME=/h", "TERM=xterm", "PLAIN=ok", "MY_SECRET=x", "DATABASE_URL=x", "GEMINI_CLI_HOME=/g", "GIT_CONFIG_KEY_0=core.pager", "EMPTY="}},
		{"allowing does not pass a credential-shaped value", Rules{Enabled: true, Allowed: []string{"URL", "JWT"}}, []string{"URL=https://user:pass@host", "JWT=eyJa.b.c", "SITE=https://host/x"},
			[]string{"SITE=https://host/x"}},
		{"allowed beats blocked", Rules{Enabled: true, Allowed: []string{"X"}, Blocked: []string{"X"}}, []string{"X=1"}, []string{"X=1"}},
		{"GitHub Actions is strict even when off", Rules{}, append(slices.Clone(base), "GITHUB_SHA=abc"),
			[]string{"PATH=/bin", "HOME=/h", "TERM=xterm", "GEMINI_CLI_HOME=/g", "GIT_CONFIG_KEY_0=core.pager"}},
		{"strict keeps the allowed", Rules{Allowed: []string{"PLAIN"}}, []string{"SURFACE=Github", "PLAIN=ok", "OTHER=x"},
			[]string{"PLAIN=ok"}},
		{"an empty GITHUB_SHA is not Actions", Rules{}, []string{"GITHUB_SHA=", "MY_TOKEN=x"}, []string{"GITHUB_SHA=", "MY_TOKEN=x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.rules.Apply(tt.env); !slices.Equal(got, tt.want) {
				t.Errorf("Apply =\n%q\nwant\n%q", got, tt.want)
			}
		})
	}
}

func TestSecure(t *testing.T) {
	tests := []struct {
		allowed, want []string
	}{
		{nil, nil},
		{[]string{"PLAIN", "github_token", "Database_Url", "MY_CERT_DIR", "EDITOR"}, []string{"PLAIN", "EDITOR"}},
	}
	for _, tt := range tests {
		r := Rules{Enabled: true, Allowed: tt.allowed, Blocked: []string{"B"}}.Secure()
		if !slices.Equal(r.Allowed, tt.want) || !r.Enabled || !slices.Equal(r.Blocked, []string{"B"}) {
			t.Errorf("Secure(%q) = %+v, want allowed %q", tt.allowed, r, tt.want)
		}
	}
}

// FuzzApply: whatever the environment, redaction only ever removes
// entries, keeps their order, and a second pass removes nothing more.
func FuzzApply(f *testing.F) {
	f.Add("PATH=/bin\nMY_TOKEN=x\nURL=https://a:b@c", "my_token", "PATH", true)
	f.Add("GITHUB_SHA=1\nX=y\n=z\nnoequals", "", "", false)
	f.Fuzz(func(t *testing.T, env, allowed, blocked string, enabled bool) {
		environ := strings.Split(env, "\n")
		r := Rules{Enabled: enabled, Allowed: strings.Fields(allowed), Blocked: strings.Fields(blocked)}
		got := r.Apply(environ)
		i := 0
		for _, kv := range got {
			for i < len(environ) && environ[i] != kv {
				i++
			}
			if i == len(environ) {
				t.Fatalf("Apply(%q) = %q: not an ordered subset", environ, got)
			}
			i++
		}
		if again := r.Apply(got); !slices.Equal(again, got) && !Strict(environ) {
			t.Fatalf("second pass changed %q to %q", got, again)
		}
	})
}
