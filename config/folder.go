package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
	"github.com/castor-dev/castor/internal/textutil"
	"github.com/castor-dev/castor/tool"
)

// DefaultFolderStructureItems is Gemini CLI's item limit for the directory
// tree in the first message.
const DefaultFolderStructureItems = 200

// folderTreeSkipped are folder names always shown as "name/..." without
// their contents, whatever the ignore files say.
var folderTreeSkipped = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
		"node_modules": true,
		".git":         true,
		"dist":         true,
		"__pycache__":  true,
	}
}}

const truncationMark = "..."

// folderNode is a directory in the tree being drawn.
type folderNode struct {
	name        string
	files       []string
	subFolders  []*folderNode
	ignored     bool // shown as "name/..." with no contents
	moreFiles   bool // files were cut by the item limit
	moreFolders bool // folders were cut by the item limit
}

// FolderStructure draws dir's tree exactly as Gemini CLI's
// getFolderStructure does for the session context:
//
//	Showing up to 200 items (files + folders).
//
//	/abs/dir/
//	├───README.md
//	└───src/
//	    └───main.go
//
// The tree is read breadth first, each directory's files before its
// folders, entries in locale order, until maxItems entries (files plus
// folders; <= 0 means 200) have been taken. Folders named node_modules,
// .git, dist or __pycache__ and folders the filter ignores are shown as
// "name/..." and not entered; files the filter ignores are left out;
// symlinks and other special files are not shown. Where the limit cut a
// listing a "..." line marks it, and the header then says so. A nil filter
// ignores nothing.
func FolderStructure(dir string, maxItems int, filter tool.FileFilter) string {
	if maxItems <= 0 {
		maxItems = DefaultFolderStructureItems
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		root = filepath.Clean(dir)
	}
	sep := string(filepath.Separator)
	tree, err := readFolderTree(root, maxItems, filter)
	if errors.Is(err, fs.ErrNotExist) {
		return `Error: Could not read directory "` + root + `". Check path and permissions.`
	}
	if err != nil {
		return `Error processing directory "` + root + `": ` + err.Error()
	}
	var lines []string
	formatFolder(tree, "", true, true, sep, &lines)
	summary := fmt.Sprintf("Showing up to %d items (files + folders).", maxItems)
	if folderTruncated(tree) {
		summary += fmt.Sprintf(" Folders or files indicated with %s contain more items not shown, were ignored, or the display limit (%d items) was reached.", truncationMark, maxItems)
	}
	return summary + "\n\n" + root + sep + "\n" + strings.Join(lines, "\n")
}

// readFolderTree reads the tree breadth first within the item budget. Only
// a missing root is an error; unreadable folders are shown empty.
func readFolderTree(root string, maxItems int, filter tool.FileFilter) (*folderNode, error) {
	top := &folderNode{name: filepath.Base(root)}
	type job struct {
		node *folderNode
		path string
	}
	queue := []job{{top, root}}
	seen := map[string]bool{}
	count := 0
	col := textutil.NewCollator()
	for len(queue) > 0 {
		j := queue[0]
		queue = queue[1:]
		if seen[j.path] {
			continue
		}
		seen[j.path] = true
		if count >= maxItems {
			// Queued before the limit was reached: shown, but not entered.
			continue
		}
		entries, err := os.ReadDir(j.path)
		if err != nil {
			// Like Gemini CLI: a missing or non-directory root is an error,
			// an unreadable one an empty tree, and any unreadable folder
			// below is shown empty.
			if j.path == root && !errors.Is(err, fs.ErrPermission) {
				return nil, err
			}
			continue
		}
		slices.SortStableFunc(entries, func(a, b os.DirEntry) int { return col.Compare(a.Name(), b.Name()) })

		for _, e := range entries {
			if !e.Type().IsRegular() {
				continue
			}
			if count >= maxItems {
				j.node.moreFiles = true
				break
			}
			if filter != nil && filter.Ignored(filepath.Join(j.path, e.Name()), false) {
				continue
			}
			j.node.files = append(j.node.files, e.Name())
			count++
		}
		for _, e := range entries {
			if !e.IsDir() {
				continue
			}
			if count >= maxItems {
				j.node.moreFolders = true
				break
			}
			sub := filepath.Join(j.path, e.Name())
			child := &folderNode{name: e.Name()}
			j.node.subFolders = append(j.node.subFolders, child)
			count++
			if folderTreeSkipped.Get()[e.Name()] || (filter != nil && filter.Ignored(sub, true)) {
				child.ignored = true
				continue
			}
			queue = append(queue, job{child, sub})
		}
	}
	return top, nil
}

// formatFolder appends node's lines. The root prints only its children.
func formatFolder(n *folderNode, indent string, last, isRoot bool, sep string, lines *[]string) {
	connector := "├───"
	if last {
		connector = "└───"
	}
	if !isRoot || n.ignored {
		mark := ""
		if n.ignored {
			mark = truncationMark
		}
		*lines = append(*lines, indent+connector+n.name+sep+mark)
	}
	childIndent := ""
	if !isRoot {
		if last {
			childIndent = indent + "    "
		} else {
			childIndent = indent + "│   "
		}
	}
	for i, f := range n.files {
		c := "├───"
		if i == len(n.files)-1 && len(n.subFolders) == 0 && !n.moreFolders {
			c = "└───"
		}
		*lines = append(*lines, childIndent+c+f)
	}
	if n.moreFiles {
		c := "├───"
		if len(n.subFolders) == 0 && !n.moreFolders {
			c = "└───"
		}
		*lines = append(*lines, childIndent+c+truncationMark)
	}
	for i, sub := range n.subFolders {
		formatFolder(sub, childIndent, i == len(n.subFolders)-1 && !n.moreFolders, false, sep, lines)
	}
	if n.moreFolders {
		*lines = append(*lines, childIndent+"└───"+truncationMark)
	}
}

// folderTruncated reports whether anything in the tree was cut or ignored.
func folderTruncated(n *folderNode) bool {
	if n.moreFiles || n.moreFolders || n.ignored {
		return true
	}
	for _, s := range n.subFolders {
		if folderTruncated(s) {
			return true
		}
	}
	return false
}
