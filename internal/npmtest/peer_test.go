package npmtest

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestMissing runs this test binary again as a child with and without
// CI=true and checks that a missing peer skips outside CI and fails in it.
func TestMissing(t *testing.T) {
	if os.Getenv("NPMTEST_CHILD") == "1" {
		LookPath(t, "castor-no-such-program")
		t.Fatal("LookPath returned for a missing program")
	}
	tests := []struct {
		ci       string
		wantFail bool
		want     string
	}{
		{"", false, "SKIP: TestMissing"},
		{"false", false, "SKIP: TestMissing"},
		{"true", true, "CI=true: .ci/run installs it"},
	}
	for _, tt := range tests {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMissing$", "-test.v")
		cmd.Env = append(os.Environ(), "NPMTEST_CHILD=1", "CI="+tt.ci)
		out, err := cmd.CombinedOutput()
		if failed := err != nil; failed != tt.wantFail {
			t.Errorf("CI=%q: failed %v, want %v\n%s", tt.ci, failed, tt.wantFail, out)
		}
		if !strings.Contains(string(out), tt.want) {
			t.Errorf("CI=%q: output lacks %q:\n%s", tt.ci, tt.want, out)
		}
		if !strings.Contains(string(out), "castor-no-such-program is not on PATH") {
			t.Errorf("CI=%q: output lacks the reason:\n%s", tt.ci, out)
		}
	}
}
