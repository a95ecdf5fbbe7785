package pgwire

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cleanEnv leaves ParseConfig only what a test gives it: no PG*
// variables, an empty home.
func cleanEnv(t *testing.T) string {
	t.Helper()
	for _, e := range envKeys {
		t.Setenv(e[0], "")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	return home
}

// target is a Target without its TLS settings: whether it has TLS, and
// which name it checks or sends.
type target struct {
	host       string
	port       uint16
	tls        bool
	serverName string
	verify     bool // Go's verification of the name, or a chain check
}

func targets(c *Config) []target {
	var out []target
	for _, t := range c.Targets {
		tt := target{host: t.Host, port: t.Port, tls: t.TLS != nil}
		if t.TLS != nil {
			tt.serverName = t.TLS.ServerName
			tt.verify = !t.TLS.InsecureSkipVerify || t.TLS.VerifyPeerCertificate != nil
		}
		out = append(out, tt)
	}
	return out
}

func TestParseConfig(t *testing.T) {
	cleanEnv(t)
	for _, c := range []struct {
		in                 string
		user, pw, database string
		targets            []target
		params             map[string]string
	}{
		{
			in:   "postgres://jack:secret@db.example.com:5433/mydb?sslmode=verify-full&application_name=castor",
			user: "jack", pw: "secret", database: "mydb",
			targets: []target{{"db.example.com", 5433, true, "db.example.com", true}},
			params:  map[string]string{"application_name": "castor"},
		},
		{
			in:   "postgresql://j%40ck:p%2Fw@127.0.0.1/my%20db?sslmode=disable",
			user: "j@ck", pw: "p/w", database: "my db",
			targets: []target{{"127.0.0.1", 5432, false, "", false}},
		},
		{
			// prefer (the default): TLS, then plain; no SNI for an address.
			in: "postgres://u@[::1]:6000/d", user: "u", database: "d",
			targets: []target{{"::1", 6000, true, "", false}, {"::1", 6000, false, "", false}},
		},
		{
			in: "postgres://u@a,b:7/d?sslmode=allow", user: "u", database: "d",
			targets: []target{{"a", 5432, false, "", false}, {"a", 5432, true, "a", false}, {"b", 7, false, "", false}, {"b", 7, true, "b", false}},
		},
		{
			in: "postgres://u@h/d?ssl=true", user: "u", database: "d",
			targets: []target{{"h", 5432, true, "h", false}},
		},
		{
			in: "postgres://u@h/d?sslmode=verify-ca&sslsni=0", user: "u", database: "d",
			targets: []target{{"h", 5432, true, "", true}},
		},
		{
			in:   "host=/run/pg port=5 user=u dbname=d password='a b\\'c' search_path=x",
			user: "u", pw: "a b'c", database: "d",
			targets: []target{{"/run/pg", 5, false, "", false}},
			params:  map[string]string{"search_path": "x"},
		},
		{
			in: "postgres://u@%2Frun%2Fpg/d", user: "u", database: "d",
			targets: []target{{"/run/pg", 5432, false, "", false}},
		},
		{
			in: "  host = h  user=u\tdbname=d sslmode=require options=-c\\ x=1 ", user: "u", database: "d",
			targets: []target{{"h", 5432, true, "h", false}},
			params:  map[string]string{"options": "-c x=1"},
		},
	} {
		cfg, err := ParseConfig(c.in)
		if err != nil {
			t.Errorf("%s: %v", c.in, err)
			continue
		}
		if cfg.User != c.user || cfg.Password != c.pw || cfg.Database != c.database {
			t.Errorf("%s: user %q password %q database %q", c.in, cfg.User, cfg.Password, cfg.Database)
		}
		if got := targets(cfg); !equalTargets(got, c.targets) {
			t.Errorf("%s: targets %+v, want %+v", c.in, got, c.targets)
		}
		if len(cfg.RuntimeParams) != len(c.params) {
			t.Errorf("%s: runtime params %v, want %v", c.in, cfg.RuntimeParams, c.params)
		}
		for k, v := range c.params {
			if cfg.RuntimeParams[k] != v {
				t.Errorf("%s: runtime params %v, want %v", c.in, cfg.RuntimeParams, c.params)
			}
		}
	}
}

func equalTargets(a, b []target) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestParseConfigRefuses(t *testing.T) {
	cleanEnv(t)
	for _, in := range []string{
		"postgres://u@h/d?sslmode=sometimes",
		"postgres://u@h/d?target_session_attrs=read-write",
		"postgres://u@h/d?service=prod",
		"postgres://u@h/d?require_auth=scram-sha-256",
		"postgres://u@h/d?channel_binding=always",
		"postgres://u@h/d?sslnegotiation=direct",
		"postgres://u@h/d?max_protocol_version=3.2",
		"postgres://u@h/d?sslcertmode=require",
		"postgres://u@h/d?sslpassword=secret",
		"postgres://u@h/d?connect_timeout=soon",
		"postgres://u@h:99999/d",
		"host=a,b port=1,2,3",
		"postgres://u@h/d?sslrootcert=/nonexistent",
		"postgres://u@h/d?sslcert=/nonexistent",
		"postgres://u@h/d?a%zz=1",
		"postgres://u@h/d?a",
		"postgres://u@h/d?a=b=c",
		"postgres://u@h/d?a=b%00",
		"postgres://u@[::1/d",
		"postgres://u@h/d x",
		"host=h password='unterminated",
		"host",
		"=x",
		"host=h\x00",
	} {
		if _, err := ParseConfig(in); err == nil {
			t.Errorf("%q parsed", in)
		} else if strings.Contains(err.Error(), "secret") {
			t.Errorf("%q: the error quotes the password: %v", in, err)
		}
	}
	if _, err := ParseConfig("postgres://u:s%zzecret@h/d"); err == nil || strings.Contains(err.Error(), "s%zzecret") {
		t.Errorf("a bad password: %v", err)
	}
}

func TestParseConfigEnvironment(t *testing.T) {
	home := cleanEnv(t)
	t.Setenv("PGHOST", "envhost")
	t.Setenv("PGPORT", "6543")
	t.Setenv("PGUSER", "envuser")
	t.Setenv("PGDATABASE", "envdb")
	t.Setenv("PGSSLMODE", "disable")
	t.Setenv("PGAPPNAME", "envapp")
	t.Setenv("PGCONNECT_TIMEOUT", "7")
	pass := filepath.Join(home, "pass")
	t.Setenv("PGPASSFILE", pass)
	lines := "# comment\nother:*:*:*:no\nenvhost:6543:envdb:envuser:pa\\:ss\\\\\n*:*:*:*:fallback\n"
	if err := os.WriteFile(pass, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err := ParseConfig("")
	if err != nil {
		t.Fatal(err)
	}
	if got := targets(cfg); !equalTargets(got, []target{{"envhost", 6543, false, "", false}}) || cfg.User != "envuser" || cfg.Database != "envdb" ||
		cfg.Password != `pa:ss\` || cfg.ConnectTimeout != 7*time.Second || cfg.RuntimeParams["application_name"] != "envapp" {
		t.Fatalf("%+v, targets %+v", cfg, got)
	}
	// The connection string wins over the environment; the pass file
	// answers for its host.
	cfg, err = ParseConfig("postgres://u@h:1/d?sslmode=require")
	if err != nil || cfg.User != "u" || cfg.Password != "fallback" || !cfg.Targets[0].TLS.InsecureSkipVerify {
		t.Fatalf("%+v, %v", cfg, err)
	}
	// A password given is not looked up.
	cfg, err = ParseConfig("postgres://u:given@h:1/d")
	if err != nil || cfg.Password != "given" {
		t.Fatalf("%+v, %v", cfg, err)
	}
	// ~/.pgpass by default, localhost for a socket.
	t.Setenv("PGPASSFILE", "")
	if err := os.WriteFile(filepath.Join(home, ".pgpass"), []byte("localhost:5432:d:u:sock\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg, err = ParseConfig("host=/run/pg port=5432 user=u dbname=d")
	if err != nil || cfg.Password != "sock" {
		t.Fatalf("%+v, %v", cfg, err)
	}
	// A variable for what Castor does not follow fails as the key would.
	t.Setenv("PGTARGETSESSIONATTRS", "primary")
	if _, err := ParseConfig("postgres://u@h/d"); err == nil {
		t.Fatal("PGTARGETSESSIONATTRS=primary was ignored")
	}
}

func TestSplitPassfileLine(t *testing.T) {
	got := splitPassfileLine(`h\:x:5432:d\\:u:p:w`)
	want := []string{"h:x", "5432", `d\`, "u", "p", "w"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%q, want %q", got, want)
	}
}

// FuzzParseConfig: whatever the connection string, ParseConfig returns a
// configuration with a target, or an error.
func FuzzParseConfig(f *testing.F) {
	for _, s := range []string{"postgres://u:p@h:1,[::1]:2/d?sslmode=disable&a=b", "host=h port=1 user='a b' password=x\\ y", "", "postgresql://%41@/"} {
		f.Add(s)
	}
	for _, e := range envKeys {
		f.Setenv(e[0], "")
	}
	f.Setenv("HOME", f.TempDir())
	f.Fuzz(func(t *testing.T, s string) {
		if strings.Contains(s, "sslrootcert") || strings.Contains(s, "sslcert") || strings.Contains(s, "sslkey") || strings.Contains(s, "passfile") {
			return // files the fuzzer should not name
		}
		cfg, err := ParseConfig(s)
		if err == nil && len(cfg.Targets) == 0 {
			t.Fatalf("%q: no target", s)
		}
	})
}
