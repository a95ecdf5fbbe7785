package update

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// tarGz is a release archive holding files at its top level.
func tarGz(t *testing.T, files map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for name, body := range files {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func sum(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// feed serves a release of tag on loopback whose checksums.txt says
// checksum for the archive ("" for the archive's true one).
func feed(t *testing.T, tag string, archive []byte, checksum string) string {
	t.Helper()
	name := ArchiveName(tag, "linux", "amd64")
	if checksum == "" {
		checksum = sum(archive)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/releases/latest", func(w http.ResponseWriter, r *http.Request) {
		_ = json.NewEncoder(w).Encode(Release{Tag: tag, Assets: []Asset{
			{Name: name, URL: "files/" + name}, // relative to the feed
			{Name: ChecksumsName, URL: "files/" + ChecksumsName},
		}})
	})
	mux.HandleFunc("/releases/files/"+name, func(w http.ResponseWriter, r *http.Request) { _, _ = w.Write(archive) })
	mux.HandleFunc("/releases/files/"+ChecksumsName, func(w http.ResponseWriter, r *http.Request) {
		_, _ = w.Write([]byte(checksum + "  " + name + "\n" + strings.Repeat("0", 64) + "  other.zip\n"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/releases/latest"
}

func TestDownload(t *testing.T) {
	archive := tarGz(t, map[string]string{"LICENSE": "license", "castor": "new binary"})
	tests := []struct {
		name     string
		checksum string
		wantErr  string
	}{
		{"verified", "", ""},
		{"bad checksum refused", strings.Repeat("ab", 32), "checksum mismatch for castor_0.2.0_linux_amd64.tar.gz"},
		{"not a checksum", "xyz", "is not a SHA-256"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := &Client{FeedURL: feed(t, "v0.2.0", archive, tt.checksum)}
			rel, err := c.Latest(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if !rel.Newer("0.1.0") || rel.Newer("0.2.0") || rel.Newer("0.10.0") {
				t.Errorf("Newer is wrong for %s", rel.Tag)
			}
			bin, err := c.Download(context.Background(), rel, "linux", "amd64")
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErr)
				}
				if bin != nil {
					t.Errorf("an unverified binary was returned")
				}
				return
			}
			if err != nil || string(bin) != "new binary" {
				t.Fatalf("Download = %q, %v", bin, err)
			}
		})
	}
}

func TestDownloadNoArchiveForPlatform(t *testing.T) {
	c := &Client{FeedURL: feed(t, "v0.2.0", tarGz(t, map[string]string{"castor": "x"}), "")}
	rel, err := c.Latest(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Download(context.Background(), rel, "plan9", "amd64"); err == nil || !strings.Contains(err.Error(), "has no castor_0.2.0_plan9_amd64.tar.gz") {
		t.Fatalf("err = %v", err)
	}
}

func TestExtractZip(t *testing.T) {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("castor_1_windows_amd64/castor.exe")
	if err != nil {
		t.Fatal(err)
	}
	_, _ = w.Write([]byte("exe"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	got, err := Extract(buf.Bytes(), "castor_1_windows_amd64.zip", "castor.exe")
	if err != nil || string(got) != "exe" {
		t.Fatalf("Extract = %q, %v", got, err)
	}
	if _, err := Extract(buf.Bytes(), "x.zip", "castor"); err == nil {
		t.Fatal("a missing binary was not reported")
	}
}

func TestReplace(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the replacement is a shell script")
	}
	dir := t.TempDir()
	exe := filepath.Join(dir, "castor")
	if err := os.WriteFile(exe, []byte("old"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A binary that does not run is refused, and the old one stays.
	if err := Replace(exe, []byte("#!/bin/sh\nexit 3\n")); err == nil || !strings.Contains(err.Error(), "does not run") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(exe); string(b) != "old" {
		t.Fatalf("the old binary was touched: %q", b)
	}
	newBin := "#!/bin/sh\necho 0.2.0\n"
	if err := Replace(exe, []byte(newBin)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(exe); string(b) != newBin {
		t.Fatalf("exe = %q", b)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Errorf("left beside the binary: %v", entries)
	}
}

func TestManagedBy(t *testing.T) {
	tests := map[string]string{
		"/usr/lib/node_modules/@castor-dev/castor-linux-x64/bin/castor": "npm",
		"/opt/homebrew/Cellar/castor/0.2.0/bin/castor":                  "brew",
		"/home/u/.local/bin/castor":                                     "",
	}
	for exe, want := range tests {
		if got := ManagedBy(exe); got != want {
			t.Errorf("ManagedBy(%s) = %q, want %q", exe, got, want)
		}
	}
}

func TestNotice(t *testing.T) {
	file := filepath.Join(t.TempDir(), StateName)
	c := &Client{FeedURL: feed(t, "v0.2.0", tarGz(t, map[string]string{"castor": "x"}), "")}
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	if !Due(file, c.FeedURL, now) || Notice(file, c.FeedURL, "0.1.0") != "" {
		t.Fatal("a notice before any check")
	}
	if err := Refresh(context.Background(), c, file, now); err != nil {
		t.Fatal(err)
	}
	if Due(file, c.FeedURL, now.Add(time.Hour)) || !Due(file, c.FeedURL, now.Add(CheckInterval)) {
		t.Error("Due ignores the interval")
	}
	if n := Notice(file, c.FeedURL, "0.1.0"); !strings.Contains(n, "Castor 0.2.0 is available") {
		t.Errorf("Notice = %q", n)
	}
	if n := Notice(file, c.FeedURL, "0.2.0"); n != "" {
		t.Errorf("Notice when current: %q", n)
	}
	if n := Notice(file, "http://127.0.0.1:1/other", "0.1.0"); n != "" {
		t.Errorf("Notice of another feed: %q", n)
	}
}
