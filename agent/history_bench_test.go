package agent

import (
	"fmt"
	"strings"
	"testing"

	"google.golang.org/genai"
)

// streamedParts is an answer of size bytes as a model streams it: one
// text part per 1 KiB chunk.
func streamedParts(size int) []*genai.Part {
	const chunk = 1024
	piece := strings.Repeat("x", chunk-1) + "\n"
	parts := make([]*genai.Part, 0, size/chunk)
	for n := 0; n < size; n += chunk {
		parts = append(parts, genai.NewPartFromText(piece))
	}
	return parts
}

// BenchmarkCurateStreamedText measures merging a long streamed answer into
// the history's content; the cost must grow linearly with the answer
// (16 MiB ≈ 16 × 1 MiB), not with its square.
//
//	go test ./agent -run '^$' -bench BenchmarkCurateStreamedText -benchmem
func BenchmarkCurateStreamedText(b *testing.B) {
	for _, mib := range []int{1, 16} {
		parts := streamedParts(mib << 20)
		b.Run(fmt.Sprintf("%dMiB", mib), func(b *testing.B) {
			b.SetBytes(int64(mib << 20))
			for b.Loop() {
				if c := curateModelContent(parts); c == nil || len(c.Parts) != 1 {
					b.Fatal("text parts were not merged into one")
				}
			}
		})
	}
}

// TestCurateMergesStreamedTextByteForByte checks that merging keeps every
// byte of every chunk in order, and that runs broken by a function call or
// a signed part stay apart.
func TestCurateMergesStreamedTextByteForByte(t *testing.T) {
	call := &genai.Part{FunctionCall: &genai.FunctionCall{Name: "f"}}
	signed := &genai.Part{Text: "S", ThoughtSignature: []byte("sig")}
	tests := []struct {
		name  string
		parts []*genai.Part
		want  []string
	}{
		{"one run", []*genai.Part{{Text: "a"}, {Text: "é"}, {Text: "\x00b"}}, []string{"a" + "é" + "\x00b"}},
		{"empty parts skipped", []*genai.Part{{Text: "a"}, {Text: ""}, {Text: "b"}}, []string{"ab"}},
		{"call splits runs", []*genai.Part{{Text: "a"}, {Text: "b"}, call, {Text: "c"}, {Text: "d"}}, []string{"ab", "", "cd"}},
		{"signed part starts a run", []*genai.Part{{Text: "a"}, signed, {Text: "b"}}, []string{"a", "Sb"}},
		{"thought does not split", []*genai.Part{{Text: "a"}, {Text: "t", Thought: true}, {Text: "b"}}, []string{"ab"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := curateModelContent(tt.parts)
			var got []string
			for _, p := range c.Parts {
				got = append(got, p.Text)
			}
			if fmt.Sprintf("%q", got) != fmt.Sprintf("%q", tt.want) {
				t.Errorf("merged %q, want %q", got, tt.want)
			}
		})
	}
	// A long answer: the merge is the chunks joined, byte for byte.
	parts := streamedParts(1 << 20)
	parts[7] = genai.NewPartFromText("\u2028ü\xff")
	var want strings.Builder
	for _, p := range parts {
		want.WriteString(p.Text)
	}
	c := curateModelContent(parts)
	if len(c.Parts) != 1 || c.Parts[0].Text != want.String() {
		t.Fatalf("merged answer differs from the streamed chunks")
	}
	if parts[0].Text != strings.Repeat("x", 1023)+"\n" {
		t.Fatalf("merging changed the streamed part it started from")
	}
}
