package builtin

import (
	"strings"
	"testing"
)

func TestDetectFileType(t *testing.T) {
	dir := fsTempDir(t)
	tests := []struct {
		name    string
		content string
		want    fileType
	}{
		{"main.go", "package main\n", fileText},
		{"app.ts", "let x = 1\n", fileText}, // not video/mp2t
		{"logo.svg", "<svg/>", fileSVG},
		{"pic.png", "\x89PNG\r\n\x1a\n\x00\x00", fileImage},
		{"doc.pdf", "%PDF-1.4", filePDF},
		{"song.mp3", "ID3\x03\x00\x00\x00", fileAudio},
		{"lyrics.mp3", "just text, not audio\n", fileText},
		{"clip.mp4", "\x00\x00\x00\x18ftypmp42", fileVideo},
		{"lib.so", "anything", fileBinary},
		{"blob.dat2", "ab\x00cd", fileBinary},
		{"controls.txt", strings.Repeat("\x01\x02\x03", 10) + "ab", fileBinary},
		{"utf16.txt", "\xff\xfeh\x00i\x00", fileText},
		{"empty.bin2", "", fileText},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := fsWrite(t, dir, tt.name, tt.content)
			if got := detectFileType(p); got != tt.want {
				t.Errorf("detectFileType = %s, want %s", got, tt.want)
			}
		})
	}
}
