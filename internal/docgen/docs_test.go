package main

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/castor-dev/castor/config"
)

// repoRoot is the module root, seen from this package's folder.
const repoRoot = "../.."

// maxLandingBytes bounds README.md and ARCHITECTURE.md: they are where a
// newcomer starts, and the detail belongs in docs/ and package comments.
const maxLandingBytes = 12_000

func TestGeneratedPagesAreCurrent(t *testing.T) {
	for _, p := range pages() {
		t.Run(p.path, func(t *testing.T) {
			got, err := os.ReadFile(filepath.Join(repoRoot, filepath.FromSlash(p.path)))
			if err != nil {
				t.Fatalf("%v: run `go generate ./config` (or `go run ./internal/docgen`) and commit the page", err)
			}
			if want := p.render(); !bytes.Equal(got, want) {
				t.Errorf("%s is stale: run `go generate ./config` (or `go run ./internal/docgen`) and commit it; first difference at line %d", p.path, firstDiffLine(got, want))
			}
		})
	}
}

// firstDiffLine is the 1-based number of the first line where a and b
// differ.
func firstDiffLine(a, b []byte) int {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(al), len(bl)) {
		if al[i] != bl[i] {
			return i + 1
		}
	}
	return min(len(al), len(bl)) + 1
}

func TestEverySettingIsDescribed(t *testing.T) {
	for _, tc := range []struct {
		name string
		rows []config.SettingDoc
		list string
	}{
		{"settings.json", config.SettingsReference(), "settingDescriptions"},
		{"gemini-extension.json", config.ExtensionManifestReference(), "extensionDescriptions"},
	} {
		for _, r := range tc.rows {
			if strings.TrimSpace(r.Description) == "" {
				t.Errorf("%s key %q has no description: add a line to %s in config/settingskeys.go, then run `go generate ./config`", tc.name, r.Key, tc.list)
			}
		}
	}
}

func TestLandingPagesAreShort(t *testing.T) {
	for _, name := range []string{"README.md", "ARCHITECTURE.md"} {
		info, err := os.Stat(filepath.Join(repoRoot, name))
		if err != nil {
			t.Fatal(err)
		}
		if info.Size() >= maxLandingBytes {
			t.Errorf("%s is %d bytes, over %d: move the detail to a page of docs/ (or, for ARCHITECTURE.md, to the package's doc comment) and link it", name, info.Size(), maxLandingBytes)
		}
	}
}

func TestReadmeStartsWithRunAndTest(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(repoRoot, "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if err := checkQuickStart(string(data)); err != nil {
		t.Error(err)
	}
}

// checkQuickStart says what is wrong with a README whose first code
// block, before any section, is not the command that runs Castor and the
// one that runs the tests.
func checkQuickStart(readme string) error {
	lines := strings.Split(readme, "\n")
	var block []string
	start := -1
	for i, line := range lines {
		if strings.HasPrefix(line, "## ") && start < 0 {
			return fmt.Errorf("README.md: section %q comes before the first code block; the quick start must come first", line)
		}
		if strings.HasPrefix(line, "```") {
			if start >= 0 {
				block = lines[start+1 : i]
				break
			}
			start = i
		}
	}
	if block == nil {
		return fmt.Errorf("README.md has no code block")
	}
	runs := slices.ContainsFunc(block, func(l string) bool {
		return (strings.Contains(l, "go run ") || strings.Contains(l, "go install ")) && strings.Contains(l, "cmd/castor")
	})
	tests := slices.ContainsFunc(block, func(l string) bool { return strings.TrimSpace(l) == "go test ./..." })
	if !runs || !tests {
		return fmt.Errorf("README.md's first code block must hold a `go run`/`go install` of ./cmd/castor and `go test ./...`; it holds:\n%s", strings.Join(block, "\n"))
	}
	return nil
}

func TestRelativeLinksResolve(t *testing.T) {
	fsys := os.DirFS(repoRoot)
	files := []string{"README.md", "ARCHITECTURE.md"}
	err := fs.WalkDir(fsys, "docs", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && path.Ext(p) == ".md" {
			files = append(files, p)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 10 {
		t.Fatalf("found only %v: is docs/ there?", files)
	}
	for _, f := range files {
		broken, err := brokenLinks(fsys, f)
		if err != nil {
			t.Fatal(err)
		}
		for _, b := range broken {
			t.Error(b)
		}
	}
}

// TestLinkChecker shows that the checks above can fail.
func TestLinkChecker(t *testing.T) {
	fsys := fstest.MapFS{
		"README.md": {Data: []byte("# T\n\nSee [a](docs/a.md), [b](docs/b.md), [c](docs/a.md#usage), [d](docs/a.md#nope),\n" +
			"[e](https://example.com/x.md), [f](#t), [g](docs/), [h](../out.md) ![i](docs/img.png)\n\n```\n[j](missing.md)\n```\n`[k](missing.md)`\n")},
		"docs/a.md":    {Data: []byte("# A\n\n## Usage\n\n```\n# not a heading\n```\n")},
		"docs/img.png": {Data: []byte("png")},
	}
	got, err := brokenLinks(fsys, "README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"README.md:3: docs/b.md: no such file",
		"README.md:3: docs/a.md#nope: docs/a.md has no heading with that anchor",
		"README.md:4: ../out.md: outside the repository",
	}
	if !slices.Equal(got, want) {
		t.Errorf("brokenLinks =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func TestSlugOf(t *testing.T) {
	for _, tc := range []struct{ title, want string }{
		{"Project tools (`tools.discoveryCommand`)", "project-tools-toolsdiscoverycommand"},
		{"MCP servers' questions", "mcp-servers-questions"},
		{"A2A 1.0 beside 0.3", "a2a-10-beside-03"},
		{"`@` includes", "-includes"},
		{"IDE mode for any editor: `castor ide serve`", "ide-mode-for-any-editor-castor-ide-serve"},
	} {
		if got := slugOf(tc.title); got != tc.want {
			t.Errorf("slugOf(%q) = %q, want %q", tc.title, got, tc.want)
		}
	}
}

func TestCheckQuickStart(t *testing.T) {
	for _, tc := range []struct {
		name, readme string
		ok           bool
	}{
		{"both", "# C\n\n```sh\ngo run ./cmd/castor\ngo test ./...\n```\n", true},
		{"offline example", "# C\n\n```sh\n(cd examples/workspace && go run ../../cmd/castor -p hi)\ngo test ./...\n```\n", true},
		{"install", "# C\n\n```sh\ngo install ./cmd/castor && castor\ngo test ./...\n```\n", true},
		{"no tests", "# C\n\n```sh\ngo run ./cmd/castor\n```\n", false},
		{"no run", "# C\n\n```sh\ngo test ./...\n```\n", false},
		{"section first", "# C\n\n## Intro\n\n```sh\ngo run ./cmd/castor\ngo test ./...\n```\n", false},
		{"no block", "# C\n", false},
	} {
		if err := checkQuickStart(tc.readme); (err == nil) != tc.ok {
			t.Errorf("%s: checkQuickStart = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}
