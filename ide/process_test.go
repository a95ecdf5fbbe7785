package ide

import (
	"errors"
	"os"
	"runtime"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// table is a fake process table.
type table map[int]procInfo

func (tb table) lookup(pid int) (procInfo, error) {
	if p, ok := tb[pid]; ok {
		return p, nil
	}
	return procInfo{}, errors.New("no such process")
}

func TestFindIDEProcessUnix(t *testing.T) {
	tests := []struct {
		name      string
		tb        table
		wantPID   int
		wantAnces []int
	}{
		{
			// castor → zsh → VS Code pty host → VS Code
			name: "vs code terminal",
			tb: table{
				500: {ppid: 400, name: "castor"},
				400: {ppid: 300, name: "zsh"},
				300: {ppid: 200, name: "code-ptyhost"},
				200: {ppid: 1, name: "code"},
			},
			wantPID:   200,
			wantAnces: []int{400, 300, 200},
		},
		{
			// castor → node wrapper → -bash (login shell) → tmux
			name: "login shell",
			tb: table{
				500: {ppid: 450, name: "node"},
				450: {ppid: 400, name: "node"},
				400: {ppid: 300, name: "bash"},
				300: {ppid: 1, name: "tmux"},
			},
			// The shell's parent has no grandparent above init: keep it.
			wantPID:   300,
			wantAnces: []int{450, 400, 300},
		},
		{
			// castor → go → bash, whose parent exited: the shell was
			// re-parented to init. Like Gemini CLI, the shell's parent (1)
			// is taken; the ancestor list stops below init.
			name: "shell re-parented to init",
			tb: table{
				500: {ppid: 400, name: "castor"},
				400: {ppid: 300, name: "go"},
				300: {ppid: 1, name: "bash"},
			},
			wantPID:   1,
			wantAnces: []int{400, 300},
		},
		{
			name: "no shell: the farthest ancestor",
			tb: table{
				500: {ppid: 400, name: "castor"},
				400: {ppid: 300, name: "runner"},
				300: {ppid: 1, name: "systemd-user"},
			},
			wantPID:   300,
			wantAnces: []int{400, 300},
		},
		{
			name:      "vanished parent",
			tb:        table{500: {ppid: 400, name: "castor"}},
			wantPID:   400,
			wantAnces: []int{400},
		},
	}
	if usesSnapshotWalk {
		t.Skip("Windows walks a snapshot")
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pid, anc := findIDEProcess(500, tt.tb.lookup)
			if pid != tt.wantPID {
				t.Errorf("IDE pid = %d, want %d", pid, tt.wantPID)
			}
			if diff := cmp.Diff(tt.wantAnces, anc); diff != "" {
				t.Errorf("ancestors (-want +got):\n%s", diff)
			}
		})
	}
}

func TestSnapshotWalk(t *testing.T) {
	tests := []struct {
		name string
		tb   table
		want int
	}{
		{"great-grandchild of the root", table{
			50: {ppid: 40}, 40: {ppid: 30}, 30: {ppid: 20}, 20: {ppid: 10}, 10: {ppid: 0},
		}, 30},
		{"short chain: the top", table{50: {ppid: 40}, 40: {ppid: 0}}, 40},
		{"parent missing from the snapshot", table{50: {ppid: 999}}, 50},
		{"cycle", table{50: {ppid: 40}, 40: {ppid: 50}}, 40},
	}
	for _, tt := range tests {
		if got, _ := snapshotWalk(50, tt.tb.lookup); got != tt.want {
			t.Errorf("%s: %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestFindIDEProcessReal(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("walks /proc or ps")
	}
	pid, anc := FindIDEProcess()
	if pid <= 0 {
		t.Fatalf("pid %d", pid)
	}
	if len(anc) > 0 && anc[0] != os.Getppid() {
		t.Errorf("nearest ancestor %d, want the parent %d", anc[0], os.Getppid())
	}
	// The answer is this process, one of its ancestors, or init (pid 1):
	// a shell whose parent exited is re-parented to init, and the walk
	// then takes init as the shell's parent, while the ancestor list,
	// which only ranks discovery files, stops below init.
	if !slices.Contains(anc, pid) && pid != os.Getpid() && pid != 1 {
		t.Errorf("IDE pid %d is not an ancestor (%v)", pid, anc)
	}
}

func TestParsePS(t *testing.T) {
	tests := []struct {
		out  string
		want procInfo
		ok   bool
	}{
		{"  123 /bin/zsh -l\n", procInfo{ppid: 123, name: "zsh", command: "/bin/zsh -l"}, true},
		{"1 -bash", procInfo{ppid: 1, name: "bash", command: "-bash"}, true},
		{"x /usr/bin/code --type=pty", procInfo{ppid: 1, name: "code", command: "/usr/bin/code --type=pty"}, true},
		{"", procInfo{}, false},
	}
	for _, tt := range tests {
		got, ok := parsePS(tt.out)
		if ok != tt.ok || got != tt.want {
			t.Errorf("parsePS(%q) = %+v %v", tt.out, got, ok)
		}
	}
}

func TestParseProcStat(t *testing.T) {
	tests := []struct {
		stat string
		ppid int
		comm string
		ok   bool
	}{
		{"1234 (zsh) S 1200 1234 1234 34816", 1200, "zsh", true},
		{"1234 (my (odd) prog) R 77 1 1", 77, "my (odd) prog", true},
		{"1234 zsh S 1200", 0, "", false},
		{"1234 (zsh)", 0, "", false},
		{"1234 (zsh) S x", 0, "", false},
	}
	for _, tt := range tests {
		ppid, comm, ok := parseProcStat(tt.stat)
		if ppid != tt.ppid || comm != tt.comm || ok != tt.ok {
			t.Errorf("parseProcStat(%q) = %d %q %v", tt.stat, ppid, comm, ok)
		}
	}
}

func FuzzParseProcStat(f *testing.F) {
	f.Add("1234 (zsh) S 1200 1234")
	f.Add(") ( 1 2")
	f.Fuzz(func(t *testing.T, s string) {
		if ppid, _, ok := parseProcStat(s); ok && ppid < 0 {
			t.Fatalf("ppid %d", ppid)
		}
		parsePS(s)
	})
}
