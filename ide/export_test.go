package ide

import "testing"

// Golden lets the external tests share the golden files' -update flag.
func Golden(t *testing.T, name, got string) {
	t.Helper()
	golden(t, name, got)
}
