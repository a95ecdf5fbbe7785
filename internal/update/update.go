// Package update keeps an installed Castor current: it reads a release
// feed, finds the archive for this platform, checks its SHA-256 against
// the release's checksums.txt and replaces the running binary atomically
// (`castor update`), and remembers the last check so that a start-up
// notice costs no network (notice.go).
//
// A feed is the JSON of GitHub's "latest release" API, which the
// project's releases serve as they are; scripts/release writes the same
// shape as dist/release.json, with URLs relative to the feed, so any
// static file server can serve a release.
package update

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"runtime"
	"strings"

	"golang.org/x/mod/semver"
)

// DefaultFeedURL is where releases are announced unless
// general.updateFeedUrl says otherwise.
const DefaultFeedURL = "https://api.github.com/repos/castor-dev/castor/releases/latest"

// ChecksumsName is the release asset listing every archive's SHA-256, in
// sha256sum's format.
const ChecksumsName = "checksums.txt"

// maxDownload bounds what is read of one asset: a release archive is tens
// of megabytes; a feed that sends more is not one.
const maxDownload = 512 << 20

// Release is one release as a feed describes it.
type Release struct {
	// Tag is the release's tag, "v0.2.0"; its version is Tag without the v.
	Tag    string  `json:"tag_name"`
	Assets []Asset `json:"assets"`
}

// Asset is one file of a release.
type Asset struct {
	Name string `json:"name"`
	// URL is where the file is downloaded, absolute or relative to the
	// feed's URL.
	URL string `json:"browser_download_url"`
}

// Version is the release's version without the leading v.
func (r *Release) Version() string { return strings.TrimPrefix(r.Tag, "v") }

// Newer reports whether the release is a later version than current
// (SemVer; a current version that is not SemVer is never up to date).
func (r *Release) Newer(current string) bool {
	latest := "v" + r.Version()
	cur := "v" + strings.TrimPrefix(current, "v")
	if !semver.IsValid(latest) {
		return false
	}
	return !semver.IsValid(cur) || semver.Compare(latest, cur) > 0
}

// ArchiveName is the name of the release archive holding the binary for
// goos/goarch, as scripts/release names it.
func ArchiveName(version, goos, goarch string) string {
	ext := ".tar.gz"
	if goos == "windows" {
		ext = ".zip"
	}
	return fmt.Sprintf("castor_%s_%s_%s%s", strings.TrimPrefix(version, "v"), goos, goarch, ext)
}

// Client reads a feed and the files it names.
type Client struct {
	// FeedURL is the feed; DefaultFeedURL when empty.
	FeedURL string
	// HTTP is the client used; http.DefaultClient when nil.
	HTTP *http.Client
}

func (c *Client) feedURL() string {
	if c.FeedURL != "" {
		return c.FeedURL
	}
	return DefaultFeedURL
}

func (c *Client) httpClient() *http.Client {
	if c.HTTP != nil {
		return c.HTTP
	}
	return http.DefaultClient
}

// Latest reads the feed's release.
func (c *Client) Latest(ctx context.Context) (*Release, error) {
	body, err := c.get(ctx, c.feedURL(), 4<<20)
	if err != nil {
		return nil, err
	}
	var r Release
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("release feed %s: not a release: %v", c.feedURL(), err)
	}
	if r.Tag == "" {
		return nil, fmt.Errorf("release feed %s: no tag_name", c.feedURL())
	}
	return &r, nil
}

// get reads url whole, refusing more than limit bytes.
func (c *Client) get(ctx context.Context, u string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, fmt.Errorf("release feed: %v", err)
	}
	req.Header.Set("Accept", "application/json, application/octet-stream")
	resp, err := c.httpClient().Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is said once
		}
		return nil, fmt.Errorf("download %s: %w", u, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("download %s: %s", u, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, fmt.Errorf("download %s: %w", u, err)
	}
	if int64(len(body)) > limit {
		return nil, fmt.Errorf("download %s: larger than %d bytes", u, limit)
	}
	return body, nil
}

// assetURL is the absolute URL of the release's asset called name.
func (c *Client) assetURL(r *Release, name string) (string, error) {
	for _, a := range r.Assets {
		if a.Name != name {
			continue
		}
		base, err := url.Parse(c.feedURL())
		if err != nil {
			return "", fmt.Errorf("release feed %s: %v", c.feedURL(), err)
		}
		ref, err := url.Parse(a.URL)
		if err != nil {
			return "", fmt.Errorf("release feed %s: asset %s: %v", c.feedURL(), name, err)
		}
		return base.ResolveReference(ref).String(), nil
	}
	return "", fmt.Errorf("release %s has no %s", r.Tag, name)
}

// Download fetches this platform's archive of r and returns the binary
// it holds, after checking the archive against the release's
// checksums.txt. A mismatch, or an archive checksums.txt does not list,
// is an error: nothing unverified is returned.
func (c *Client) Download(ctx context.Context, r *Release, goos, goarch string) ([]byte, error) {
	name := ArchiveName(r.Version(), goos, goarch)
	archiveURL, err := c.assetURL(r, name)
	if err != nil {
		return nil, err
	}
	sumsURL, err := c.assetURL(r, ChecksumsName)
	if err != nil {
		return nil, err
	}
	sums, err := c.get(ctx, sumsURL, 1<<20)
	if err != nil {
		return nil, err
	}
	want, err := ChecksumFor(sums, name)
	if err != nil {
		return nil, fmt.Errorf("%s of release %s: %w", ChecksumsName, r.Tag, err)
	}
	archive, err := c.get(ctx, archiveURL, maxDownload)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(archive)
	if got := hex.EncodeToString(sum[:]); got != want {
		return nil, fmt.Errorf("checksum mismatch for %s: downloaded %s, %s says %s; nothing was installed", name, got, ChecksumsName, want)
	}
	return Extract(archive, name, binaryName(goos))
}

// ChecksumFor finds name's SHA-256 in a checksums file in sha256sum's
// format ("<hex>  <name>", a '*' before binary names).
func ChecksumFor(sums []byte, name string) (string, error) {
	sc := bufio.NewScanner(bytes.NewReader(sums))
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) != 2 || strings.TrimPrefix(fields[1], "*") != name {
			continue
		}
		sum := strings.ToLower(fields[0])
		if b, err := hex.DecodeString(sum); err != nil || len(b) != sha256.Size {
			return "", fmt.Errorf("the checksum of %s is not a SHA-256: %q", name, fields[0])
		}
		return sum, nil
	}
	return "", fmt.Errorf("no checksum for %s", name)
}

func binaryName(goos string) string {
	if goos == "windows" {
		return "castor.exe"
	}
	return "castor"
}

// Extract returns the file called binary from the archive called name
// (.tar.gz or .zip), at its top level or in one folder.
func Extract(archive []byte, name, binary string) ([]byte, error) {
	if strings.HasSuffix(name, ".zip") {
		zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		for _, f := range zr.File {
			if path.Base(f.Name) != binary || f.FileInfo().IsDir() {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				return nil, fmt.Errorf("%s: %s: %v", name, f.Name, err)
			}
			defer rc.Close()
			return io.ReadAll(io.LimitReader(rc, maxDownload))
		}
		return nil, fmt.Errorf("%s holds no %s", name, binary)
	}
	gz, err := gzip.NewReader(bytes.NewReader(archive))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", name, err)
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil, fmt.Errorf("%s holds no %s", name, binary)
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %v", name, err)
		}
		if h.Typeflag == tar.TypeReg && path.Base(h.Name) == binary {
			return io.ReadAll(io.LimitReader(tr, maxDownload))
		}
	}
}

// Replace puts binary in place of the executable at exe atomically: the
// new file is written beside it, checked to run (`--version`), and
// renamed over it, so a failure at any step leaves the old binary
// whole. On Windows, where a running program cannot be replaced, the old
// one is first renamed aside to exe+".old".
func Replace(exe string, binary []byte) error {
	dir := filepath.Dir(exe)
	info, err := os.Stat(exe)
	if err != nil {
		return fmt.Errorf("update %s: %w", exe, err)
	}
	tmp, err := os.CreateTemp(dir, ".castor-update-*")
	if err != nil {
		return fmt.Errorf("update %s: cannot write beside it: %w", exe, err)
	}
	tmpName := tmp.Name()
	defer os.Remove(tmpName) // gone after the rename; removes a failed attempt
	if _, err := tmp.Write(binary); err != nil {
		tmp.Close()
		return fmt.Errorf("update %s: %w", exe, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("update %s: %w", exe, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("update %s: %w", exe, err)
	}
	if err := os.Chmod(tmpName, info.Mode().Perm()|0o111); err != nil {
		return fmt.Errorf("update %s: %w", exe, err)
	}
	{
		if out, err := exec.Command(tmpName, "--version").CombinedOutput(); err != nil {
			return fmt.Errorf("update %s: the downloaded binary does not run (%v): %s", exe, err, strings.TrimSpace(string(out)))
		}
	}
	if runtime.GOOS == "windows" {
		old := exe + ".old"
		_ = os.Remove(old)
		if err := os.Rename(exe, old); err != nil {
			return fmt.Errorf("update %s: %w", exe, err)
		}
		if err := os.Rename(tmpName, exe); err != nil {
			_ = os.Rename(old, exe)
			return fmt.Errorf("update %s: %w", exe, err)
		}
		return nil
	}
	if err := os.Rename(tmpName, exe); err != nil {
		return fmt.Errorf("update %s: %w", exe, err)
	}
	return nil
}

// ManagedBy names the package manager that installed the executable at
// exe ("npm", "brew") or "" for a binary Castor may replace itself: a
// package manager's files are its own, and replacing them would leave
// it believing in a version that is gone.
func ManagedBy(exe string) string {
	p := filepath.ToSlash(exe)
	switch {
	case strings.Contains(p, "/node_modules/"):
		return "npm"
	case strings.Contains(p, "/Cellar/") || strings.Contains(p, "/homebrew/") || strings.Contains(p, "/linuxbrew/"):
		return "brew"
	}
	return ""
}
