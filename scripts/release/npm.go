package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// launcherDir is the npm launcher package's source (npm/castor).
const launcherDir = "npm/castor"

// npmScope is the scope of every npm package of a release.
const npmScope = "@castor-dev/"

// npmPlatform maps Go's GOOS and GOARCH to Node's process.platform and
// process.arch, which npm's "os" and "cpu" fields use.
func npmPlatform(goos, goarch string) (string, string) {
	os, cpu := goos, goarch
	if goos == "windows" {
		os = "win32"
	}
	if goarch == "amd64" {
		cpu = "x64"
	}
	return os, cpu
}

// platformPackage is the npm name of the package carrying goos/goarch's
// binary (npm/castor/bin/castor.js has the same table).
func platformPackage(goos, goarch string) string {
	os, cpu := npmPlatform(goos, goarch)
	return npmScope + "castor-" + os + "-" + cpu
}

// writeNPM writes out/npm/castor (the launcher at the release's version,
// one optional dependency per platform) and out/npm/castor-<os>-<cpu>
// (each carrying its binary); with -npm-pack, `npm pack` turns each into
// a tarball in out/npm.
func writeNPM(c *config, bins map[string]string) error {
	root := filepath.Join(c.out, "npm")
	var dirs []string
	optional := map[string]string{}
	for _, t := range c.targets {
		goos, goarch, _ := strings.Cut(t, "/")
		name := platformPackage(goos, goarch)
		nodeOS, cpu := npmPlatform(goos, goarch)
		dir := filepath.Join(root, strings.TrimPrefix(name, npmScope))
		bin := filepath.Join("bin", binaryName(goos))
		if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
			return err
		}
		data, err := os.ReadFile(bins[t])
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, bin), data, 0o755); err != nil {
			return err
		}
		pkg := map[string]any{
			"name":            name,
			"version":         c.version,
			"description":     fmt.Sprintf("Castor's binary for %s/%s, installed by @castor-dev/castor", nodeOS, cpu),
			"license":         "Apache-2.0",
			"repository":      map[string]string{"type": "git", "url": "git+https://github.com/castor-dev/castor.git"},
			"os":              []string{nodeOS},
			"cpu":             []string{cpu},
			"files":           []string{filepath.ToSlash(bin)},
			"preferUnplugged": true,
		}
		if err := writeJSON(filepath.Join(dir, "package.json"), pkg); err != nil {
			return err
		}
		optional[name] = c.version
		dirs = append(dirs, dir)
	}
	// The launcher: npm/castor as checked in, at this version.
	launcher := filepath.Join(root, "castor")
	if err := os.MkdirAll(filepath.Join(launcher, "bin"), 0o755); err != nil {
		return err
	}
	for _, f := range []string{"README.md", "bin/castor.js"} {
		data, err := os.ReadFile(filepath.Join(launcherDir, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(launcher, f), data, 0o755); err != nil {
			return err
		}
	}
	var pkg map[string]any
	data, err := os.ReadFile(filepath.Join(launcherDir, "package.json"))
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, &pkg); err != nil {
		return fmt.Errorf("%s/package.json: %v", launcherDir, err)
	}
	pkg["version"] = c.version
	pkg["optionalDependencies"] = optional
	if err := writeJSON(filepath.Join(launcher, "package.json"), pkg); err != nil {
		return err
	}
	dirs = append(dirs, launcher)
	if !c.npmPack {
		return nil
	}
	for _, dir := range dirs {
		cmd := exec.Command("npm", "pack", "--silent", "--pack-destination", "..")
		cmd.Dir = dir
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			return fmt.Errorf("npm pack in %s: %w", dir, err)
		}
		fmt.Printf("  npm/%s\n", strings.TrimSpace(string(out)))
	}
	return nil
}

// writeJSON writes v indented, '&' in URLs left as it is.
func writeJSON(file string, v any) error {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return err
	}
	return os.WriteFile(file, b.Bytes(), 0o644)
}
