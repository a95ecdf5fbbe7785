package builtin

// File types and MIME types, decided as Gemini CLI decides them: by
// extension first, then by looking at the content.

import (
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

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
var mimeTypes = lazy.Value[map[string]string]{New: func() map[string]string {
	return map[string]string{
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
}}

// mimeTypeForPath returns the MIME type of path by its extension, or ""
// when unknown.
func mimeTypeForPath(path string) string {
	return mimeTypes.Get()[strings.ToLower(filepath.Ext(path))]
}

// binaryExtensions are extensions treated as binary without looking at the
// content (Gemini CLI's BINARY_EXTENSIONS from ignorePatterns.ts).
var binaryExtensions = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{
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
}}

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
	if binaryExtensions.Get()[ext] || binary() {
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
