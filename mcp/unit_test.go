package mcp

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/golden"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/oauth2"
)

func TestSanitizeName(t *testing.T) {
	long := strings.Repeat("a", 28) + strings.Repeat("m", 10) + strings.Repeat("z", 32)
	tests := []struct{ in, want string }{
		{"echo", "echo"},
		{"get-sum", "get-sum"},
		{"a.b_c-D9", "a.b_c-D9"},
		{"weird name/with:chars", "weird_name_with_chars"},
		{"héllo", "h_llo"},
		{"emoji😀", "emoji__"},
		{"", ""},
		{strings.Repeat("x", 63), strings.Repeat("x", 63)},
		{long, strings.Repeat("a", 28) + "___" + strings.Repeat("z", 32)},
	}
	for _, tt := range tests {
		if got := SanitizeName(tt.in); got != tt.want {
			t.Errorf("SanitizeName(%q) = %q, want %q", tt.in, got, tt.want)
		}
		if got := SanitizeName(tt.in); len(got) > MaxNameLength {
			t.Errorf("SanitizeName(%q) is %d long", tt.in, len(got))
		}
	}
}

func TestQualifiedAndGeminiNames(t *testing.T) {
	tests := []struct {
		server, tool, qualified, gemini string
	}{
		{"files", "read", "files__read", "mcp_files_read"},
		{"my server", "do:it", "my_server__do_it", "mcp_my_server_do:it"},
		{"s", strings.Repeat("t", 70), "s__" + strings.Repeat("t", 25) + "___" + strings.Repeat("t", 32), "mcp_s_" + strings.Repeat("t", 24) + "..." + strings.Repeat("t", 30)},
	}
	for _, tt := range tests {
		if got := QualifiedName(tt.server, tt.tool); got != tt.qualified {
			t.Errorf("QualifiedName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.qualified)
		}
		if got := GeminiName(tt.server, tt.tool); got != tt.gemini {
			t.Errorf("GeminiName(%q, %q) = %q, want %q", tt.server, tt.tool, got, tt.gemini)
		}
	}
}

func TestHasValidTypes(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		valid  bool
		cycle  bool
	}{
		{"spec valid tool", `{"type":"object","properties":{"param1":{"type":"string"}}}`, true, false},
		{"spec invalid tool", `{"type":"object","properties":{"param1":{"description":"a param with no type"}}}`, false, false},
		{"no type at all", `{}`, false, false},
		{"not an object", `"string"`, true, false},
		{"combiner without type", `{"anyOf":[{"type":"string"},{"type":"number"}]}`, true, false},
		{"combiner with untyped branch", `{"oneOf":[{"type":"string"},{"description":"x"}]}`, false, false},
		{"nested combiner in property", `{"type":"object","properties":{"p":{"allOf":[{"type":"object","properties":{"q":{"type":"integer"}}}]}}}`, true, false},
		{"array items typed", `{"type":"object","properties":{"a":{"type":"array","items":{"type":"string"}}}}`, true, false},
		{"array items untyped", `{"type":"object","properties":{"a":{"type":"array","items":{"description":"x"}}}}`, false, false},
		{"type list", `{"type":["string","null"]}`, true, false},
		{"empty type string", `{"type":""}`, false, false},
		{"ref to typed def", `{"type":"object","properties":{"n":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"string"}}}`, true, false},
		{"ref to untyped def", `{"type":"object","properties":{"n":{"$ref":"#/$defs/n"}},"$defs":{"n":{"description":"x"}}}`, false, false},
		{"dangling ref", `{"type":"object","properties":{"n":{"$ref":"#/$defs/missing"}}}`, false, false},
		{"recursive ref", `{"type":"object","properties":{"n":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/n"}}}}}}`, true, true},
		{"self ref", `{"type":"object","properties":{"me":{"$ref":"#"}}}`, true, true},
		{"escaped pointer", `{"type":"object","properties":{"n":{"$ref":"#/$defs/a~1b"}},"$defs":{"a/b":{"type":"string"}}}`, true, false},
		{"shared ref twice", `{"type":"object","properties":{"a":{"$ref":"#/$defs/n"},"b":{"$ref":"#/$defs/n"}},"$defs":{"n":{"type":"string"}}}`, true, false},
		{"indexed pointer", `{"type":"object","properties":{"n":{"$ref":"#/$defs/list/1"}},"$defs":{"list":[{"type":"string"},{"type":"number"}]}}`, true, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s any
			if err := json.Unmarshal([]byte(tt.schema), &s); err != nil {
				t.Fatal(err)
			}
			if got := HasValidTypes(s); got != tt.valid {
				t.Errorf("HasValidTypes = %v, want %v", got, tt.valid)
			}
			if got := HasCycle(s); got != tt.cycle {
				t.Errorf("HasCycle = %v, want %v", got, tt.cycle)
			}
		})
	}
}

func TestParsePromptArgs(t *testing.T) {
	two := []PromptArgument{{Name: "a", Required: true}, {Name: "b", Required: true}, {Name: "c"}}
	one := []PromptArgument{{Name: "text", Required: true}, {Name: "lang"}}
	tests := []struct {
		name  string
		input string
		args  []PromptArgument
		want  map[string]string
		err   string
	}{
		{"named", `--a="x y" --b=z`, two, map[string]string{"a": "x y", "b": "z"}, ""},
		{"positional", `first "second one"`, two, map[string]string{"a": "first", "b": "second one"}, ""},
		{"mixed", `--b=2 one`, two, map[string]string{"a": "one", "b": "2"}, ""},
		{"optional named", `--c=opt 1 2`, two, map[string]string{"a": "1", "b": "2", "c": "opt"}, ""},
		{"escapes", `--a="say \"hi\"" --b=x`, two, map[string]string{"a": `say "hi"`, "b": "x"}, ""},
		{"missing", `only`, two, nil, "Missing required argument(s): --b"},
		{"missing all", ``, two, nil, "Missing required argument(s): --a, --b"},
		{"single required takes all", `hello big world`, one, map[string]string{"text": "hello big world"}, ""},
		{"single required with named optional", `--lang=fr bonjour tout`, one, map[string]string{"text": "bonjour tout", "lang": "fr"}, ""},
		{"single required empty", ``, one, map[string]string{"text": ""}, ""},
		{"no declared args", `anything --x=1`, nil, map[string]string{}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParsePromptArgs(tt.input, tt.args)
			if tt.err != "" {
				if err == nil || err.Error() != tt.err {
					t.Fatalf("err = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil || !maps.Equal(got, tt.want) {
				t.Errorf("got %v, %v; want %v", got, err, tt.want)
			}
		})
	}
}

func TestPromptHelp(t *testing.T) {
	p := Prompt{Name: "add", Arguments: []PromptArgument{{Name: "x", Description: "first", Required: true}, {Name: "y"}}}
	golden.Check(t, "prompt_help.golden", []byte(p.Help()))
	if got := (Prompt{Name: "bare"}).Help(); got != `Prompt "bare" has no arguments.` {
		t.Errorf("bare help = %q", got)
	}
}

func TestRedactEnv(t *testing.T) {
	env := []string{
		"PATH=/bin", "HOME=/h", "GITHUB_TOKEN=x", "MY_SECRET=x", "api_key=x", "DATABASE_URL=x",
		"PLAIN=ok", "URL=https://user:pass@host", "GEMINI_CLI_HOME=/g", "GIT_CONFIG_KEY=1",
		"JWT=eyJabc.def.ghi", "OTHER=fine",
	}
	got := redactEnv(env, []string{"my_secret"}, []string{"OTHER"})
	want := []string{"PATH=/bin", "HOME=/h", "MY_SECRET=x", "PLAIN=ok", "GEMINI_CLI_HOME=/g", "GIT_CONFIG_KEY=1"}
	if !slices.Equal(got, want) {
		t.Errorf("redactEnv = %q, want %q", got, want)
	}
	strict := redactEnv(append(env, "GITHUB_SHA=abc"), nil, nil)
	if want := []string{"PATH=/bin", "HOME=/h", "GEMINI_CLI_HOME=/g", "GIT_CONFIG_KEY=1"}; !slices.Equal(strict, want) {
		t.Errorf("strict = %q, want %q", strict, want)
	}
	merged := mergeEnv([]string{"A=1", "B=2", "A=3"}, map[string]string{"B": "x", "C": "y"})
	if want := []string{"A=3", "B=x", "C=y"}; !slices.Equal(merged, want) {
		t.Errorf("mergeEnv = %q", merged)
	}
}

func TestLineWriter(t *testing.T) {
	var lines []string
	w := &lineWriter{emit: func(s string) { lines = append(lines, s) }}
	for _, chunk := range []string{"one\ntw", "o\r\n", "\n  \nthree"} {
		_, _ = w.Write([]byte(chunk))
	}
	if !slices.Equal(lines, []string{"one", "two"}) {
		t.Errorf("lines = %q", lines)
	}
}

func TestTokenStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), ".gemini", TokenFileName)
	// A file written by Gemini CLI, with a field Castor does not know.
	seed := `[{"serverName":"other","token":{"accessToken":"o","tokenType":"Bearer"},"updatedAt":1,"future":"kept"}]`
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(seed), 0o600); err != nil {
		t.Fatal(err)
	}
	ts := &TokenStore{Path: path}
	first := OAuthCredentials{ServerName: "s", Token: OAuthToken{AccessToken: "a1", RefreshToken: "r1", TokenType: "Bearer", ExpiresAt: 1000}, ClientID: "c", TokenURL: "http://t"}
	if err := ts.Save(first); err != nil {
		t.Fatal(err)
	}
	// A refresh without a new refresh token keeps the old one.
	if err := ts.Save(OAuthCredentials{ServerName: "s", Token: OAuthToken{AccessToken: "a2", TokenType: "Bearer"}, ClientID: "c"}); err != nil {
		t.Fatal(err)
	}
	got, err := ts.Get("s")
	if err != nil || got == nil || got.Token.AccessToken != "a2" || got.Token.RefreshToken != "r1" || got.UpdatedAt == 0 {
		t.Fatalf("Get = %+v, %v", got, err)
	}
	data, _ := os.ReadFile(path)
	if !strings.Contains(string(data), `"future": "kept"`) {
		t.Errorf("unknown field lost:\n%s", data)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v", fi.Mode())
	}
	if c, err := ts.Get("missing"); c != nil || err != nil {
		t.Errorf("missing = %+v, %v", c, err)
	}
	tok := OAuthToken{AccessToken: "x", ExpiresAt: 1700000000123}.oauth2Token()
	if !tok.Expiry.Equal(time.UnixMilli(1700000000123)) {
		t.Errorf("expiry = %v", tok.Expiry)
	}
	back := fromOAuth2((&oauth2.Token{AccessToken: "y", Expiry: time.UnixMilli(5)}).WithExtra(map[string]any{"scope": "a b"}))
	if back.TokenType != "Bearer" || back.ExpiresAt != 5 || back.Scope != "a b" {
		t.Errorf("fromOAuth2 = %+v", back)
	}
}

// TestTokenStoreWrites: the token file is replaced atomically and left
// owner-only, and a write that fails is an error that leaves nothing
// behind (no temporary file holding tokens).
func TestTokenStoreWrites(t *testing.T) {
	tests := []struct {
		name    string
		setup   func(t *testing.T, path string)
		wantErr bool
	}{
		{"new file", func(*testing.T, string) {}, false},
		{"loose old file", func(t *testing.T, path string) {
			if err := os.WriteFile(path, []byte("[]"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, false},
		// A directory in the file's place cannot be replaced.
		{"unwritable", func(t *testing.T, path string) {
			if err := os.MkdirAll(filepath.Join(path, "x"), 0o700); err != nil {
				t.Fatal(err)
			}
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, TokenFileName)
			tt.setup(t, path)
			err := (&TokenStore{Path: path}).Save(OAuthCredentials{ServerName: "s", Token: OAuthToken{AccessToken: "secret", TokenType: "Bearer"}})
			if (err != nil) != tt.wantErr {
				t.Fatalf("Save = %v, want error %v", err, tt.wantErr)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 || entries[0].Name() != TokenFileName {
				var names []string
				for _, e := range entries {
					names = append(names, e.Name())
				}
				t.Errorf("directory holds %v", names)
			}
			if tt.wantErr {
				return
			}
			if fi, err := os.Stat(path); err != nil {
				t.Error(err)
			} else if fi.Mode().Perm() != 0o600 {
				t.Errorf("token file mode %v, want 0600", fi.Mode().Perm())
			}
		})
	}
}

// FuzzResultParts feeds arbitrary tool results (as a server would send
// them) through the SDK's decoder and the part conversion: nothing may
// panic, every media block gives a caption and inline data, and the
// display has one line per block.
func FuzzResultParts(f *testing.F) {
	for _, s := range []string{
		`{"content":[{"type":"text","text":"hi"}]}`,
		`{"content":[{"type":"image","mimeType":"image/png","data":"iVBORw0K"},{"type":"audio","mimeType":"audio/wav","data":""}]}`,
		`{"content":[{"type":"resource","resource":{"uri":"x://y","text":"t"}},{"type":"resource","resource":{"uri":"x://z","blob":"AAEC"}}]}`,
		`{"content":[{"type":"resource_link","uri":"x://l","name":"n"},{"type":"resource","resource":{"uri":"x://e"}}]}`,
		`{"content":[],"isError":true}`,
		`{"content":[{"type":"text","text":"a\nb"}],"structuredContent":{"k":1}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var res sdk.CallToolResult
		if json.Unmarshal(b, &res) != nil {
			return
		}
		parts := ResultParts("fuzz", res.Content, false)
		display := ResultDisplay(&res)
		if res.Content == nil {
			if len(parts) != 1 || !strings.HasPrefix(display, "```json") {
				t.Fatalf("nil content: %v %q", parts, display)
			}
			return
		}
		media := 0
		for _, c := range res.Content {
			switch c := c.(type) {
			case *sdk.ImageContent, *sdk.AudioContent:
				media++
			case *sdk.EmbeddedResource:
				if c.Resource != nil && c.Resource.Text == "" && len(c.Resource.Blob) > 0 {
					media++
				}
			}
		}
		inline := 0
		for i, p := range parts {
			if p.InlineData != nil {
				inline++
				if i == 0 || !strings.HasPrefix(parts[i-1].Text, "[Tool 'fuzz' provided the following ") {
					t.Fatalf("inline data without caption at %d: %v", i, parts)
				}
			}
		}
		if inline != media {
			t.Fatalf("%d inline parts for %d media blocks", inline, media)
		}
		if len(res.Content) > 0 && strings.Count(display, "\n") < len(res.Content)-1 {
			t.Fatalf("display %q has too few lines for %d blocks", display, len(res.Content))
		}
		if _, err := json.Marshal(parts); err != nil {
			t.Fatal(err)
		}
	})
}
