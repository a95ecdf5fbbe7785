package main

import (
	"debug/buildinfo"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/npmtest"
	"github.com/castor-dev/castor/internal/update"
)

// fakeRelease writes, in a new folder, what scripts/release writes for
// linux/amd64 and this machine's platform, with a shell script standing
// in for each binary, and returns the config and folder.
func fakeRelease(t *testing.T, ver string) (*config, string) {
	t.Helper()
	out := t.TempDir()
	c := &config{version: ver, out: out, baseURL: "https://example.invalid/v" + ver,
		targets: []string{"linux/amd64", "darwin/arm64", "windows/amd64", runtime.GOOS + "/" + runtime.GOARCH}}
	bins := map[string]string{}
	for _, tgt := range c.targets {
		bin := filepath.Join(out, "build", strings.ReplaceAll(tgt, "/", "_"), "castor")
		if err := os.MkdirAll(filepath.Dir(bin), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(bin, []byte("#!/bin/sh\necho "+ver+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
		bins[tgt] = bin
	}
	// The archives read LICENSE and README.md from the module's root.
	t.Chdir("../..")
	var assets []string
	for _, tgt := range c.targets {
		goos, goarch, _ := strings.Cut(tgt, "/")
		name := update.ArchiveName(ver, goos, goarch)
		if contains(assets, name) {
			continue
		}
		if err := writeArchive(filepath.Join(out, name), bins[tgt], binaryName(goos)); err != nil {
			t.Fatal(err)
		}
		assets = append(assets, name)
	}
	sums, err := writeChecksums(out, assets)
	if err != nil {
		t.Fatal(err)
	}
	if err := writeFeed(c, append(assets, update.ChecksumsName)); err != nil {
		t.Fatal(err)
	}
	if err := writeFormula(c, sums); err != nil {
		t.Fatal(err)
	}
	if err := writeNPM(c, bins); err != nil {
		t.Fatal(err)
	}
	return c, out
}

func TestArchivesHoldTheBinary(t *testing.T) {
	_, out := fakeRelease(t, "1.2.3")
	for _, goos := range []string{"linux", "windows"} {
		name := update.ArchiveName("1.2.3", goos, "amd64")
		data, err := os.ReadFile(filepath.Join(out, name))
		if err != nil {
			t.Fatal(err)
		}
		bin, err := update.Extract(data, name, binaryName(goos))
		if err != nil || !strings.Contains(string(bin), "echo 1.2.3") {
			t.Errorf("%s: %q, %v", name, bin, err)
		}
		if lic, err := update.Extract(data, name, "LICENSE"); err != nil || !strings.Contains(string(lic), "Apache License") {
			t.Errorf("%s: LICENSE %v", name, err)
		}
		sums, err := os.ReadFile(filepath.Join(out, update.ChecksumsName))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := update.ChecksumFor(sums, name); err != nil {
			t.Error(err)
		}
	}
}

func TestFormulaAndNPM(t *testing.T) {
	_, out := fakeRelease(t, "1.2.3")
	rb, err := os.ReadFile(filepath.Join(out, "castor.rb"))
	if err != nil {
		t.Fatal(err)
	}
	sums, _ := os.ReadFile(filepath.Join(out, update.ChecksumsName))
	for _, name := range []string{"castor_1.2.3_darwin_arm64.tar.gz", "castor_1.2.3_linux_amd64.tar.gz"} {
		sum, err := update.ChecksumFor(sums, name)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(rb), `url "https://example.invalid/v1.2.3/`+name+`"`+"\n      sha256 \""+sum+`"`) {
			t.Errorf("castor.rb lacks %s with its checksum:\n%s", name, rb)
		}
	}
	if strings.Contains(string(rb), "windows") {
		t.Errorf("castor.rb names a Windows archive:\n%s", rb)
	}
	var launcher struct {
		Version  string            `json:"version"`
		Bin      map[string]string `json:"bin"`
		Optional map[string]string `json:"optionalDependencies"`
	}
	data, err := os.ReadFile(filepath.Join(out, "npm", "castor", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &launcher); err != nil {
		t.Fatal(err)
	}
	if launcher.Version != "1.2.3" || launcher.Bin["castor"] != "bin/castor.js" ||
		launcher.Optional["@castor-dev/castor-linux-x64"] != "1.2.3" || launcher.Optional["@castor-dev/castor-win32-x64"] != "1.2.3" {
		t.Errorf("launcher package.json: %+v", launcher)
	}
	js, err := os.ReadFile(filepath.Join(out, "npm", "castor", "bin", "castor.js"))
	if err != nil {
		t.Fatal(err)
	}
	// The launcher's table and the release's names agree.
	for pkg := range launcher.Optional {
		if !strings.Contains(string(js), `"`+pkg+`"`) {
			t.Errorf("bin/castor.js does not know %s", pkg)
		}
	}
	var plat struct {
		OS  []string `json:"os"`
		CPU []string `json:"cpu"`
	}
	data, err = os.ReadFile(filepath.Join(out, "npm", "castor-win32-x64", "package.json"))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(data, &plat); err != nil || plat.OS[0] != "win32" || plat.CPU[0] != "x64" {
		t.Errorf("win32-x64 package.json: %+v %v", plat, err)
	}
	if _, err := os.Stat(filepath.Join(out, "npm", "castor-win32-x64", "bin", "castor.exe")); err != nil {
		t.Error(err)
	}
}

func TestSBOMListsLinkedModules(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	info, err := buildinfo.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	bom := sbom(info, "1.2.3", "2026-12-07T00:00:00Z", "linux", "amd64")
	if bom.BOMFormat != "CycloneDX" || bom.Metadata.Component.Version != "v1.2.3" {
		t.Fatalf("bom: %+v", bom.Metadata)
	}
	found := false
	for _, c := range bom.Components {
		if c.Name == "golang.org/x/mod" { // imported by internal/update
			found = c.PURL == "pkg:golang/golang.org/x/mod@"+c.Version && len(c.Hashes) == 1 && len(c.Hashes[0].Content) == 64
		}
	}
	if !found {
		t.Errorf("golang.org/x/mod missing or without purl and hash: %+v", bom.Components)
	}
	if len(bom.Dependencies) != 1 || len(bom.Dependencies[0].DependsOn) != len(bom.Components) {
		t.Errorf("dependencies: %+v", bom.Dependencies)
	}
}

// TestInstallScript runs install.sh against the release served on
// loopback: it installs a verified archive, and refuses one whose
// checksum does not match, leaving nothing behind.
func TestInstallScript(t *testing.T) {
	if runtime.GOOS != "linux" && runtime.GOOS != "darwin" {
		t.Skip("install.sh is for Linux and macOS")
	}
	if _, err := exec.LookPath("curl"); err != nil {
		if _, err := exec.LookPath("wget"); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("install.sh needs curl or wget")
			}
			t.Skip("install.sh needs curl or wget")
		}
	}
	_, out := fakeRelease(t, "1.2.3")
	script, err := filepath.Abs("install.sh") // fakeRelease moved to the module's root
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(http.FileServer(http.Dir(out)))
	t.Cleanup(srv.Close)
	run := func(dest string) (string, error) {
		cmd := exec.Command("sh", script)
		cmd.Env = append(os.Environ(), "CASTOR_RELEASE_URL="+srv.URL, "CASTOR_INSTALL_DIR="+dest)
		b, err := cmd.CombinedOutput()
		return string(b), err
	}
	dest := filepath.Join(t.TempDir(), "bin")
	if msg, err := run(dest); err != nil {
		t.Fatalf("install.sh: %v\n%s", err, msg)
	}
	if b, err := exec.Command(filepath.Join(dest, "castor")).Output(); err != nil || strings.TrimSpace(string(b)) != "1.2.3" {
		t.Fatalf("installed castor: %q %v", b, err)
	}

	// A tampered archive is refused.
	name := update.ArchiveName("1.2.3", runtime.GOOS, runtime.GOARCH)
	if err := os.WriteFile(filepath.Join(out, name), []byte("tampered"), 0o644); err != nil {
		t.Fatal(err)
	}
	dest2 := filepath.Join(t.TempDir(), "bin")
	msg, err := run(dest2)
	if err == nil || !strings.Contains(msg, "checksum mismatch for "+name) {
		t.Fatalf("a tampered archive was not refused: %v\n%s", err, msg)
	}
	if entries, _ := os.ReadDir(dest2); len(entries) != 0 {
		t.Errorf("install.sh left %v", entries)
	}
}

// TestNPMLauncher runs npm/castor/bin/castor.js as npm's bin link would:
// it runs the binary with the arguments and passes its exit code on, and
// without the platform package it says how to get it.
func TestNPMLauncher(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in binary is a shell script")
	}
	node := npmtest.LookPath(t, "node")
	launcher, err := filepath.Abs("../../npm/castor/bin/castor.js")
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "castor")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\necho \"args: $*\"\nexit 7\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(node, launcher, "-p", "two words")
	cmd.Env = append(os.Environ(), "CASTOR_BINARY="+bin)
	out, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 7 || string(out) != "args: -p two words\n" {
		t.Errorf("launcher: %v %q", err, out)
	}
	// Outside node_modules the platform package cannot be found.
	cmd = exec.Command(node, launcher, "--version")
	cmd.Env = append(os.Environ(), "CASTOR_BINARY=")
	msg, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(msg), "reinstall without --omit=optional") {
		t.Errorf("without a platform package: %v %q", err, msg)
	}
}
