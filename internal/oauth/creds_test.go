package oauth

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/golden"
)

func readTestdata(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseCredentials(t *testing.T) {
	exp := time.UnixMilli(1756650000000)
	tests := []struct {
		name    string
		in      string
		want    Credentials // Raw is not compared
		wantADC bool
		wantErr string
	}{
		{
			name: "castor sign-in",
			in:   string(readTestdata(t, "signin.json")),
			want: Credentials{
				AccessToken:  "ya29.a0AS3H6NxCastorAccessToken0123456789",
				RefreshToken: "1//0gCastorRefreshToken-abcdefghijklmnop",
				Scope:        "https://www.googleapis.com/auth/cloud-platform https://www.googleapis.com/auth/userinfo.profile https://www.googleapis.com/auth/userinfo.email openid",
				TokenType:    "Bearer",
				IDToken:      "eyJhbGciOiJSUzI1NiIsImtpZCI6ImZha2UiLCJ0eXAiOiJKV1QifQ.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20iLCJlbWFpbCI6InVzZXJAZXhhbXBsZS5jb20ifQ.ZmFrZS1zaWduYXR1cmU",
				Expiry:       exp,
				ClientID:     "1234-castor-test.apps.example.com",
				Account:      "user@example.com",
			},
		},
		{
			name: "nulls from google-auth-library",
			in:   `{"access_token":"a","refresh_token":"r","id_token":null,"expiry_date":null,"token_type":null,"scope":"s"}`,
			want: Credentials{AccessToken: "a", RefreshToken: "r", Scope: "s"},
		},
		{
			name: "javascript number forms",
			in:   `{"refresh_token":"r","expiry_date":1.75665e12}`,
			want: Credentials{RefreshToken: "r", Expiry: exp},
		},
		{
			name: "string expiry",
			in:   `{"refresh_token":"r","expiry_date":"1756650000000"}`,
			want: Credentials{RefreshToken: "r", Expiry: exp},
		},
		{
			name:    "service account",
			in:      `{"type":"service_account","client_email":"x@y.iam.gserviceaccount.com"}`,
			want:    Credentials{Type: "service_account"},
			wantADC: true,
		},
		{
			name:    "gcloud authorized user",
			in:      `{"type":"authorized_user","client_id":"c","client_secret":"s","refresh_token":"r"}`,
			want:    Credentials{Type: "authorized_user", ClientID: "c", RefreshToken: "r"},
			wantADC: true,
		},
		{
			name:    "authorized user without client is still ADC",
			in:      `{"type":"authorized_user","refresh_token":"r"}`,
			want:    Credentials{Type: "authorized_user", RefreshToken: "r"},
			wantADC: true,
		},
		{name: "array", in: `[]`, wantErr: "cannot unmarshal"},
		{name: "null", in: `null`, wantErr: "not a JSON object"},
		{name: "empty object", in: `{}`, wantErr: "no access_token or refresh_token"},
		{name: "number token", in: `{"access_token":5}`, wantErr: "access_token is not a string"},
		{name: "bad expiry", in: `{"access_token":"a","expiry_date":"soon"}`, wantErr: "expiry_date"},
		{name: "huge expiry", in: `{"access_token":"a","expiry_date":1e300}`, wantErr: "expiry_date"},
		{name: "truncated", in: `{"access_token":"a"`, wantErr: "unexpected end"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ParseCredentials([]byte(tt.in))
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.IsADC() != tt.wantADC {
				t.Errorf("IsADC = %v", got.IsADC())
			}
			got.Raw = nil
			if !got.Expiry.Equal(tt.want.Expiry) {
				t.Errorf("expiry = %v, want %v", got.Expiry, tt.want.Expiry)
			}
			got.Expiry, tt.want.Expiry = time.Time{}, time.Time{}
			if !reflect.DeepEqual(*got, tt.want) {
				t.Errorf("got %+v\nwant %+v", *got, tt.want)
			}
		})
	}
}

// A file Castor wrote after signing in comes back byte for byte when
// read and written again: same keys, order, indentation and number format.
func TestMarshalRoundTrips(t *testing.T) {
	in := readTestdata(t, "signin.json")
	c, err := ParseCredentials(in)
	if err != nil {
		t.Fatal(err)
	}
	out, err := MarshalCredentials(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out, in) {
		t.Errorf("Castor writes\n%s\nthe file was\n%s", out, in)
	}
}

// A file whose keys come in another order (edited by hand, or by a
// JSON tool) is written back in the canonical order, pinned by a golden
// file in the shape of a fresh sign-in.
func TestMarshalGolden(t *testing.T) {
	c, err := ParseCredentials(readTestdata(t, "signin_reordered.json"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := MarshalCredentials(c)
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "signin_reordered.golden.json", got)
	if err := sameShape(got, readTestdata(t, "signin.json")); err != nil {
		t.Error(err)
	}
}

// sameShape checks that two credential files have the same keys in the
// same order with values of the same JSON types.
func sameShape(a, b []byte) error {
	ka, err := keysAndKinds(a)
	if err != nil {
		return err
	}
	kb, err := keysAndKinds(b)
	if err != nil {
		return err
	}
	if strings.Join(ka, ",") != strings.Join(kb, ",") {
		return errors.New("shape " + strings.Join(ka, ",") + " != " + strings.Join(kb, ","))
	}
	return nil
}

func keysAndKinds(b []byte) ([]string, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	var out []string
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, err
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil, err
		}
		kind := "string"
		if _, ok := v.(float64); ok {
			kind = "number"
		}
		out = append(out, k.(string)+":"+kind)
	}
	return out, nil
}

func TestMarshalEscapesLikeJavaScript(t *testing.T) {
	out, err := MarshalCredentials(&Credentials{AccessToken: "a<b>&\"c"})
	if err != nil {
		t.Fatal(err)
	}
	if want := "{\n  \"access_token\": \"a<b>&\\\"c\"\n}"; string(out) != want {
		t.Errorf("got %s want %s", out, want)
	}
	if out, _ := MarshalCredentials(&Credentials{}); string(out) != "{}" {
		t.Errorf("empty = %s", out)
	}
}

func TestStoreSaveLoadRemove(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".gemini")
	s := &Store{Dir: dir}
	if _, err := s.Load(); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("load of nothing = %v", err)
	}
	c := &Credentials{AccessToken: "a", RefreshToken: "r", TokenType: "Bearer", Expiry: time.UnixMilli(1756650000000)}
	if err := s.Save(c); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(s.CredsPath())
	if err != nil {
		t.Fatal(err)
	}
	if runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("mode = %v, want 0600", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
	got, err := s.Load()
	if err != nil || got.AccessToken != "a" || got.RefreshToken != "r" || !got.Expiry.Equal(c.Expiry) {
		t.Fatalf("load = %+v, %v", got, err)
	}
	if err := s.Save(&Credentials{Type: "service_account", Raw: []byte(`{}`)}); err == nil {
		t.Error("saved application default credentials over the sign-in")
	}
	if removed, err := s.Remove(); !removed || err != nil {
		t.Errorf("remove = %v, %v", removed, err)
	}
	if removed, err := s.Remove(); removed || err != nil {
		t.Errorf("second remove = %v, %v", removed, err)
	}
}

func FuzzParseCredentials(f *testing.F) {
	for _, name := range []string{"signin.json", "signin_reordered.json"} {
		b, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"type":"service_account"}`))
	f.Add([]byte(`{"refresh_token":"r","expiry_date":"1e3"}`))
	f.Add([]byte(`{"access_token":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseCredentials(data)
		if err != nil {
			return
		}
		if c.IsADC() {
			return
		}
		// Whatever parses must survive a write and a read.
		out, err := MarshalCredentials(c)
		if err != nil {
			t.Fatal(err)
		}
		back, err := ParseCredentials(out)
		if err != nil {
			t.Fatalf("reparse of %s: %v", out, err)
		}
		if back.AccessToken != c.AccessToken || back.RefreshToken != c.RefreshToken || back.Expiry.UnixMilli() != c.Expiry.UnixMilli() || back.ClientID != c.ClientID || back.Account != c.Account {
			t.Fatalf("round trip changed %+v into %+v", c, back)
		}
	})
}
