package ide

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// writeFile writes a discovery file named for pid and port.
func writeFile(t *testing.T, dir string, pid, port int, content string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, DiscoveryFileName(pid, port)), []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func fileJSON(port int, workspace, token string) string {
	b, _ := json.Marshal(map[string]any{"port": port, "workspacePath": workspace, "authToken": token})
	return string(b)
}

func TestDiscover(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "project")
	other := filepath.Join(root, "other")
	sub := filepath.Join(ws, "pkg", "sub")
	for _, d := range []string{sub, other} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	list := func(paths ...string) string { return strings.Join(paths, string(os.PathListSeparator)) }

	type file struct {
		pid, port int
		content   string
	}
	tests := []struct {
		name      string
		files     []file
		legacy    string // content of gemini-ide-server-<idePID>.json
		env       map[string]string
		cwd       string
		alive     []int
		ancestors []int
		// wantPort is the selected file's port (0: none selected).
		wantPort  int
		wantOrder []int // ports of the candidates in order
		wantToken string
	}{
		{
			name:     "no files",
			cwd:      ws,
			wantPort: 0,
		},
		{
			name:      "one matching file",
			files:     []file{{100, 5001, fileJSON(5001, ws, "t1")}},
			cwd:       sub,
			wantPort:  5001,
			wantOrder: []int{5001},
			wantToken: "t1",
		},
		{
			name: "the IDE's own file first, then ancestors, then running IDEs, then newest",
			files: []file{
				{7, 5007, fileJSON(5007, ws, "dead-old")},
				{9, 5009, fileJSON(5009, ws, "dead-new")},
				{50, 5050, fileJSON(5050, ws, "alive")},
				{60, 5060, fileJSON(5060, ws, "ancestor")},
				{100, 5100, fileJSON(5100, ws, "mine")},
			},
			cwd:       ws,
			alive:     []int{50},
			ancestors: []int{60},
			wantPort:  5100,
			wantOrder: []int{5100, 5060, 5050, 5009, 5007},
			wantToken: "mine",
		},
		{
			name: "several windows on one workspace: the port variable breaks the tie",
			files: []file{
				{100, 5001, fileJSON(5001, ws, "w1")},
				{100, 5002, fileJSON(5002, ws, "w2")},
				{100, 5003, fileJSON(5003, ws, "w3")},
			},
			env:       map[string]string{EnvServerPort: "5002"},
			cwd:       ws,
			wantPort:  5002,
			wantOrder: []int{5001, 5002, 5003},
			wantToken: "w2",
		},
		{
			name: "several windows, no variable: the first in order",
			files: []file{
				{100, 5002, fileJSON(5002, ws, "w2")},
				{100, 5001, fileJSON(5001, ws, "w1")},
			},
			cwd:       ws,
			wantPort:  5001,
			wantOrder: []int{5001, 5002},
			wantToken: "w1",
		},
		{
			name: "only the workspace that holds the directory counts",
			files: []file{
				{100, 5001, fileJSON(5001, other, "other")},
				{50, 5002, fileJSON(5002, list(other, ws), "multi-root")},
			},
			cwd:       sub,
			wantPort:  5002,
			wantOrder: []int{5001, 5002},
			wantToken: "multi-root",
		},
		{
			name:      "no workspace matches: the best file is still selected, to explain",
			files:     []file{{100, 5001, fileJSON(5001, other, "other")}},
			cwd:       ws,
			wantPort:  5001,
			wantOrder: []int{5001},
			wantToken: "other",
		},
		{
			name: "unusable files are skipped",
			files: []file{
				{100, 5001, `not json`},
				{100, 5002, `[1,2]`},
				{90, 5003, fileJSON(5003, ws, "good")},
			},
			cwd:       ws,
			wantPort:  5003,
			wantOrder: []int{0, 0, 5003},
			wantToken: "good",
		},
		{
			name:      "a legacy file of the IDE wins",
			files:     []file{{100, 5001, fileJSON(5001, ws, "new")}},
			legacy:    fileJSON(4000, ws, "legacy"),
			cwd:       ws,
			wantPort:  4000,
			wantOrder: []int{4000, 5001},
			wantToken: "legacy",
		},
		{
			name:      "port as a string, token from the environment",
			files:     []file{{100, 5001, `{"port":"5001","workspacePath":"` + filepath.ToSlash(ws) + `"}`}},
			env:       map[string]string{EnvAuthToken: "from-env"},
			cwd:       ws,
			wantPort:  5001,
			wantOrder: []int{5001},
			wantToken: "from-env",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tmp := t.TempDir()
			dir := DiscoveryDir(tmp)
			for _, f := range tt.files {
				writeFile(t, dir, f.pid, f.port, f.content)
			}
			if tt.legacy != "" {
				os.MkdirAll(dir, 0o755)
				os.WriteFile(filepath.Join(dir, "gemini-ide-server-100.json"), []byte(tt.legacy), 0o600)
			}
			// Unrelated files are ignored.
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, "gemini-ide-server-x-1.json"), []byte("{}"), 0o600)
			os.WriteFile(filepath.Join(dir, ".castor-companion-123"), []byte("{}"), 0o600)

			d := Discover(DiscoverOptions{
				WorkDir:   tt.cwd,
				TempDir:   tmp,
				Getenv:    func(k string) string { return tt.env[k] },
				IDEPID:    100,
				Ancestors: append([]int{}, tt.ancestors...),
				Alive: func(pid int) bool {
					for _, a := range tt.alive {
						if a == pid {
							return true
						}
					}
					return false
				},
			})
			var order []int
			for _, c := range d.Candidates {
				p := 0
				if c.File != nil {
					p = int(c.File.Port)
				}
				order = append(order, p)
			}
			if diff := cmp.Diff(tt.wantOrder, order); diff != "" {
				t.Errorf("candidate order (-want +got):\n%s", diff)
			}
			if tt.wantPort == 0 {
				if d.Selected != nil {
					t.Errorf("selected %s", d.Selected.Name)
				}
				return
			}
			if d.Selected == nil || d.Port != tt.wantPort || d.AuthToken != tt.wantToken {
				t.Errorf("selected port %d token %q, want %d %q", d.Port, d.AuthToken, tt.wantPort, tt.wantToken)
			}
		})
	}
}

func TestDiscoverEnvironmentOnly(t *testing.T) {
	ws := t.TempDir()
	env := map[string]string{EnvServerPort: "6000", EnvWorkspacePath: ws, EnvAuthToken: "tok"}
	d := Discover(DiscoverOptions{WorkDir: ws, TempDir: t.TempDir(), IDEPID: 1, Ancestors: []int{}, Getenv: func(k string) string { return env[k] }})
	if d.Selected != nil || d.EnvPort != 6000 || d.AuthToken != "tok" || d.WorkspacePath == nil || *d.WorkspacePath != ws {
		t.Errorf("discovery = %+v", d)
	}
	if err := CheckWorkspace(d.WorkspacePath, ws); err != nil {
		t.Error(err)
	}
}

func TestDiscoverSkipsOtherUsersFiles(t *testing.T) {
	if runtime.GOOS == "windows" || os.Getuid() != 0 {
		t.Skip("needs root to give a file to another user")
	}
	tmp := t.TempDir()
	dir := DiscoveryDir(tmp)
	writeFile(t, dir, 100, 5001, fileJSON(5001, tmp, "planted"))
	if err := os.Chown(filepath.Join(dir, DiscoveryFileName(100, 5001)), 12345, 12345); err != nil {
		t.Skip(err)
	}
	d := Discover(DiscoverOptions{WorkDir: tmp, TempDir: tmp, IDEPID: 100, Ancestors: []int{}})
	if d.Selected != nil || len(d.Candidates) != 1 || d.Candidates[0].Err == nil || !strings.Contains(d.Candidates[0].Err.Error(), "another user") {
		t.Errorf("a planted file was used: %+v", d.Candidates[0])
	}
}

func TestCheckWorkspace(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.MkdirAll(filepath.Join(ws, "a"), 0o755)
	link := filepath.Join(root, "link")
	symlinks := os.Symlink(ws, link) == nil
	s := func(v string) *string { return &v }
	tests := []struct {
		name     string
		path     *string
		cwd      string
		wantKind string
	}{
		{"inside", s(ws), filepath.Join(ws, "a"), ""},
		{"the root itself", s(ws), ws, ""},
		{"sibling with a common prefix", s(ws), ws + "2", "mismatch"},
		{"parent", s(ws), root, "mismatch"},
		{"second root", s(root + "/x" + string(os.PathListSeparator) + ws), ws, ""},
		{"missing", nil, ws, "missing"},
		{"no folder open", s(""), ws, "empty"},
	}
	if symlinks {
		tests = append(tests, struct {
			name     string
			path     *string
			cwd      string
			wantKind string
		}{"through a symlink", s(link), filepath.Join(ws, "a"), ""})
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := CheckWorkspace(tt.path, tt.cwd)
			var we *WorkspaceError
			switch {
			case tt.wantKind == "" && err != nil:
				t.Errorf("unexpected %v", err)
			case tt.wantKind != "" && (!errors.As(err, &we) || we.Kind != tt.wantKind):
				t.Errorf("err = %v, want %s", err, tt.wantKind)
			}
		})
	}
}

func TestParseDiscoveryFile(t *testing.T) {
	tests := []struct {
		in      string
		want    *DiscoveryFile
		wantErr bool
	}{
		{`{"port":123,"workspacePath":"/w","authToken":"t","ideInfo":{"name":"vscode","displayName":"VS Code"}}`,
			&DiscoveryFile{Port: 123, WorkspacePath: ptr("/w"), AuthToken: "t", IDEInfo: &IDEInfo{"vscode", "VS Code"}}, false},
		{`{"port":"8080"}`, &DiscoveryFile{Port: 8080}, false},
		{`{"port":70000}`, &DiscoveryFile{}, false},
		{`{"port":"abc","workspacePath":""}`, &DiscoveryFile{WorkspacePath: ptr("")}, false},
		{`{"port":1,"extra":{"stdio":{"command":"x"}}}`, &DiscoveryFile{Port: 1}, false},
		{`null`, nil, true},
		{`"str"`, nil, true},
		{`{"workspacePath":5}`, nil, true},
		{``, nil, true},
	}
	for _, tt := range tests {
		got, err := ParseDiscoveryFile([]byte(tt.in))
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v", tt.in, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
	}
}

// FuzzParseDiscoveryFile: any file in the shared temp directory must be
// read without panicking, and a port it yields is a valid one.
func FuzzParseDiscoveryFile(f *testing.F) {
	f.Add([]byte(`{"port":123,"workspacePath":"/w","authToken":"t"}`))
	f.Add([]byte(`{"port":"123","ideInfo":{"name":"x","displayName":"X"}}`))
	f.Add([]byte(`{"port":-1e400}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		df, err := ParseDiscoveryFile(data)
		if err != nil {
			return
		}
		if df.Port < 0 || df.Port > 65535 {
			t.Fatalf("port %d", df.Port)
		}
		_ = CheckWorkspace(df.WorkspacePath, "/")
	})
}
