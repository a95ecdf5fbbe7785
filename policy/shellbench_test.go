package policy

import "testing"

// BenchmarkDecideShell measures one decision on a shell line under a
// policy file that denies rm and allows git status, in yolo mode: the
// cost every shell call pays before it runs.
func BenchmarkDecideShell(b *testing.B) {
	src := "[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"rm\"\ndecision = \"deny\"\npriority = 100\n" +
		"[[rule]]\ntoolName = \"run_shell_command\"\ncommandPrefix = \"git status\"\ndecision = \"allow\"\npriority = 100\n"
	rs, errs := ParseRules("bench.toml", []byte(src), TierUser)
	if len(errs) > 0 {
		b.Fatal(errs)
	}
	e := New(Options{Mode: ModeYolo, Rules: rs})
	for _, cmd := range []string{
		"git status",
		"go test ./... && git diff --stat | tail -n 3",
		`bash -lc 'cd sub && \rm -f "$(ls)"'`,
	} {
		c := shellCall(cmd)
		b.Run(cmd[:min(len(cmd), 12)], func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				e.Decide(c)
			}
		})
	}
}
