package config

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/castor-dev/castor/tool"
)

// bigTree is the fixture behind testdata/folder/big-*.golden, whose
// expected output came from Gemini CLI's algorithm run under Node.
var bigTree = map[string]string{
	"node_modules/pkg/i.js": "", ".git/objects/": "", "dist/": "", "__pycache__/": "",
	"src/main.go": "", "src/util/u.go": "", "src/util/v.go": "", "src/api/h.go": "",
	"docs/x.md": "", "docs/y.md": "", "Zeta/z": "",
	"alpha/a1": "", "alpha/beta/b1": "", "alpha/beta/gamma/g1": "",
	"README.md": "", "go.mod": "", "Makefile": "", ".env": "", "_tmp.txt": "", "a.txt": "", "B.txt": "",
}

func TestFolderStructureGolden(t *testing.T) {
	tests := []struct {
		golden   string
		tree     map[string]string
		maxItems int
		filter   func(root string) tool.FileFilter
		symlink  bool
	}{
		{golden: "simple.golden", tree: map[string]string{"README.md": "hi\n", "src/main.go": "x\n"}},
		{golden: "big-200.golden", tree: bigTree, symlink: true},
		{golden: "big-12.golden", tree: bigTree, maxItems: 12},
		{golden: "big-8.golden", tree: bigTree, maxItems: 8},
		{golden: "big-3.golden", tree: bigTree, maxItems: 3},
		{
			golden: "filtered.golden",
			tree: map[string]string{
				".git/HEAD": "", ".gitignore": "*.log\nbuild/\n", ".geminiignore": "secret/\n",
				"app.log": "", "main.go": "", "build/out.bin": "", "secret/key": "", "pkg/a.go": "", "pkg/b.log": "",
			},
			filter: func(root string) tool.FileFilter {
				return NewFileFilter(root, tool.FilterOptions{RespectGitIgnore: true, RespectGeminiIgnore: true})
			},
		},
		{golden: "empty.golden", tree: map[string]string{}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			root := realTempDir(t)
			writeTree(t, root, tt.tree)
			if tt.symlink {
				// Symlinks are neither files nor folders to Gemini CLI.
				if err := os.Symlink("README.md", filepath.Join(root, "link.md")); err != nil {
					t.Skip(err)
				}
			}
			var f tool.FileFilter
			if tt.filter != nil {
				f = tt.filter(root)
			}
			checkGolden(t, "folder/"+tt.golden, FolderStructure(root, tt.maxItems, f), root)
		})
	}
}

func TestFolderStructureErrors(t *testing.T) {
	root := realTempDir(t)
	missing := filepath.Join(root, "missing")
	if got, want := FolderStructure(missing, 0, nil), `Error: Could not read directory "`+missing+`". Check path and permissions.`; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	file := filepath.Join(root, "file")
	writeTree(t, root, map[string]string{"file": ""})
	if got := FolderStructure(file, 0, nil); !strings.HasPrefix(got, `Error processing directory "`+file+`": `) {
		t.Errorf("got %q", got)
	}
}
