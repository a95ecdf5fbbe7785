// Command castor is Castor's single binary: a Gemini CLI compatible coding
// agent for the terminal, scripts and CI.
package main

import (
	"os"

	"github.com/castor-dev/castor/internal/cli"
)

func main() {
	os.Exit(cli.Main(os.Args[1:]))
}
