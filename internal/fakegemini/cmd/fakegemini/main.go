// Command fakegemini serves a Gemini CLI --fake-responses JSONL script over
// HTTP on 127.0.0.1, for benchmarks and end-to-end runs that need a real
// process to talk to. It prints the base URL on the first line of stdout
// (point GOOGLE_GEMINI_BASE_URL or CODE_ASSIST_ENDPOINT at it) and serves
// until interrupted.
//
//	fakegemini [-port N] [-strict] [-keep N] [-model-version V] script.jsonl
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"strconv"
	"syscall"

	"github.com/castor-dev/castor/internal/fakegemini"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	os.Exit(run(ctx, os.Args[1:], os.Stdout, os.Stderr))
}

// run serves until ctx is done and returns the exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("fakegemini", flag.ContinueOnError)
	fs.SetOutput(stderr)
	port := fs.Int("port", 0, "TCP port on 127.0.0.1 (0 picks a free one)")
	strict := fs.Bool("strict", false, "replay in order and fail calls that do not match the next line")
	keep := fs.Int("keep", 0, "keep only the last N requests in memory (0: all); long benchmark sessions need it")
	modelVersion := fs.String("model-version", fakegemini.DefaultModelVersion, "modelVersion for responses without one")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: fakegemini [flags] script.jsonl")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() != 1 {
		fs.Usage()
		return 2
	}
	replies, err := fakegemini.LoadScript(fs.Arg(0))
	if err != nil {
		fmt.Fprintln(stderr, "fakegemini:", err)
		return 1
	}
	s := fakegemini.New()
	s.SetStrict(*strict)
	s.SetKeep(*keep)
	s.SetModelVersion(*modelVersion)
	s.Enqueue(replies...)
	if err := s.Listen(net.JoinHostPort("127.0.0.1", strconv.Itoa(*port))); err != nil {
		fmt.Fprintln(stderr, "fakegemini:", err)
		return 1
	}
	defer s.Close()
	fmt.Fprintln(stdout, s.URL)

	<-ctx.Done()
	if n := s.Pending(); n > 0 {
		fmt.Fprintf(stderr, "fakegemini: %d scripted replies were never requested\n", n)
	}
	return 0
}
