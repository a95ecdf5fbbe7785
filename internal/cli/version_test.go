package cli

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/version"
)

// TestVersionFlag checks that --version and -v print the version line
// alone, whatever else is on the command line, as cobra's own flag did
// before Castor took it over (cobra's goes through text/template).
func TestVersionFlag(t *testing.T) {
	for _, args := range [][]string{
		{"--version"},
		{"-v"},
		{"--version", "-p", "hello"},
		{"-v", "--output-format", "json"},
	} {
		var out, errOut bytes.Buffer
		code := Run(context.Background(), args, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
		if code != ExitOK || out.String() != version.Long()+"\n" || errOut.Len() != 0 {
			t.Errorf("castor %q: exit %d, stdout %q, stderr %q; want 0 and %q", args, code, out.String(), errOut.String(), version.Long()+"\n")
		}
	}
}
