package tool

import (
	"path/filepath"
	"strings"

	"github.com/aymanbagabas/go-udiff"
)

// FileDiff is the display payload of an edit, as Gemini CLI sends it to UIs.
type FileDiff struct {
	FileDiff        string    `json:"fileDiff"`
	FileName        string    `json:"fileName"`
	FilePath        string    `json:"filePath,omitempty"`
	OriginalContent *string   `json:"originalContent"`
	NewContent      string    `json:"newContent"`
	DiffStat        *DiffStat `json:"diffStat,omitempty"`
}

// DiffStat counts the lines an edit adds and removes, split between what the
// model proposed and what the user changed on top of it.
type DiffStat struct {
	ModelAddedLines   int `json:"model_added_lines"`
	ModelRemovedLines int `json:"model_removed_lines"`
	ModelAddedChars   int `json:"model_added_chars"`
	ModelRemovedChars int `json:"model_removed_chars"`
	AIAddedLines      int `json:"ai_added_lines"`
	AIRemovedLines    int `json:"ai_removed_lines"`
	UserAddedLines    int `json:"user_added_lines"`
	UserRemovedLines  int `json:"user_removed_lines"`
}

// UnifiedDiff returns a unified diff of old → new labelled with fileName, in
// the "Current"/"Proposed" form Gemini CLI shows.
func UnifiedDiff(fileName, oldText, newText string) string {
	edits := udiff.Lines(oldText, newText)
	d, err := udiff.ToUnified(fileName+"\tCurrent", fileName+"\tProposed", oldText, edits, 3)
	if err != nil {
		return ""
	}
	return "===================================================================\n" + d
}

// CountDiffLines returns the number of added and removed lines (and their
// characters) between two texts.
func CountDiffLines(oldText, newText string) (added, removed, addedChars, removedChars int) {
	edits := udiff.Lines(oldText, newText)
	d, err := udiff.ToUnified("a", "b", oldText, edits, 0)
	if err != nil {
		return
	}
	for _, line := range strings.Split(d, "\n") {
		switch {
		case strings.HasPrefix(line, "+++"), strings.HasPrefix(line, "---"):
		case strings.HasPrefix(line, "+"):
			added++
			addedChars += len(line) - 1
		case strings.HasPrefix(line, "-"):
			removed++
			removedChars += len(line) - 1
		}
	}
	return
}

// NewFileDiff builds the display payload for an edit of path from
// original (nil when the file is new) to proposed, where final is what was
// actually written (it differs from proposed when the user modified it).
func NewFileDiff(path string, original *string, proposed, final string) *FileDiff {
	old := ""
	if original != nil {
		old = *original
	}
	name := filepath.Base(path)
	st := &DiffStat{}
	st.ModelAddedLines, st.ModelRemovedLines, st.ModelAddedChars, st.ModelRemovedChars = CountDiffLines(old, proposed)
	st.AIAddedLines, st.AIRemovedLines = st.ModelAddedLines, st.ModelRemovedLines
	if final != proposed {
		st.UserAddedLines, st.UserRemovedLines, _, _ = CountDiffLines(proposed, final)
	}
	return &FileDiff{
		FileDiff:        UnifiedDiff(name, old, final),
		FileName:        name,
		FilePath:        path,
		OriginalContent: original,
		NewContent:      final,
		DiffStat:        st,
	}
}
