package builtin

// Shared file helpers for the built-in tools: path resolution and workspace
// checks, atomic writes, file-type and MIME detection, line endings, reading
// files for the model with Gemini CLI's limits, and saving oversized output.
//
// Every tool in this package goes through these helpers so that the texts the
// model sees for the same situation (a path outside the workspace, a missing
// file, a full disk) are identical whichever tool hit it.

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/aymanbagabas/go-udiff/lcs"
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
	// toolOutputsDir is the directory under the project temp dir where
	// oversized tool outputs are saved.
	toolOutputsDir = "tool-outputs"
)

// ---------------------------------------------------------------------------
// Paths and the workspace

// resolvePath turns a path given by the model into an absolute, cleaned path
// (relative paths resolve against the workspace root, "~/" against the home
// directory) and checks that it may be accessed: it must lie inside a
// workspace directory or the project temp directory, with symlinks resolved.
// The error is PATH_NOT_IN_WORKSPACE with Gemini CLI's message.
func (e *Env) resolvePath(p string) (string, *tool.Error) {
	abs := e.absPath(p)
	if !e.pathAllowed(abs) {
		return abs, e.pathNotInWorkspaceError(abs)
	}
	return abs, nil
}

// absPath makes p absolute without checking where it points.
func (e *Env) absPath(p string) string {
	if e == nil || e.Workspace == nil {
		a, err := filepath.Abs(p)
		if err != nil {
			return filepath.Clean(p)
		}
		return a
	}
	return e.Workspace.Resolve(p)
}

// pathAllowed reports whether the absolute path lies inside the workspace or
// the project temp directory (where truncated outputs are saved, so the
// model can read them back). Symlinks are resolved: a link inside the
// workspace pointing outside it is not allowed.
func (e *Env) pathAllowed(abs string) bool {
	if e == nil {
		return false
	}
	if e.Workspace != nil && e.Workspace.Contains(abs) {
		return true
	}
	if e.TempDir != "" {
		return tool.NewWorkspace(e.TempDir).Contains(abs)
	}
	return false
}

// pathNotInWorkspaceError is the error for a path outside every allowed
// directory, worded as Gemini CLI's Config.validatePathAccess words it.
func (e *Env) pathNotInWorkspaceError(abs string) *tool.Error {
	var dirs []string
	if e != nil && e.Workspace != nil {
		dirs = e.Workspace.Dirs()
	}
	msg := fmt.Sprintf("Path not in workspace: Attempted path %q resolves outside the allowed workspace directories: %s", abs, strings.Join(dirs, ", "))
	if e != nil && e.TempDir != "" {
		msg += " or the project temp directory: " + e.TempDir
	}
	return &tool.Error{Type: tool.ErrPathNotInWorkspace, Message: msg}
}

// workspaceRoot returns the root workspace directory, or "" without one.
func (e *Env) workspaceRoot() string {
	if e == nil || e.Workspace == nil {
		return ""
	}
	return e.Workspace.Root()
}

// relPath returns abs relative to the workspace root with forward slashes,
// the form Gemini CLI uses in display texts ("src/a.go"); "." for the root
// itself. Paths in other workspace directories come out as "../x/y", as
// Node's path.relative gives them.
func (e *Env) relPath(abs string) string {
	root := e.workspaceRoot()
	if root == "" {
		return filepath.ToSlash(abs)
	}
	r, err := filepath.Rel(root, abs)
	if err != nil {
		return filepath.ToSlash(abs)
	}
	return filepath.ToSlash(r)
}

// fileFilter returns the ignore filter for opts, or nil when the session has
// none. Use isIgnored to query it nil-safely.
func (e *Env) fileFilter(opts tool.FilterOptions) tool.FileFilter {
	if e == nil || e.Filter == nil {
		return nil
	}
	return e.Filter(opts)
}

// isIgnored reports whether f ignores the absolute path; a nil filter
// ignores nothing.
func isIgnored(f tool.FileFilter, abs string, isDir bool) bool {
	return f != nil && f.Ignored(abs, isDir)
}

// ---------------------------------------------------------------------------
// Writing

// randomHex returns n random bytes in hex, for temporary file names.
func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// writeError classifies a failed write of absPath into the typed error the
// model sees, with Gemini CLI's wording (write-file.ts): EACCES/EPERM →
// PERMISSION_DENIED, ENOSPC → NO_SPACE_LEFT (fatal in headless runs),
// EISDIR → TARGET_IS_DIRECTORY, anything else → FILE_WRITE_FAILURE
// ("Error writing to file '<abs>': <node-style message> (<CODE>)").
func writeError(absPath string, err error) *tool.Error {
	switch {
	case errors.Is(err, syscall.EACCES), errors.Is(err, syscall.EPERM), errors.Is(err, syscall.EROFS):
		return tool.Errorf(tool.ErrPermissionDenied, "Permission denied writing to file: %s (%s)", absPath, errnoName(err, "EACCES"))
	case errors.Is(err, syscall.ENOSPC), errors.Is(err, syscall.EDQUOT):
		return tool.Errorf(tool.ErrNoSpaceLeft, "No space left on device: %s (%s)", absPath, errnoName(err, "ENOSPC"))
	case errors.Is(err, syscall.EISDIR):
		return tool.Errorf(tool.ErrTargetIsDirectory, "Target is a directory, not a file: %s (EISDIR)", absPath)
	}
	if name := errnoName(err, ""); name != "" {
		return tool.Errorf(tool.ErrFileWriteFailure, "Error writing to file '%s': %s (%s)", absPath, nodeErrorMessage(err), name)
	}
	return tool.Errorf(tool.ErrFileWriteFailure, "Error writing to file: %s", err.Error())
}

// errnoName returns the symbolic name Node would give err's errno (the
// "(EACCES)" suffix Gemini CLI appends), or def when it is not an errno.
func errnoName(err error, def string) string {
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		return def
	}
	switch errno {
	case syscall.EACCES:
		return "EACCES"
	case syscall.EPERM:
		return "EPERM"
	case syscall.EROFS:
		return "EROFS"
	case syscall.ENOSPC:
		return "ENOSPC"
	case syscall.EDQUOT:
		return "EDQUOT"
	case syscall.EISDIR:
		return "EISDIR"
	case syscall.ENOENT:
		return "ENOENT"
	case syscall.ENOTDIR:
		return "ENOTDIR"
	}
	return def
}

// nodeErrorMessage renders a filesystem error the way Node's fs errors read
// ("ENOENT: no such file or directory, open '/x'"), which is what Gemini CLI
// puts after "Error writing to file: " and similar prefixes. Errors without
// an errno are returned as they are.
func nodeErrorMessage(err error) string {
	var pe *fs.PathError
	var errno syscall.Errno
	if errors.As(err, &pe) && errors.As(err, &errno) {
		name := errnoName(err, "")
		if name != "" {
			op := pe.Op
			if op == "stat" || op == "lstat" {
				op = "stat"
			}
			return fmt.Sprintf("%s: %s, %s '%s'", name, errno.Error(), op, pe.Path)
		}
	}
	var le *os.LinkError
	if errors.As(err, &le) && errors.As(err, &errno) {
		if name := errnoName(err, ""); name != "" {
			return fmt.Sprintf("%s: %s, %s '%s' -> '%s'", name, errno.Error(), le.Op, le.Old, le.New)
		}
	}
	return err.Error()
}

// ---------------------------------------------------------------------------
// Line endings

// detectLineEnding returns "\r\n" when content uses Windows line endings
// anywhere and "\n" otherwise, the test Gemini CLI's edit tools use to decide
// how to write a file back.
func detectLineEnding(content string) string {
	if strings.Contains(content, "\r\n") {
		return "\r\n"
	}
	return "\n"
}

// normalizeLineEndings converts CRLF line endings to LF.
func normalizeLineEndings(s string) string {
	return strings.ReplaceAll(s, "\r\n", "\n")
}

// applyLineEnding converts s to use eol: with "\r\n" every line ending
// becomes CRLF (existing CRLFs are not doubled); with "\n" s is returned
// unchanged, since new LF content needs no conversion.
func applyLineEnding(s, eol string) string {
	if eol != "\r\n" {
		return s
	}
	return strings.ReplaceAll(normalizeLineEndings(s), "\n", "\r\n")
}

// ---------------------------------------------------------------------------
// File types and MIME types

// fileType is Gemini CLI's classification of a file for reading.
type fileType string

// File types, as detectFileType in Gemini CLI's fileUtils.ts returns them.
const (
	fileText   fileType = "text"
	fileImage  fileType = "image"
	filePDF    fileType = "pdf"
	fileAudio  fileType = "audio"
	fileVideo  fileType = "video"
	fileBinary fileType = "binary"
	fileSVG    fileType = "svg"
)

// mimeTypes maps lower-case extensions to MIME types for the files whose
// type matters to the model: media sent as inlineData, and text types that a
// naive lookup would misclassify. It follows the "mime" npm package Gemini
// CLI uses, restricted to what changes behaviour.
var mimeTypes = map[string]string{
	// Images.
	".png": "image/png", ".jpg": "image/jpeg", ".jpeg": "image/jpeg", ".jpe": "image/jpeg",
	".gif": "image/gif", ".webp": "image/webp", ".bmp": "image/bmp", ".ico": "image/vnd.microsoft.icon",
	".tif": "image/tiff", ".tiff": "image/tiff", ".avif": "image/avif", ".heic": "image/heic",
	".heif": "image/heif", ".svg": "image/svg+xml", ".jxl": "image/jxl", ".apng": "image/apng",
	".psd": "image/vnd.adobe.photoshop",
	// Documents.
	".pdf": "application/pdf",
	// Audio.
	".mp3": "audio/mpeg", ".wav": "audio/wav", ".ogg": "audio/ogg", ".oga": "audio/ogg",
	".flac": "audio/flac", ".aac": "audio/aac", ".m4a": "audio/mp4", ".opus": "audio/ogg",
	".weba": "audio/webm", ".mid": "audio/midi", ".midi": "audio/midi", ".aif": "audio/x-aiff",
	".aiff": "audio/x-aiff", ".wma": "audio/x-ms-wma",
	// Video.
	".mp4": "video/mp4", ".m4v": "video/x-m4v", ".mov": "video/quicktime", ".webm": "video/webm",
	".avi": "video/x-msvideo", ".mkv": "video/x-matroska", ".mpeg": "video/mpeg", ".mpg": "video/mpeg",
	".wmv": "video/x-ms-wmv", ".flv": "video/x-flv", ".3gp": "video/3gpp", ".ogv": "video/ogg",
	// Text-ish types a content sniffer might get wrong.
	".json": "application/json", ".js": "application/javascript", ".mjs": "application/javascript",
	".html": "text/html", ".htm": "text/html", ".css": "text/css", ".md": "text/markdown",
	".txt": "text/plain", ".csv": "text/csv", ".xml": "application/xml", ".yaml": "text/yaml",
	".yml": "text/yaml",
}

// mimeTypeForPath returns the MIME type of path by its extension, or ""
// when unknown.
func mimeTypeForPath(path string) string {
	return mimeTypes[strings.ToLower(filepath.Ext(path))]
}

// binaryExtensions are extensions treated as binary without looking at the
// content (Gemini CLI's BINARY_EXTENSIONS from ignorePatterns.ts).
var binaryExtensions = map[string]bool{
	".7z": true, ".a": true, ".avi": true, ".bin": true, ".bmp": true, ".bz2": true,
	".class": true, ".dat": true, ".db": true, ".dll": true, ".dmg": true, ".doc": true,
	".docx": true, ".dylib": true, ".exe": true, ".flac": true, ".gif": true, ".gz": true,
	".img": true, ".iso": true, ".jar": true, ".jpeg": true, ".jpg": true, ".lib": true,
	".lz4": true, ".mdb": true, ".mkv": true, ".mov": true, ".mp3": true, ".mp4": true,
	".o": true, ".obj": true, ".odp": true, ".ods": true, ".odt": true, ".ogg": true,
	".otf": true, ".pdf": true, ".png": true, ".ppt": true, ".pptx": true, ".pyc": true,
	".pyo": true, ".rar": true, ".so": true, ".sqlite": true, ".svg": true, ".tar": true,
	".ttf": true, ".war": true, ".wasm": true, ".wav": true, ".webp": true, ".woff": true,
	".woff2": true, ".xls": true, ".xlsx": true, ".xz": true, ".zip": true, ".zst": true,
}

// hasBinaryExtension reports whether path has an extension Gemini CLI treats
// as binary regardless of content.
func hasBinaryExtension(path string) bool {
	return binaryExtensions[strings.ToLower(filepath.Ext(path))]
}

// detectFileType classifies path as Gemini CLI does: TypeScript extensions
// are text (their MIME type would say MPEG transport stream), .svg is svg,
// images and PDFs by MIME type, audio/video by MIME type only when the
// content is really binary, then binary by extension or by content.
func detectFileType(path string) fileType {
	return classifyFile(path, func() bool { return isBinaryFile(path) })
}

// detectFileTypeSample is detectFileType with the file's first bytes
// already read, for callers holding the file open.
func detectFileTypeSample(path string, sample []byte) fileType {
	return classifyFile(path, func() bool { return looksBinary(sample) })
}

// classifyFile is detectFileType's logic; binary samples the content only
// when the extension leaves the type open.
func classifyFile(path string, binary func() bool) fileType {
	ext := strings.ToLower(filepath.Ext(path))
	switch ext {
	case ".ts", ".mts", ".cts":
		return fileText
	case ".svg":
		return fileSVG
	}
	mt := mimeTypeForPath(path)
	switch {
	case strings.HasPrefix(mt, "image/"):
		return fileImage
	case strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"):
		if !binary() {
			return fileText
		}
		if strings.HasPrefix(mt, "audio/") {
			return fileAudio
		}
		return fileVideo
	case mt == "application/pdf":
		return filePDF
	}
	if binaryExtensions[ext] || binary() {
		return fileBinary
	}
	return fileText
}

// isBinaryFile samples the first 4 KB of path and reports whether it looks
// binary (see looksBinary). Unreadable and empty files are not binary.
func isBinaryFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	buf := make([]byte, 4096)
	n, _ := io.ReadFull(f, buf)
	return looksBinary(buf[:n])
}

// looksBinary is Gemini CLI's content heuristic: text when a Unicode BOM is
// present (UTF-16/32 text is full of NULs), binary on any NUL byte or when
// more than 30% of the bytes are control characters other than \t..\r.
func looksBinary(sample []byte) bool {
	if len(sample) == 0 {
		return false
	}
	if _, n := detectBOM(sample); n > 0 {
		return false
	}
	nonPrintable := 0
	for _, b := range sample {
		if b == 0 {
			return true
		}
		if b < 9 || (b > 13 && b < 32) {
			nonPrintable++
		}
	}
	return float64(nonPrintable)/float64(len(sample)) > 0.3
}

// ---------------------------------------------------------------------------
// Reading text

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

// ---------------------------------------------------------------------------
// Oversized output

// formatThousands renders n with comma separators, as JavaScript's
// toLocaleString does in the en-US locale Gemini CLI's texts assume.
func formatThousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	if neg {
		s = s[1:]
	}
	var b bytes.Buffer
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// truncateToolOutput shortens content longer than maxChars (counted in
// UTF-16 units) to Gemini CLI's form: the first 20% and the last 80% of
// maxChars around an omission marker, headed by where the full output was
// saved. Content within the limit is returned unchanged.
func truncateToolOutput(content, outputFile string, maxChars int) string {
	if utf16Len(content) <= maxChars {
		return content
	}
	u := utf16.Encode([]rune(content))
	head := maxChars / 5
	tail := maxChars - head
	omitted := len(u) - head - tail
	return fmt.Sprintf("Output too large. Showing first %s and last %s characters. For full output see: %s\n%s\n\n... [%s characters omitted] ...\n\n%s",
		formatThousands(head), formatThousands(tail), outputFile,
		string(utf16.Decode(u[:head])), formatThousands(omitted), string(utf16.Decode(u[len(u)-tail:])))
}

// sanitizeFilenamePart replaces every character but [A-Za-z0-9_-] with "_"
// so that tool names and call ids make safe file names.
func sanitizeFilenamePart(s string) string {
	b := []byte(s)
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			b[i] = '_'
		}
	}
	return string(b)
}

// saveToolOutput saves content, the full output of a call to toolName, as
// <tempDir>/tool-outputs/<tool>_<id>.txt (just <id>.txt when the id already
// starts with the tool name) and returns the file's path. tempDir "" uses
// the system temp directory.
func saveToolOutput(tempDir, toolName, id, content string) (string, error) {
	if tempDir == "" {
		tempDir = os.TempDir()
	}
	safeTool := strings.ToLower(sanitizeFilenamePart(toolName))
	safeID := strings.ToLower(sanitizeFilenamePart(id))
	name := safeTool + "_" + safeID + ".txt"
	if strings.HasPrefix(safeID, safeTool) {
		name = safeID + ".txt"
	}
	dir := filepath.Join(tempDir, toolOutputsDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		return "", err
	}
	return p, nil
}

// ---------------------------------------------------------------------------
// Edit feedback and ordering

// diffContextSnippet returns the parts of newContent that differ from
// originalContent with contextLines lines around each change, gaps marked
// "...", as Gemini CLI's getDiffContextSnippet builds the "Here is the
// updated code:" text of write_file and replace. A new file (empty
// original) or an unchanged one yields newContent whole.
func diffContextSnippet(originalContent, newContent string, contextLines int) string {
	if originalContent == "" {
		return newContent
	}
	snippet, changed := changeSnippet(normalizeLineEndings(originalContent), normalizeLineEndings(newContent), contextLines)
	if !changed {
		return newContent
	}
	return snippet
}

// changeSnippet returns the lines of after that a line diff finds changed
// relative to before, each with contextLines lines around it, gaps marked
// "..."; changed is false when the diff finds nothing. It is the common
// part of diffContextSnippet and editSnippet, which differ in how they
// treat line endings.
func changeSnippet(before, after string, contextLines int) (snippet string, changed bool) {
	newLines := strings.Split(after, "\n")
	type span struct{ start, end int }
	var merged []span
	for _, d := range lcs.DiffLines(splitLinesKeepEnds(before), splitLinesKeepEnds(after)) {
		r := span{max(0, d.ReplStart-contextLines), min(len(newLines), d.ReplEnd+contextLines)}
		if n := len(merged); n > 0 && r.start <= merged[n-1].end {
			merged[n-1].end = max(merged[n-1].end, r.end)
			continue
		}
		merged = append(merged, r)
	}
	if len(merged) == 0 {
		return "", false
	}
	var parts []string
	last := 0
	for _, r := range merged {
		if r.start > last {
			parts = append(parts, "...")
		}
		parts = append(parts, strings.Join(newLines[r.start:r.end], "\n"))
		last = r.end
	}
	if last < len(newLines) {
		parts = append(parts, "...")
	}
	return strings.Join(parts, "\n"), true
}

// splitLinesKeepEnds splits s into lines that keep their "\n", the tokens a
// line diff compares (a last line without newline differs from the same
// line with one).
func splitLinesKeepEnds(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// localeCompare orders strings approximately as JavaScript's
// String.prototype.localeCompare does under ICU's root collation, which
// Gemini CLI uses to sort listings: punctuation before digits before
// letters, letters compared without regard to case first, and lower case
// before upper case only to break ties. It returns -1, 0 or 1.
func localeCompare(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Primary level: character classes and case-folded letters.
	for i := 0; i < len(ra) && i < len(rb); i++ {
		ka, kb := collationKey(ra[i]), collationKey(rb[i])
		if ka != kb {
			if ka < kb {
				return -1
			}
			return 1
		}
	}
	if len(ra) != len(rb) {
		if len(ra) < len(rb) {
			return -1
		}
		return 1
	}
	// Tertiary level: lower case sorts before upper case.
	for i := range ra {
		if ra[i] != rb[i] {
			la, lb := unicode.IsLower(ra[i]), unicode.IsLower(rb[i])
			switch {
			case la && !lb:
				return -1
			case lb && !la:
				return 1
			case ra[i] < rb[i]:
				return -1
			default:
				return 1
			}
		}
	}
	return 0
}

// collationKeys returns the primary weights of s (see collationKey) as a
// string that compares, byte for byte, as the weights do (three bytes per
// weight, big-endian), so that sorting many strings computes the weights
// once and compares them with a plain string comparison.
func collationKeys(s string) string {
	b := make([]byte, 0, 3*len(s))
	for _, r := range s {
		w := collationKey(r)
		b = append(b, byte(w>>16), byte(w>>8), byte(w))
	}
	return string(b)
}

// localeCompareKeyed is localeCompare for strings whose primary weights
// were computed by collationKeys; only exact ties in those fall back to
// the full comparison.
func localeCompareKeyed(a, b, ka, kb string) int {
	if c := strings.Compare(ka, kb); c != 0 {
		return c
	}
	return localeCompare(a, b)
}

// icuPunctuationOrder lists ASCII punctuation and symbols in the order the
// root collation sorts them; all of them sort before digits and letters.
const icuPunctuationOrder = " _-,;:!?.'\"()[]{}@*/\\&#%`^+<=>|~$"

// asciiCollation holds collationKey's weights of the ASCII runes, which
// make up nearly every path compared.
var asciiCollation = func() (t [utf8.RuneSelf]int) {
	for r := range rune(utf8.RuneSelf) {
		t[r] = collationWeight(r)
	}
	return t
}()

// collationKey maps a rune to a primary sort weight (see localeCompare).
func collationKey(r rune) int {
	if 0 <= r && r < utf8.RuneSelf {
		return asciiCollation[r]
	}
	return collationWeight(r)
}

// collationWeight computes collationKey.
func collationWeight(r rune) int {
	if i := strings.IndexRune(icuPunctuationOrder, r); i >= 0 {
		return i
	}
	const base = 64
	switch {
	case r >= '0' && r <= '9':
		return base + int(r-'0')
	case r < 0x80 && unicode.IsLetter(r):
		return base + 10 + int(unicode.ToLower(r)-'a')
	case r < 0x80:
		return int(r) // remaining control characters: before everything
	}
	// Non-ASCII: after ASCII letters, case-folded, in code point order.
	return base + 64 + int(unicode.ToLower(r))
}

// ---------------------------------------------------------------------------
// Arguments

// argString returns args[key] when it is a string.
func argString(args map[string]any, key string) (string, bool) {
	s, ok := args[key].(string)
	return s, ok
}

// argNumber returns args[key] when it is a JSON number (float64 after
// decoding; Go integer types are accepted for callers building args by hand).
func argNumber(args map[string]any, key string) (float64, bool) {
	switch v := args[key].(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case int32:
		return float64(v), true
	}
	return 0, false
}

// argBool returns args[key] when it is a boolean.
func argBool(args map[string]any, key string) (bool, bool) {
	b, ok := args[key].(bool)
	return b, ok
}

// argStringList returns the string elements of args[key] when it is an
// array ([]any from JSON, or []string).
func argStringList(args map[string]any, key string) []string {
	switch v := args[key].(type) {
	case []string:
		return v
	case []any:
		out := make([]string, 0, len(v))
		for _, e := range v {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// renameArgs returns a copy of args in which each key of renames that is
// present is also stored under its new name, unless the new name is already
// set. The old key is kept: schemas allow extra properties, and tools use
// its presence to tell which parameter style the model used. args itself is
// never modified.
func renameArgs(args map[string]any, renames map[string]string) map[string]any {
	out := make(map[string]any, len(args)+len(renames))
	for k, v := range args {
		out[k] = v
	}
	for from, to := range renames {
		if v, ok := args[from]; ok {
			if _, set := args[to]; !set {
				out[to] = v
			}
		}
	}
	return out
}
