package headless_test

import (
	"bufio"
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/e2etest"
)

// mainStack is the one Castor package whose init runs at every start: it
// grows the main goroutine's stack, and must do so before any package
// that compiles a regular expression at init (internal/stack).
const mainStack = "github.com/castor-dev/castor/internal/stack"

// TestVersionRunsNoCastorInit: a start runs no init code of Castor's own
// packages but internal/stack, and that one before regexp (issue #24).
// Each package with init code costs CPU at every start and faults in a
// window of the binary's text; tables, patterns and values are built on
// first use (internal/lazy) or laid out by the compiler. The runtime's inittrace names every package whose init ran.
func TestVersionRunsNoCastorInit(t *testing.T) {
	t.Parallel()
	if os.Getenv(e2etest.CoverDirEnv) != "" {
		t.Skip("a -cover build gives every package an init that registers its counters")
	}
	cmd := e2etest.Command(t, "--version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("castor --version: %v\n%s", err, stderr.String())
	}
	sc := bufio.NewScanner(&stderr)
	seen := 0
	grown, regexpSeen := false, false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] != "init" {
			continue
		}
		seen++
		pkg := f[1]
		switch pkg {
		case "regexp":
			regexpSeen = true
		case mainStack:
			if regexpSeen {
				t.Errorf("%s initialised after regexp: a stack grown then has been copied deep already", mainStack)
			}
			grown = true
			continue
		}
		if pkg != "github.com/castor-dev/castor" && !strings.HasPrefix(pkg, "github.com/castor-dev/castor/") {
			continue
		}
		t.Errorf("package %s runs init code at every start: %s", pkg, sc.Text())
	}
	if seen == 0 {
		t.Fatalf("no inittrace lines on stderr (GODEBUG ignored?):\n%s", stderr.String())
	}
	if !grown {
		t.Errorf("%s ran no init: cmd/castor no longer imports it?", mainStack)
	}
}
