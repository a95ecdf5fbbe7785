// Package updatetest serves release feeds on loopback for tests of
// `castor update`, install.sh and the start-up notice.
package updatetest

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/castor-dev/castor/internal/update"
)

// TarGz is a release archive holding files at its top level.
func TarGz(t testing.TB, files map[string]string) []byte {
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

// Feed serves, until the test ends, a release tagged tag whose archive
// for goos/goarch is archive, and returns the feed's URL. Its
// checksums.txt gives checksum for the archive, or the archive's true
// SHA-256 when checksum is "". Asset URLs are relative to the feed, as in
// scripts/release's release.json.
func Feed(t testing.TB, tag, goos, goarch string, archive []byte, checksum string) string {
	t.Helper()
	r := update.Release{Tag: tag}
	name := update.ArchiveName(r.Version(), goos, goarch)
	if checksum == "" {
		s := sha256.Sum256(archive)
		checksum = hex.EncodeToString(s[:])
	}
	r.Assets = []update.Asset{
		{Name: name, URL: "files/" + name},
		{Name: update.ChecksumsName, URL: "files/" + update.ChecksumsName},
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/releases/latest", func(w http.ResponseWriter, _ *http.Request) {
		_ = json.NewEncoder(w).Encode(r)
	})
	mux.HandleFunc("/releases/files/"+name, func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write(archive) })
	mux.HandleFunc("/releases/files/"+update.ChecksumsName, func(w http.ResponseWriter, _ *http.Request) {
		_, _ = w.Write([]byte(checksum + "  " + name + "\n"))
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv.URL + "/releases/latest"
}
