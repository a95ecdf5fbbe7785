// Command release builds a Castor release in one step:
//
//	go run ./scripts/release [-version 0.2.0] [-out dist] [-targets linux/amd64,…] [-npm-pack]
//
// For each target (linux, darwin and windows on amd64 and arm64 by
// default) it builds a static (CGO_ENABLED=0), stripped, trimmed binary
// with version, commit and date stamped in (internal/version), archives
// it (tar.gz, zip for Windows) with the license and README, writes a
// CycloneDX SBOM of the modules linked in, checksums.txt (SHA-256, in
// sha256sum's format), release.json (the feed `castor update` reads, URLs
// relative to it), the npm packages (npm/castor's launcher and one
// package per platform carrying the binary; packed with -npm-pack) and
// the Homebrew formula castor.rb. Everything lands in -out; nothing is
// published.
package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/castor-dev/castor/internal/update"
	"github.com/castor-dev/castor/internal/version"
)

// allTargets are the platforms a release ships for.
var allTargets = []string{
	"linux/amd64", "linux/arm64",
	"darwin/amd64", "darwin/arm64",
	"windows/amd64", "windows/arm64",
}

// versionPkg is where -ldflags -X stamps the version.
const versionPkg = "github.com/castor-dev/castor/internal/version"

// buildTags are the release's build tags. grpcnotrace keeps gRPC (which
// Google auth links for S2A) from importing golang.org/x/net/trace, whose
// init registers /debug/requests handlers rendered by html/template:
// template execution calls reflect.Value.MethodByName, and one reachable
// call of it makes the linker keep every exported method of every type.
// Without it the linux/amd64 binary is 6.6 MB larger. Castor never turns
// gRPC tracing on, so nothing is lost.
const buildTags = "grpcnotrace"

// config is one release run.
type config struct {
	version, commit, date string
	out                   string
	targets               []string
	jobs                  int
	npmPack               bool
	// baseURL is where the archives will be downloadable, for the
	// Homebrew formula.
	baseURL string
}

func main() {
	var c config
	var targets string
	flag.StringVar(&c.version, "version", "", "the version to stamp (default: the tag at HEAD, else internal/version's plus -snapshot)")
	flag.StringVar(&c.out, "out", "dist", "the folder the release is written to (emptied first)")
	flag.StringVar(&targets, "targets", strings.Join(allTargets, ","), "comma-separated GOOS/GOARCH pairs")
	flag.IntVar(&c.jobs, "j", 2, "how many targets build at once")
	flag.BoolVar(&c.npmPack, "npm-pack", false, "also run `npm pack` on each npm package (needs npm)")
	flag.StringVar(&c.baseURL, "base-url", "", "where the archives are published, for castor.rb (default: the GitHub release of the version)")
	flag.Parse()
	c.targets = strings.Split(targets, ",")
	if err := run(&c); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(c *config) error {
	if err := fillDefaults(c); err != nil {
		return err
	}
	for _, t := range c.targets {
		if !strings.Contains(t, "/") {
			return fmt.Errorf("-targets: %q is not GOOS/GOARCH", t)
		}
	}
	if err := os.RemoveAll(c.out); err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(c.out, "build"), 0o755); err != nil {
		return err
	}
	fmt.Printf("Castor %s (commit %s, %s): %d targets into %s\n", c.version, c.commit, c.date, len(c.targets), c.out)
	bins, err := buildAll(c)
	if err != nil {
		return err
	}
	var assets []string
	for _, t := range c.targets {
		goos, goarch, _ := strings.Cut(t, "/")
		name := update.ArchiveName(c.version, goos, goarch)
		if err := writeArchive(filepath.Join(c.out, name), bins[t], binaryName(goos)); err != nil {
			return err
		}
		sbom := strings.TrimSuffix(strings.TrimSuffix(name, ".zip"), ".tar.gz") + ".sbom.cdx.json"
		if err := writeSBOM(filepath.Join(c.out, sbom), bins[t], c, goos, goarch); err != nil {
			return err
		}
		assets = append(assets, name, sbom)
	}
	sums, err := writeChecksums(c.out, assets)
	if err != nil {
		return err
	}
	if err := writeFeed(c, append(assets, update.ChecksumsName)); err != nil {
		return err
	}
	if err := writeNPM(c, bins); err != nil {
		return err
	}
	if err := writeFormula(c, sums); err != nil {
		return err
	}
	fmt.Printf("release written to %s\n", c.out)
	return nil
}

// fillDefaults stamps what the flags left out from git.
func fillDefaults(c *config) error {
	git := func(args ...string) string {
		out, err := exec.Command("git", args...).Output()
		if err != nil {
			return ""
		}
		return strings.TrimSpace(string(out))
	}
	if c.version == "" {
		if tag := git("describe", "--tags", "--exact-match", "HEAD"); tag != "" {
			c.version = strings.TrimPrefix(tag, "v")
		} else {
			c.version = version.Version + "-snapshot"
		}
	}
	c.version = strings.TrimPrefix(c.version, "v")
	if !regexp.MustCompile(`^[0-9]+\.[0-9]+\.[0-9]+([-+][0-9A-Za-z.-]+)?$`).MatchString(c.version) {
		return fmt.Errorf("-version %q is not SemVer (npm needs it)", c.version)
	}
	if c.commit = git("rev-parse", "HEAD"); c.commit == "" {
		c.commit = "unknown"
	}
	if git("status", "--porcelain") != "" {
		c.commit += "-dirty"
	}
	// The commit's time, not the clock's: the same commit builds the same
	// bytes.
	c.date = git("log", "-1", "--format=%cI", "HEAD")
	if t, err := time.Parse(time.RFC3339, c.date); err == nil {
		c.date = t.UTC().Format(time.RFC3339)
	} else {
		c.date = time.Now().UTC().Format(time.RFC3339)
	}
	if c.baseURL == "" {
		c.baseURL = "https://github.com/castor-dev/castor/releases/download/v" + c.version
	}
	if c.jobs < 1 {
		c.jobs = 1
	}
	return nil
}

func binaryName(goos string) string {
	if goos == "windows" {
		return "castor.exe"
	}
	return "castor"
}

// buildAll builds every target, c.jobs at a time, and returns each
// binary's path by target.
func buildAll(c *config) (map[string]string, error) {
	bins := make(map[string]string)
	var mu sync.Mutex
	var errs []error
	sem := make(chan struct{}, c.jobs)
	var wg sync.WaitGroup
	for _, t := range c.targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			sem <- struct{}{}
			defer func() { <-sem }()
			bin, err := build(c, t)
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs = append(errs, err)
				return
			}
			bins[t] = bin
		}()
	}
	wg.Wait()
	return bins, errors.Join(errs...)
}

func build(c *config, target string) (string, error) {
	goos, goarch, _ := strings.Cut(target, "/")
	bin := filepath.Join(c.out, "build", goos+"_"+goarch, binaryName(goos))
	ldflags := fmt.Sprintf("-s -w -X %s.Version=%s -X %s.Commit=%s -X %s.Date=%s",
		versionPkg, c.version, versionPkg, c.commit, versionPkg, c.date)
	start := time.Now()
	cmd := exec.Command("go", "build", "-trimpath", "-tags", buildTags, "-ldflags", ldflags, "-o", bin, "./cmd/castor")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS="+goos, "GOARCH="+goarch)
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("build %s: %w", target, err)
	}
	info, err := os.Stat(bin)
	if err != nil {
		return "", err
	}
	fmt.Printf("  %-14s %6.2f MB  %s\n", target, float64(info.Size())/1e6, time.Since(start).Round(time.Second))
	return bin, nil
}

// archiveExtras are the files shipped beside the binary.
var archiveExtras = []string{"LICENSE", "README.md"}

// writeArchive writes the binary and archiveExtras at the archive's top
// level: tar.gz, or zip when name says so. Times are fixed, so the
// archive depends only on its contents.
func writeArchive(name, bin, binName string) error {
	files := []string{bin}
	names := []string{binName}
	for _, e := range archiveExtras {
		files = append(files, e)
		names = append(names, e)
	}
	var buf bytes.Buffer
	mtime := time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)
	if strings.HasSuffix(name, ".zip") {
		zw := zip.NewWriter(&buf)
		for i, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			h := &zip.FileHeader{Name: names[i], Method: zip.Deflate, Modified: mtime}
			h.SetMode(0o644)
			if i == 0 {
				h.SetMode(0o755)
			}
			w, err := zw.CreateHeader(h)
			if err != nil {
				return err
			}
			if _, err := w.Write(data); err != nil {
				return err
			}
		}
		if err := zw.Close(); err != nil {
			return err
		}
	} else {
		gz := gzip.NewWriter(&buf)
		tw := tar.NewWriter(gz)
		for i, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				return err
			}
			mode := int64(0o644)
			if i == 0 {
				mode = 0o755
			}
			h := &tar.Header{Name: names[i], Mode: mode, Size: int64(len(data)), ModTime: mtime, Typeflag: tar.TypeReg, Format: tar.FormatPAX}
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			if _, err := tw.Write(data); err != nil {
				return err
			}
		}
		if err := tw.Close(); err != nil {
			return err
		}
		if err := gz.Close(); err != nil {
			return err
		}
	}
	return os.WriteFile(name, buf.Bytes(), 0o644)
}

// writeChecksums writes checksums.txt for the assets in dir and returns
// each one's SHA-256 by name.
func writeChecksums(dir string, assets []string) (map[string]string, error) {
	sums := make(map[string]string)
	sorted := append([]string(nil), assets...)
	sort.Strings(sorted)
	var b strings.Builder
	for _, a := range sorted {
		f, err := os.Open(filepath.Join(dir, a))
		if err != nil {
			return nil, err
		}
		h := sha256.New()
		_, err = io.Copy(h, f)
		f.Close()
		if err != nil {
			return nil, err
		}
		sums[a] = hex.EncodeToString(h.Sum(nil))
		fmt.Fprintf(&b, "%s  %s\n", sums[a], a)
	}
	return sums, os.WriteFile(filepath.Join(dir, update.ChecksumsName), []byte(b.String()), 0o644)
}

// writeFeed writes release.json, the release as `castor update` reads a
// feed, its URLs relative to the file so that any server of the folder
// is a feed.
func writeFeed(c *config, assets []string) error {
	rel := update.Release{Tag: "v" + c.version}
	for _, a := range assets {
		rel.Assets = append(rel.Assets, update.Asset{Name: a, URL: a})
	}
	return writeJSON(filepath.Join(c.out, "release.json"), rel)
}
