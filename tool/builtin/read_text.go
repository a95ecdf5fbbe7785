package builtin

// Reading files for the model with Gemini CLI's limits: text encodings,
// line windows, long lines cut, binary files as inline data.

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"google.golang.org/genai"

	"github.com/castor-dev/castor/tool"
)

// Limits Gemini CLI applies when reading files for the model
// (packages/core/src/utils/constants.ts and fileUtils.ts).
const (
	// maxReadFileBytes is the largest file read_file (and read_many_files)
	// will read: 20 MB.
	maxReadFileBytes = 20 * 1024 * 1024
	// defaultMaxLines is the default window of lines returned for a text file.
	defaultMaxLines = 2000
	// maxLineLength is the longest line returned before it is cut and
	// suffixed with truncatedLineSuffix. Counted in UTF-16 code units, as
	// JavaScript's String.length counts.
	maxLineLength = 2000
	// truncatedLineSuffix marks a line cut at maxLineLength.
	truncatedLineSuffix = "... [truncated]"
	// maxSVGBytes is the largest SVG returned as text.
	maxSVGBytes = 1 * 1024 * 1024
)

// textEncoding is a Unicode encoding announced by a byte-order mark.
type textEncoding int

const (
	encUTF8 textEncoding = iota
	encUTF16LE
	encUTF16BE
	encUTF32LE
	encUTF32BE
)

// detectBOM returns the encoding a byte-order mark at the start of b
// announces and the mark's length; length 0 means no BOM (UTF-8 assumed).
func detectBOM(b []byte) (textEncoding, int) {
	switch {
	case len(b) >= 4 && b[0] == 0xFF && b[1] == 0xFE && b[2] == 0 && b[3] == 0:
		return encUTF32LE, 4
	case len(b) >= 4 && b[0] == 0 && b[1] == 0 && b[2] == 0xFE && b[3] == 0xFF:
		return encUTF32BE, 4
	case len(b) >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF:
		return encUTF8, 3
	case len(b) >= 2 && b[0] == 0xFF && b[1] == 0xFE:
		return encUTF16LE, 2
	case len(b) >= 2 && b[0] == 0xFE && b[1] == 0xFF:
		return encUTF16BE, 2
	}
	return encUTF8, 0
}

// decodeText decodes file bytes to a string, honouring and stripping a
// UTF-8/16/32 byte-order mark; without one the bytes are taken as UTF-8.
func decodeText(b []byte) string {
	enc, n := detectBOM(b)
	b = b[n:]
	switch enc {
	case encUTF16LE, encUTF16BE:
		var order binary.ByteOrder = binary.LittleEndian
		if enc == encUTF16BE {
			order = binary.BigEndian
		}
		u := make([]uint16, len(b)/2)
		for i := range u {
			u[i] = order.Uint16(b[2*i:])
		}
		return string(utf16.Decode(u))
	case encUTF32LE, encUTF32BE:
		var order binary.ByteOrder = binary.LittleEndian
		if enc == encUTF32BE {
			order = binary.BigEndian
		}
		var sb strings.Builder
		for i := 0; i+4 <= len(b); i += 4 {
			r := rune(order.Uint32(b[i:]))
			if !utf8.ValidRune(r) {
				r = utf8.RuneError
			}
			sb.WriteRune(r)
		}
		return sb.String()
	}
	return string(b)
}

// utf16Len returns the length of s in UTF-16 code units, the unit of
// JavaScript's String.length, which Gemini CLI's character limits count.
func utf16Len(s string) int {
	n := 0
	for _, r := range s {
		if r >= 0x10000 {
			n += 2
		} else {
			n++
		}
	}
	return n
}

// truncateUTF16 returns the longest prefix of s of at most n UTF-16 code
// units (never splitting a character) and whether anything was cut.
func truncateUTF16(s string, n int) (string, bool) {
	units := 0
	for i, r := range s {
		w := 1
		if r >= 0x10000 {
			w = 2
		}
		if units+w > n {
			return s[:i], true
		}
		units += w
	}
	return s, false
}

// shortenLine cuts a line longer than maxLineLength and marks it with
// truncatedLineSuffix; it reports whether it did.
func shortenLine(line string) (string, bool) {
	if cut, ok := truncateUTF16(line, maxLineLength); ok {
		return cut + truncatedLineSuffix, true
	}
	return line, false
}

// textWindow is a range of a text file's lines prepared for the model.
type textWindow struct {
	// Content is the selected lines joined by "\n", long lines shortened.
	Content string
	// TotalLines is the file's line count (content split on "\n", so a
	// trailing newline yields a last, empty line, as in Gemini CLI).
	TotalLines int
	// FirstLine and LastLine are the 1-based inclusive range shown.
	FirstLine, LastLine int
	// LinesShortened reports that some line was cut at maxLineLength.
	LinesShortened bool
}

// Truncated reports whether the window shows less than the whole file.
func (w textWindow) Truncated() bool {
	return w.FirstLine > 1 || w.LastLine < w.TotalLines || w.LinesShortened
}

// RangeTruncated reports whether the window omits whole lines.
func (w textWindow) RangeTruncated() bool {
	return w.FirstLine > 1 || w.LastLine < w.TotalLines
}

// selectLines returns the window of content from 1-based startLine to
// 1-based inclusive endLine. startLine 0 means the first line; endLine 0
// means to the end when startLine is given and the first defaultMaxLines
// lines otherwise (Gemini CLI's processSingleFileContent semantics). Out of
// range values are clamped.
func selectLines(content string, startLine, endLine int) textWindow {
	lines := strings.Split(content, "\n")
	total := len(lines)
	start, end := 0, total
	if startLine > 0 || endLine > 0 {
		if startLine > 0 {
			start = startLine - 1
		}
		if endLine > 0 {
			end = min(endLine, total)
		}
	} else {
		end = min(defaultMaxLines, total)
	}
	start = min(start, total)
	end = max(end, start)
	w := textWindow{TotalLines: total, FirstLine: start + 1, LastLine: end}
	sel := make([]string, 0, end-start)
	for _, l := range lines[start:end] {
		s, cut := shortenLine(l)
		w.LinesShortened = w.LinesShortened || cut
		sel = append(sel, s)
	}
	w.Content = strings.Join(sel, "\n")
	return w
}

// fileContent is one file read for the model, the equivalent of Gemini
// CLI's ProcessedFileReadResult. Exactly one of Text and Part carries the
// content; when Err is set the read failed and Text holds the llmContent
// Gemini CLI shows alongside the error.
type fileContent struct {
	Text    string
	Part    *genai.Part
	Display string
	Err     *tool.Error
	// Type is the detected file type ("" when the read failed early).
	Type fileType
	// Window is set for text files.
	Window *textWindow
}

// readFileForModel reads the absolute path abs the way Gemini CLI's
// processSingleFileContent does, for read_file and read_many_files:
//
//   - missing → FILE_NOT_FOUND "File not found: <abs>";
//   - directory → TARGET_IS_DIRECTORY;
//   - over 20 MB → FILE_TOO_LARGE;
//   - binary → success text "Cannot display content of binary file: <rel>";
//   - SVG → text when ≤ 1 MB, else a skip notice;
//   - image/PDF/audio/video → an inlineData part (base64, MIME type);
//   - text → the lines from startLine to endLine (see selectLines), long
//     lines shortened.
//
// Paths in texts are relative to the workspace root (rel). The caller has
// already checked the path is allowed.
func (e *Env) readFileForModel(abs string, startLine, endLine int) *fileContent {
	rel := e.relPath(abs)
	// The file is opened once and everything below reads that descriptor,
	// checked to lie inside the workspace: a path swapped for a symlink
	// after the caller's check cannot redirect the read.
	f, err := openVerified(abs, e.realAllowed())
	if err != nil {
		switch {
		case errors.Is(err, errOutsideWorkspace):
			te := e.pathNotInWorkspaceError(abs)
			return &fileContent{Text: te.Message, Display: "Path not in workspace.", Err: te}
		case errors.Is(err, fs.ErrNotExist):
			return &fileContent{
				Text:    "Could not read file because no file was found at the specified path.",
				Display: "File not found.",
				Err:     tool.Errorf(tool.ErrFileNotFound, "File not found: %s", abs),
			}
		}
		return readFailure(abs, rel, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return readFailure(abs, rel, err)
	}
	if fi.IsDir() {
		return &fileContent{
			Text:    "Could not read file because the provided path is a directory, not a file.",
			Display: "Path is a directory.",
			Err:     tool.Errorf(tool.ErrTargetIsDirectory, "Path is a directory, not a file: %s", abs),
		}
	}
	if !fi.Mode().IsRegular() {
		// A FIFO or device would block or never end; refuse it rather
		// than hang the call.
		msg := "not a regular file"
		return &fileContent{
			Text:    fmt.Sprintf("Error reading file %s: %s", rel, msg),
			Display: fmt.Sprintf("Error reading file %s: %s", rel, msg),
			Err:     tool.Errorf(tool.ErrReadContentFailure, "Error reading file %s: %s", abs, msg),
		}
	}
	if fi.Size() > maxReadFileBytes {
		mb := float64(fi.Size()) / (1024 * 1024)
		return &fileContent{
			Text:    "File size exceeds the 20MB limit.",
			Display: "File size exceeds the 20MB limit.",
			Err:     tool.Errorf(tool.ErrFileTooLarge, "File size exceeds the 20MB limit: %s (%sMB)", abs, strconv.FormatFloat(mb, 'f', 2, 64)),
		}
	}
	sample := make([]byte, 4096)
	n, err := f.ReadAt(sample, 0)
	if err != nil && err != io.EOF {
		return readFailure(abs, rel, err)
	}
	// ReadAt leaves the offset at 0, so readAll starts from the top; the
	// limit keeps a file growing meanwhile within the cap.
	readAll := func() ([]byte, error) { return io.ReadAll(io.LimitReader(f, maxReadFileBytes)) }
	ft := detectFileTypeSample(abs, sample[:n])
	switch ft {
	case fileBinary:
		return &fileContent{
			Type:    ft,
			Text:    "Cannot display content of binary file: " + rel,
			Display: "Skipped binary file: " + rel,
		}
	case fileSVG:
		if fi.Size() > maxSVGBytes {
			return &fileContent{
				Type:    ft,
				Text:    "Cannot display content of SVG file larger than 1MB: " + rel,
				Display: "Skipped large SVG file (>1MB): " + rel,
			}
		}
		b, err := readAll()
		if err != nil {
			return readFailure(abs, rel, err)
		}
		return &fileContent{Type: ft, Text: decodeText(b), Display: "Read SVG as text: " + rel}
	case fileImage, filePDF, fileAudio, fileVideo:
		b, err := readAll()
		if err != nil {
			return readFailure(abs, rel, err)
		}
		mt := mimeTypeForPath(abs)
		if mt == "" {
			mt = "application/octet-stream"
		}
		// Data holds raw bytes; genai base64-encodes them on the wire, so
		// the JSON carries exactly Gemini CLI's base64 string.
		return &fileContent{
			Type:    ft,
			Part:    &genai.Part{InlineData: &genai.Blob{MIMEType: mt, Data: b}},
			Display: fmt.Sprintf("Read %s file: %s", ft, rel),
		}
	}
	b, err := readAll()
	if err == nil && e.Files != nil {
		b, err = e.readText(abs)
	}
	if err != nil {
		return readFailure(abs, rel, err)
	}
	w := selectLines(decodeText(b), startLine, endLine)
	fc := &fileContent{Type: fileText, Text: w.Content, Window: &w}
	switch {
	case w.RangeTruncated():
		fc.Display = fmt.Sprintf("Read lines %d-%d of %d from %s", w.FirstLine, w.LastLine, w.TotalLines, rel)
		if w.LinesShortened {
			fc.Display += " (some lines were shortened)"
		}
	case w.LinesShortened:
		fc.Display = fmt.Sprintf("Read all %d lines from %s (some lines were shortened)", w.TotalLines, rel)
	}
	return fc
}

// readFailure is the READ_CONTENT_FAILURE result for an unexpected read
// error.
func readFailure(abs, rel string, err error) *fileContent {
	msg := nodeErrorMessage(err)
	return &fileContent{
		Text:    fmt.Sprintf("Error reading file %s: %s", rel, msg),
		Display: fmt.Sprintf("Error reading file %s: %s", rel, msg),
		Err:     tool.Errorf(tool.ErrReadContentFailure, "Error reading file %s: %s", abs, msg),
	}
}

// base64Of returns the standard base64 encoding of b, as Gemini CLI puts it
// in inlineData.data (for displays and tests; genai encodes Part data
// itself).
func base64Of(b []byte) string { return base64.StdEncoding.EncodeToString(b) }
