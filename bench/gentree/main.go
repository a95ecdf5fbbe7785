// Command gentree writes a tree of many small text files for the search
// benchmarks (bench/startup.sh): files spread over directories of a fixed
// size, every line made of common words, one line in every few files
// holding the word the benchmark searches for, and a second word only in
// the last tenth of the tree, where a search in path order comes last. The content depends only on
// the flags, so two runs write the same tree.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
)

func main() {
	dir := flag.String("dir", "", "directory to write (created)")
	files := flag.Int("files", 200000, "number of files")
	perDir := flag.Int("per-dir", 500, "files per directory")
	lines := flag.Int("lines", 20, "lines per file")
	every := flag.Int("every", 3, "one file in every N holds a match")
	word := flag.String("word", "needle", "the word searched for, spread over the whole tree")
	late := flag.String("late-word", "haystack", "a second word, only in the last tenth of the tree (in path order)")
	flag.Parse()
	if *dir == "" || *perDir < 1 || *every < 1 {
		log.Fatal("gentree: -dir is required; -per-dir and -every must be positive")
	}
	words := []string{"alpha", "beta", "gamma", "delta", "return", "value", "error", "context", "buffer", "string"}
	for i := range *files {
		d := filepath.Join(*dir, fmt.Sprintf("d%04d", i / *perDir))
		if i%*perDir == 0 {
			if err := os.MkdirAll(d, 0o755); err != nil {
				log.Fatal(err)
			}
		}
		f, err := os.Create(filepath.Join(d, fmt.Sprintf("f%06d.txt", i)))
		if err != nil {
			log.Fatal(err)
		}
		w := bufio.NewWriter(f)
		for l := range *lines {
			if i%*every == 0 && l == (i / *every)%*lines {
				fmt.Fprintf(w, "line %d has the %s in it\n", l, *word)
				continue
			}
			if i >= *files*9/10 && i%*every == 1 && l == 0 {
				fmt.Fprintf(w, "a %s line\n", *late)
				continue
			}
			fmt.Fprintf(w, "%s %s %s %d\n", words[(i+l)%len(words)], words[(i*7+l)%len(words)], words[l%len(words)], i*l)
		}
		if err := w.Flush(); err != nil {
			log.Fatal(err)
		}
		if err := f.Close(); err != nil {
			log.Fatal(err)
		}
	}
}
