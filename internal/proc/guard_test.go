package proc

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"strings"
	"testing"

	"github.com/castor-dev/castor/internal/modsource"
)

// groupNames are the identifiers of process group, session and job object
// handling: SysProcAttr fields (Setpgid, Pgid, Setsid, Pdeathsig), the
// calls that name a group (Killpg, Getpgid, Setpgid, Getpgrp), Windows'
// CREATE_NEW_PROCESS_GROUP flag. Identifiers naming a job object are
// matched by substring (jobNames).
var groupNames = map[string]bool{
	"Setpgid": true, "Pgid": true, "Setsid": true, "Pdeathsig": true,
	"Killpg": true, "Getpgid": true, "Getpgrp": true,
	"CREATE_NEW_PROCESS_GROUP": true,
}

var jobNames = []string{"JobObject", "JOBOBJECT", "JOB_OBJECT"}

// TestOneProcessGroupImplementation fails when process groups or job
// objects are handled anywhere but here, so that every runner of user
// commands keeps stopping what it starts the one way. It parses every
// non-test .go file of the module (nested modules such as bench/a2aload,
// testdata and hidden directories aside) outside internal/proc and
// reports: an identifier in groupNames or naming a job object (jobNames),
// and a call to a function named Kill (syscall.Kill, unix.Kill) whose pid
// is negative (-pgid) or 0 (the caller's own group). Test files are
// allowed to check what a runner left behind.
func TestOneProcessGroupImplementation(t *testing.T) {
	var found []string
	modsource.Files(t, false, func(rel string) bool { return rel == "internal/proc" }, func(path, rel string) {
		found = append(found, groupHandling(t, path, rel)...)
	})
	for _, f := range found {
		t.Errorf("%s: process groups and job objects belong to internal/proc", f)
	}
}

// groupHandling lists where the file at path handles process groups or
// job objects, as "rel:line: what".
func groupHandling(t *testing.T, path, rel string) []string {
	t.Helper()
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatalf("%s: %v", rel, err)
	}
	var found []string
	report := func(n ast.Node, what string) {
		found = append(found, rel+":"+strconv.Itoa(fset.Position(n.Pos()).Line)+": "+what)
	}
	ast.Inspect(f, func(n ast.Node) bool {
		switch n := n.(type) {
		case *ast.Ident:
			if groupNames[n.Name] {
				report(n, n.Name)
			}
			for _, j := range jobNames {
				if strings.Contains(n.Name, j) {
					report(n, n.Name)
					break
				}
			}
		case *ast.CallExpr:
			if killsGroup(n) {
				report(n, "Kill of a process group")
			}
		}
		return true
	})
	return found
}

// killsGroup reports whether call is Kill(-pid, …) or Kill(0, …), which
// signal a whole process group.
func killsGroup(call *ast.CallExpr) bool {
	var name string
	switch fn := call.Fun.(type) {
	case *ast.SelectorExpr:
		name = fn.Sel.Name
	case *ast.Ident:
		name = fn.Name
	}
	if name != "Kill" || len(call.Args) != 2 {
		return false
	}
	switch a := call.Args[0].(type) {
	case *ast.UnaryExpr:
		return a.Op == token.SUB
	case *ast.BasicLit:
		return a.Value == "0"
	}
	return false
}
