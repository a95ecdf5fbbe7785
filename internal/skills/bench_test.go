package skills

import (
	"fmt"
	"path/filepath"
	"testing"
)

// BenchmarkDiscover measures discovering 100 user skills, which every
// session start pays.
func BenchmarkDiscover(b *testing.B) {
	home := b.TempDir()
	for i := range 100 {
		name := fmt.Sprintf("skill-%03d", i)
		p := filepath.Join(home, ".gemini", "skills", name, "SKILL.md")
		write(b, p, skillFile(name, "Does thing "+name+".", "Instructions for "+name+".\n"))
	}
	for b.Loop() {
		set, _ := Discover(Sources{Home: home})
		if len(set.All()) != 100 {
			b.Fatal(len(set.All()))
		}
	}
}
