package host

import (
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
