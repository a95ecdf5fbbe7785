// Command castor is Castor's single binary: a Gemini CLI compatible coding
// agent for the terminal, scripts and CI.
package main

import (
	"os"

	"github.com/castor-dev/castor/internal/cli"
	"github.com/castor-dev/castor/internal/sandbox"
)

func main() {
	// A sandboxed command's re-exec of Castor: confine, then exec the
	// command (internal/sandbox). Nothing else of Castor runs there.
	if sandbox.Main(os.Args) {
		return
	}
	os.Exit(cli.Main(os.Args[1:]))
}
