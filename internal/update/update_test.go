package update_test

import (
	"archive/zip"
	"bytes"
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/castor-dev/castor/internal/update"
	"github.com/castor-dev/castor/internal/update/updatetest"
)

func tarGz(t *testing.T, files map[string]string) []byte { return updatetest.TarGz(t, files) }

func feed(t *testing.T, tag string, archive []byte, checksum string) string {
	return updatetest.Feed(t, tag, "linux", "amd64", archive, checksum)
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
			c := &update.Client{FeedURL: feed(t, "v0.2.0", archive, tt.checksum)}
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
	c := &update.Client{FeedURL: feed(t, "v0.2.0", tarGz(t, map[string]string{"castor": "x"}), "")}
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
	got, err := update.Extract(buf.Bytes(), "castor_1_windows_amd64.zip", "castor.exe")
	if err != nil || string(got) != "exe" {
		t.Fatalf("update.Extract = %q, %v", got, err)
	}
	if _, err := update.Extract(buf.Bytes(), "x.zip", "castor"); err == nil {
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
	if err := update.Replace(exe, []byte("#!/bin/sh\nexit 3\n")); err == nil || !strings.Contains(err.Error(), "does not run") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(exe); string(b) != "old" {
		t.Fatalf("the old binary was touched: %q", b)
	}
	newBin := "#!/bin/sh\necho 0.2.0\n"
	if err := update.Replace(exe, []byte(newBin)); err != nil {
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
		if got := update.ManagedBy(exe); got != want {
			t.Errorf("update.ManagedBy(%s) = %q, want %q", exe, got, want)
		}
	}
}

func TestNotice(t *testing.T) {
	file := filepath.Join(t.TempDir(), update.StateName)
	c := &update.Client{FeedURL: feed(t, "v0.2.0", tarGz(t, map[string]string{"castor": "x"}), "")}
	now := time.Date(2026, 12, 7, 0, 0, 0, 0, time.UTC)
	if !update.Due(file, c.FeedURL, now) || update.Notice(file, c.FeedURL, "0.1.0") != "" {
		t.Fatal("a notice before any check")
	}
	if err := update.Refresh(context.Background(), c, file, now); err != nil {
		t.Fatal(err)
	}
	if update.Due(file, c.FeedURL, now.Add(time.Hour)) || !update.Due(file, c.FeedURL, now.Add(update.CheckInterval)) {
		t.Error("update.Due ignores the interval")
	}
	if n := update.Notice(file, c.FeedURL, "0.1.0"); !strings.Contains(n, "Castor 0.2.0 is available") {
		t.Errorf("update.Notice = %q", n)
	}
	if n := update.Notice(file, c.FeedURL, "0.2.0"); n != "" {
		t.Errorf("update.Notice when current: %q", n)
	}
	if n := update.Notice(file, "http://127.0.0.1:1/other", "0.1.0"); n != "" {
		t.Errorf("update.Notice of another feed: %q", n)
	}
}
