// Command castor is Castor's single binary: a Gemini CLI compatible coding
// agent for the terminal, scripts and CI.
package main

import (
	"os"

	"github.com/castor-dev/castor/internal/cli"
	// Grows the main goroutine's stack before other packages' init runs
	// and turns off heap sampling: fewer stack unwindings, less of the
	// binary faulted in at every start.
	_ "github.com/castor-dev/castor/internal/stack"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
