package ide

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// maxTraversalDepth bounds the walk up the process tree (Gemini CLI's
// MAX_TRAVERSAL_DEPTH).
const maxTraversalDepth = 32

// shells are the programs whose grandparent is taken to be the IDE.
var shells = []string{"zsh", "bash", "sh", "tcsh", "csh", "ksh", "fish", "dash"}

// procInfo is what the walk needs to know about a process.
type procInfo struct {
	ppid    int
	name    string // executable base name
	command string // full command line
}

// FindIDEProcess returns the PID of the IDE the CLI runs in, and the CLI's
// ancestors, nearest first. Like Gemini CLI it walks up from the CLI to
// the first shell and takes that shell's grandparent (the shell's parent
// is usually a terminal helper such as VS Code's pty host); without a
// shell it takes the farthest ancestor reached. On Windows it takes the
// third process from the root of the tree.
func FindIDEProcess() (pid int, ancestors []int) {
	return findIDEProcess(os.Getpid(), lookupProcess)
}

// findIDEProcess is FindIDEProcess over any process table.
func findIDEProcess(self int, lookup func(int) (procInfo, error)) (int, []int) {
	if usesSnapshotWalk {
		return snapshotWalk(self, lookup)
	}
	var ancestors []int
	cur := self
	for range maxTraversalDepth {
		info, err := lookup(cur)
		if err != nil {
			break
		}
		if slices.Contains(shells, info.name) {
			ide := info.ppid
			if gp, err := lookup(info.ppid); err == nil && gp.ppid > 1 {
				ide = gp.ppid
			}
			return ide, appendAncestors(ancestors, info.ppid, lookup)
		}
		if info.ppid <= 1 {
			break
		}
		ancestors = append(ancestors, info.ppid)
		cur = info.ppid
	}
	return cur, ancestors
}

// appendAncestors completes the ancestor list from pid up.
func appendAncestors(ancestors []int, pid int, lookup func(int) (procInfo, error)) []int {
	for range maxTraversalDepth {
		if pid <= 1 || slices.Contains(ancestors, pid) {
			break
		}
		ancestors = append(ancestors, pid)
		info, err := lookup(pid)
		if err != nil {
			break
		}
		pid = info.ppid
	}
	return ancestors
}

// snapshotWalk is Gemini CLI's Windows strategy: list the ancestors up to
// the root and take the great-grandchild of the root.
func snapshotWalk(self int, lookup func(int) (procInfo, error)) (int, []int) {
	chain := []int{self}
	cur := self
	for range maxTraversalDepth {
		info, err := lookup(cur)
		if err != nil || info.ppid == 0 || slices.Contains(chain, info.ppid) {
			break
		}
		if _, err := lookup(info.ppid); err != nil {
			break
		}
		chain = append(chain, info.ppid)
		cur = info.ppid
	}
	ancestors := chain[1:]
	if len(chain) >= 3 {
		return chain[len(chain)-3], ancestors
	}
	return chain[len(chain)-1], ancestors
}

// commandName is the program name of a command line, as the walk compares
// it with the shells: the base name of the first word, without the dash
// that marks a login shell.
func commandName(command string) string {
	f := strings.Fields(command)
	if len(f) == 0 {
		return ""
	}
	return strings.TrimPrefix(filepath.Base(f[0]), "-")
}

// parsePS reads the output of `ps -o ppid=,command= -p PID`.
func parsePS(out string) (procInfo, bool) {
	out = strings.TrimSpace(out)
	if out == "" {
		return procInfo{}, false
	}
	ppidStr, rest, _ := strings.Cut(out, " ")
	ppid, err := strconv.Atoi(strings.TrimSpace(ppidStr))
	if err != nil {
		// Gemini CLI treats an unreadable parent as the root.
		ppid = 1
	}
	rest = strings.TrimSpace(rest)
	return procInfo{ppid: ppid, name: commandName(rest), command: rest}, true
}

// parseProcStat reads the parent PID and the executable name from the
// content of /proc/PID/stat ("pid (comm) state ppid ..."); comm may hold
// spaces and parentheses, so it ends at the last ')'.
func parseProcStat(stat string) (ppid int, comm string, ok bool) {
	open := strings.IndexByte(stat, '(')
	end := strings.LastIndexByte(stat, ')')
	if open < 0 || end < open {
		return 0, "", false
	}
	comm = stat[open+1 : end]
	fields := strings.Fields(stat[end+1:])
	if len(fields) < 2 {
		return 0, "", false
	}
	ppid, err := strconv.Atoi(fields[1])
	if err != nil || ppid < 0 {
		return 0, "", false
	}
	return ppid, comm, true
}
