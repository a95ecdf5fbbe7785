package host

import (
	"cmp"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestToken(t *testing.T) {
	tests := []struct {
		token, header string
		admits        bool
	}{
		{"", "", true},
		{"", "Bearer x", true},
		{"s3cret", "", false},
		{"s3cret", "Bearer s3cret", true},
		{"s3cret", "bearer  s3cret ", true},
		{"s3cret", "Basic s3cret", false},
		{"s3cret", "Bearer s3cre", false},
		{"s3cret", "Bearer", false},
	}
	for _, tt := range tests {
		r := httptest.NewRequest("GET", "/", nil)
		if tt.header != "" {
			r.Header.Set("Authorization", tt.header)
		}
		if got := NewToken(tt.token).Admits(r); got != tt.admits {
			t.Errorf("token %q, Authorization %q: admits %v", tt.token, tt.header, got)
		}
	}
}

func TestReadJSON(t *testing.T) {
	tests := []struct {
		body, want string
		status     int
		err        string
	}{
		{`{"a":"x"}`, "x", 0, ""},
		{"", "kept", 0, ""},
		{" \n", "kept", 0, ""},
		{`{"a":`, "kept", http.StatusBadRequest, "invalid JSON body: unexpected end of JSON input"},
		// A value of the wrong kind is named in the JSON's terms, not the
		// server's Go types.
		{`{"a":1}`, "kept", http.StatusBadRequest, `invalid JSON body: "A" must be a string, not number`},
		{`{"a":"0123456789"}`, "kept", http.StatusRequestEntityTooLarge, "request body larger than 16 bytes"},
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/", strings.NewReader(tt.body))
		r.Body = http.MaxBytesReader(w, r.Body, 16)
		v := struct{ A string }{A: "kept"}
		status, err := ReadJSON(r, &v)
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if v.A != tt.want || status != tt.status || msg != tt.err {
			t.Errorf("%q: %q, %d, %q; want %q, %d, %q", tt.body, v.A, status, msg, tt.want, tt.status, tt.err)
		}
	}
}

// TestGuard: a request without the token is refused with a challenge,
// one with it reaches the handler with its body bounded.
func TestGuard(t *testing.T) {
	h := NewToken("s3cret").Guard(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, status, _ := ReadBody(r)
		w.WriteHeader(cmp.Or(status, http.StatusOK))
	}), "test-realm", 4)
	tests := []struct {
		header, body, challenge string
		status                  int
	}{
		{"", "{}", `Bearer realm="test-realm"`, http.StatusUnauthorized},
		{"Bearer wrong", "{}", `Bearer realm="test-realm"`, http.StatusUnauthorized},
		{"Bearer s3cret", "{}", "", http.StatusOK},
		{"Bearer s3cret", "{\"a\":1}", "", http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/", strings.NewReader(tt.body))
		if tt.header != "" {
			r.Header.Set("Authorization", tt.header)
		}
		h.ServeHTTP(w, r)
		if w.Code != tt.status || w.Header().Get("WWW-Authenticate") != tt.challenge {
			t.Errorf("Authorization %q, body %s: %d %q", tt.header, tt.body, w.Code, w.Header().Get("WWW-Authenticate"))
		}
		if tt.status == http.StatusUnauthorized && w.Body.String() != `{"error":"unauthorized: a valid bearer token is required"}`+"\n" {
			t.Errorf("refusal body %q", w.Body)
		}
	}
}

func TestLoopback(t *testing.T) {
	for h, want := range map[string]bool{
		"localhost": true, "127.0.0.1": true, "[::1]": true, "127.1.2.3": true,
		"0.0.0.0": false, "": false, "example.com": false, "[::]": false, "10.0.0.1": false,
	} {
		if got := Loopback(h); got != want {
			t.Errorf("Loopback(%q) = %v", h, got)
		}
	}
}

func TestWorkspace(t *testing.T) {
	root, err := RealDir(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	outside := t.TempDir()
	in := filepath.Join(root, "ws")
	os.Mkdir(in, 0o755)
	file := filepath.Join(root, "f.txt")
	os.WriteFile(file, nil, 0o644)
	link := filepath.Join(root, "escape")
	os.Symlink(outside, link)
	tests := []struct {
		path, want, err string
	}{
		{in, in, ""},
		{root, root, ""},
		{filepath.Join(root, "missing"), "", "does not exist"},
		{outside, "", "outside the allowed root"},
		{link, "", "outside the allowed root"},
		{file, "", "is not a directory"},
	}
	for _, tt := range tests {
		got, err := Workspace(tt.path, root)
		if got != tt.want || (err == nil) != (tt.err == "") || (err != nil && !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("Workspace(%s) = %q, %v; want %q, %q", tt.path, got, err, tt.want, tt.err)
		}
	}
	if _, err := RealDir(file); err == nil {
		t.Error("RealDir accepted a file")
	}
}

func TestReadBody(t *testing.T) {
	tests := []struct {
		body   string
		limit  int64
		status int
	}{
		{"{}", 10, 0},
		{"0123456789", 10, 0},
		{"0123456789x", 10, http.StatusRequestEntityTooLarge},
	}
	for _, tt := range tests {
		w := httptest.NewRecorder()
		r := httptest.NewRequest("POST", "/", strings.NewReader(tt.body))
		r.Body = http.MaxBytesReader(w, r.Body, tt.limit)
		b, status, err := ReadBody(r)
		if status != tt.status || (err == nil) != (tt.status == 0) || (err == nil && string(b) != tt.body) {
			t.Errorf("%q within %d: %q, %d, %v", tt.body, tt.limit, b, status, err)
		}
	}
}

// FuzzToken: a client's Authorization header never crashes the check,
// and only the token itself is admitted.
func FuzzToken(f *testing.F) {
	for _, s := range []string{"Bearer s3cret", "bearer s3cret", "Bearer", "", "Basic x", "Bearer  s3cret\t"} {
		f.Add(s)
	}
	tok := NewToken("s3cret")
	f.Fuzz(func(t *testing.T, header string) {
		r := httptest.NewRequest("GET", "/", nil)
		r.Header["Authorization"] = []string{header}
		scheme, rest, _ := strings.Cut(header, " ")
		want := strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(rest) == "s3cret"
		if got := tok.Admits(r); got != want {
			t.Errorf("Authorization %q: admitted %v", header, got)
		}
	})
}

// FuzzWorkspace: whatever path a client names, an accepted workspace is
// the root or under it.
func FuzzWorkspace(f *testing.F) {
	root, err := RealDir(f.TempDir())
	if err != nil {
		f.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "a", "b"), 0o755)
	os.Symlink("/", filepath.Join(root, "up"))
	for _, s := range []string{".", "a", "a/b", "../", "a/../..", "up", "up/tmp", "/", "a/./b/../b", "\x00"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, p string) {
		if !filepath.IsAbs(p) {
			p = filepath.Join(root, p)
		}
		ws, err := Workspace(p, root)
		if err != nil {
			return
		}
		if ws != root && !strings.HasPrefix(ws, root+string(filepath.Separator)) {
			t.Errorf("Workspace(%q) = %q, outside %s", p, ws, root)
		}
	})
}
