package ide

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// Environment variables the CLI side reads, as Gemini CLI names them.
const (
	EnvServerPort    = "GEMINI_CLI_IDE_SERVER_PORT"
	EnvWorkspacePath = "GEMINI_CLI_IDE_WORKSPACE_PATH"
	EnvAuthToken     = "GEMINI_CLI_IDE_AUTH_TOKEN"
	EnvIDEPID        = "GEMINI_CLI_IDE_PID"
)

// maxDiscoveryFileSize bounds what is read from a discovery file: they are
// a few hundred bytes, and the directory is shared with other users.
const maxDiscoveryFileSize = 1 << 20

// DiscoveryDir is where companions write discovery files:
// <tempDir>/gemini/ide.
func DiscoveryDir(tempDir string) string {
	return filepath.Join(tempDir, "gemini", "ide")
}

// DiscoveryFileName is the name of the discovery file of the companion of
// the IDE process pid listening on port.
func DiscoveryFileName(pid, port int) string {
	return fmt.Sprintf("gemini-ide-server-%d-%d.json", pid, port)
}

// discoveryFileRe is Gemini CLI's IDE_SERVER_FILE_REGEX.
var discoveryFileRe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^gemini-ide-server-(\d+)-\d+\.json$`) }}

// IDEInfo names the IDE.
type IDEInfo struct {
	// Name is short and lowercase ("vscode"); DisplayName is for people
	// ("VS Code").
	Name        string `json:"name"`
	DisplayName string `json:"displayName"`
}

// DiscoveryFile is the content of a discovery file.
type DiscoveryFile struct {
	// Port is the companion's port; files written by JavaScript may hold
	// it as a string.
	Port Port `json:"port"`
	// WorkspacePath lists the open workspace roots, separated by the OS's
	// path-list separator; nil when the file has none.
	WorkspacePath *string `json:"workspacePath,omitempty"`
	// AuthToken is sent as "Authorization: Bearer <token>".
	AuthToken string `json:"authToken,omitempty"`
	// IDEInfo is optional: the VS Code companion does not write it.
	IDEInfo *IDEInfo `json:"ideInfo,omitempty"`
}

// Port is a TCP port that unmarshals from a JSON number or string.
type Port int

// UnmarshalJSON accepts 1234 and "1234"; anything else leaves the port
// unset (0), as Gemini CLI's parseInt does, rather than failing the file.
func (p *Port) UnmarshalJSON(b []byte) error {
	*p = 0
	s := string(bytes.TrimSpace(b))
	if uq, err := strconv.Unquote(s); err == nil {
		s = uq
	}
	if n, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && n > 0 && n <= 65535 {
		*p = Port(n)
	}
	return nil
}

// ParseDiscoveryFile decodes a discovery file. Unknown fields are
// ignored; the object must be a JSON object.
func ParseDiscoveryFile(data []byte) (*DiscoveryFile, error) {
	var f DiscoveryFile
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, fmt.Errorf("not a discovery file: %w", err)
	}
	if t := bytes.TrimSpace(data); len(t) == 0 || t[0] != '{' {
		return nil, errors.New("not a discovery file: not a JSON object")
	}
	return &f, nil
}

// Candidate is one discovery file found in DiscoveryDir.
type Candidate struct {
	// Path is the file's path; Name its base name.
	Path, Name string
	// PID is the IDE process id in the name.
	PID int
	// File is the decoded content; nil when Err is set.
	File *DiscoveryFile
	// Err says why the file cannot be used (unreadable, owned by another
	// user, not JSON).
	Err error
	// Legacy marks a gemini-ide-server-<pid>.json file of old companions.
	Legacy bool
}

// WorkspaceError says why a workspace does not match; it is nil when the
// working directory lies inside one of the file's workspace roots.
func (c *Candidate) WorkspaceError(cwd string) error {
	if c.File == nil {
		return c.Err
	}
	return CheckWorkspace(c.File.WorkspacePath, cwd)
}

// Discovery is what Discover found: every candidate file (best first) and
// the connection settings to use.
type Discovery struct {
	// Dir is the directory searched.
	Dir string
	// IDEPID is the IDE process the CLI runs in, and PIDSource how it was
	// found ("GEMINI_CLI_IDE_PID" or "process tree").
	IDEPID    int
	PIDSource string
	// Ancestors are the CLI's ancestor processes, nearest first.
	Ancestors []int
	// Candidates are the files found, in Gemini CLI's preference order.
	Candidates []*Candidate
	// Selected is the file chosen, nil when none was usable.
	Selected *Candidate

	// Port, AuthToken and WorkspacePath are what the connection uses: the
	// selected file's values with the environment variables as fallbacks.
	Port          int
	AuthToken     string
	WorkspacePath *string
	// EnvPort is GEMINI_CLI_IDE_SERVER_PORT, tried when Port fails.
	EnvPort int
	// IDEInfo is the file's ideInfo, else what the environment suggests.
	IDEInfo IDEInfo

	// fallbacks select, in order, the other files whose workspace fits.
	fallbacks []*Discovery
}

// DiscoverOptions configures Discover. Zero values mean the real process
// environment.
type DiscoverOptions struct {
	// WorkDir is the CLI's working directory.
	WorkDir string
	// TempDir replaces os.TempDir.
	TempDir string
	// Getenv replaces os.Getenv.
	Getenv func(string) string
	// IDEPID skips the process-tree walk.
	IDEPID int
	// Ancestors replaces the CLI's ancestor processes (tests).
	Ancestors []int
	// Alive replaces the liveness check of IDE processes (tests).
	Alive func(pid int) bool
}

func (o *DiscoverOptions) getenv(k string) string {
	if o.Getenv != nil {
		return o.Getenv(k)
	}
	return os.Getenv(k)
}

// Discover finds the companion the CLI should talk to, as Gemini CLI's
// getConnectionConfigFromFile does: the legacy file of the IDE's PID if
// there is one; otherwise every gemini-ide-server-<pid>-<port>.json file
// owned by the user, the IDE's own first, then those of running IDEs,
// then the newest PIDs; among the files whose workspace holds the working
// directory, GEMINI_CLI_IDE_SERVER_PORT breaks ties. When no workspace
// matches, the best file is still selected so that the connection fails
// with the precise reason. Castor adds one rule: after the IDE's own PID,
// files of any ancestor process come first, so that editors whose process
// tree differs from VS Code's (a terminal inside Neovim) are found too.
func Discover(o DiscoverOptions) *Discovery {
	tmp := o.TempDir
	if tmp == "" {
		tmp = os.TempDir()
	}
	d := &Discovery{Dir: DiscoveryDir(tmp)}
	d.IDEPID, d.PIDSource, d.Ancestors = o.IDEPID, "option", o.Ancestors
	if d.IDEPID == 0 {
		if v, err := strconv.Atoi(o.getenv(EnvIDEPID)); err == nil && v > 0 {
			d.IDEPID, d.PIDSource = v, EnvIDEPID
		}
	}
	if d.IDEPID == 0 || d.Ancestors == nil {
		pid, anc := FindIDEProcess()
		if d.IDEPID == 0 {
			d.IDEPID, d.PIDSource = pid, "process tree"
		}
		if d.Ancestors == nil {
			d.Ancestors = anc
		}
	}
	alive := o.Alive
	if alive == nil {
		alive = pidAlive
	}
	d.EnvPort = parsePort(o.getenv(EnvServerPort))

	d.Candidates = scanDir(d.Dir, d.IDEPID, d.Ancestors, alive)
	d.Selected = selectCandidate(d.Candidates, o.WorkDir, d.EnvPort)

	d.use(o, d.Selected)
	// The other files of the workspace, for when the selected one is
	// stale: a companion that crashed leaves its file behind, and the one
	// restarted in the same IDE writes another with the same PID.
	for _, c := range d.Candidates {
		if c == d.Selected || c.File == nil || c.Legacy || CheckWorkspace(c.File.WorkspacePath, o.WorkDir) != nil {
			continue
		}
		alt := *d
		alt.fallbacks = nil
		alt.use(o, c)
		d.fallbacks = append(d.fallbacks, &alt)
	}
	return d
}

// use makes c the selected file: the connection takes its port, token,
// workspace and IDE, with the environment variables as fallbacks.
func (d *Discovery) use(o DiscoverOptions, c *Candidate) {
	d.Selected = c
	d.Port, d.AuthToken, d.WorkspacePath, d.IDEInfo = 0, "", nil, IDEInfo{}
	var f *DiscoveryFile
	if c != nil {
		f = c.File
	}
	if f != nil {
		d.Port, d.AuthToken, d.WorkspacePath = int(f.Port), f.AuthToken, f.WorkspacePath
		if f.IDEInfo != nil && f.IDEInfo.Name != "" && f.IDEInfo.DisplayName != "" {
			d.IDEInfo = *f.IDEInfo
		}
	}
	if d.AuthToken == "" {
		d.AuthToken = o.getenv(EnvAuthToken)
	}
	if d.WorkspacePath == nil {
		if v, ok := lookupEnv(o, EnvWorkspacePath); ok {
			d.WorkspacePath = &v
		}
	}
	if d.IDEInfo.Name == "" {
		d.IDEInfo = detectIDE(o.getenv)
	}
}

// lookupEnv tells an empty GEMINI_CLI_IDE_WORKSPACE_PATH (no folder open)
// from a missing one.
func lookupEnv(o DiscoverOptions, k string) (string, bool) {
	if o.Getenv != nil {
		v := o.Getenv(k)
		return v, v != ""
	}
	return os.LookupEnv(k)
}

func parsePort(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n <= 0 || n > 65535 {
		return 0
	}
	return n
}

// scanDir reads the candidate files in dir, best first.
func scanDir(dir string, idePID int, ancestors []int, alive func(int) bool) []*Candidate {
	var out []*Candidate
	legacy := filepath.Join(dir, fmt.Sprintf("gemini-ide-server-%d.json", idePID))
	if c := readCandidate(legacy); c.Err == nil {
		c.PID, c.Legacy = idePID, true
		out = append(out, c)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return out
	}
	var files []*Candidate
	for _, e := range entries {
		m := discoveryFileRe.Get().FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		c := readCandidate(filepath.Join(dir, e.Name()))
		c.PID, _ = strconv.Atoi(m[1])
		files = append(files, c)
	}
	rank := func(c *Candidate) int {
		switch {
		case c.PID == idePID:
			return 0
		case slices.Contains(ancestors, c.PID):
			return 1
		case alive(c.PID):
			return 2
		}
		return 3
	}
	slices.SortStableFunc(files, func(a, b *Candidate) int {
		if ra, rb := rank(a), rank(b); ra != rb {
			return ra - rb
		}
		if a.PID != b.PID {
			return b.PID - a.PID
		}
		return strings.Compare(a.Name, b.Name)
	})
	return append(out, files...)
}

func readCandidate(path string) *Candidate {
	c := &Candidate{Path: path, Name: filepath.Base(path)}
	f, err := os.Open(path)
	if err != nil {
		c.Err = err
		return c
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		c.Err = err
		return c
	}
	if !ownedByUser(fi) {
		// Anyone can write to the temp directory: a file planted by another
		// user would send our requests, and the user's code, elsewhere.
		c.Err = errors.New("owned by another user")
		return c
	}
	data, err := io.ReadAll(io.LimitReader(f, maxDiscoveryFileSize))
	if err != nil {
		c.Err = err
		return c
	}
	c.File, c.Err = ParseDiscoveryFile(data)
	return c
}

// selectCandidate applies Gemini CLI's choice among the candidates.
func selectCandidate(cands []*Candidate, cwd string, envPort int) *Candidate {
	if len(cands) > 0 && cands[0].Legacy {
		return cands[0]
	}
	var parsed, valid []*Candidate
	for _, c := range cands {
		if c.File == nil {
			continue
		}
		parsed = append(parsed, c)
		if CheckWorkspace(c.File.WorkspacePath, cwd) == nil {
			valid = append(valid, c)
		}
	}
	pick := valid
	if len(pick) == 0 {
		pick = parsed
	}
	if len(pick) == 0 {
		return nil
	}
	if envPort != 0 {
		for _, c := range pick {
			if int(c.File.Port) == envPort {
				return c
			}
		}
	}
	return pick[0]
}

// WorkspaceError is why the working directory does not fit a companion's
// workspace.
type WorkspaceError struct {
	// Kind is "missing" (no workspace in the file), "empty" (no folder
	// open in the IDE) or "mismatch".
	Kind string
	// Roots are the IDE's workspace roots; Cwd the CLI's directory.
	Roots []string
	Cwd   string
}

// Error says what does not match and where to run instead.
func (e *WorkspaceError) Error() string {
	switch e.Kind {
	case "missing":
		return "the discovery file names no workspace"
	case "empty":
		return "no folder is open in the IDE: open the project folder in the IDE and try again"
	}
	return fmt.Sprintf("directory mismatch: Castor runs in %s, but the IDE has %s open; run Castor inside %s",
		e.Cwd, strings.Join(e.Roots, ", "), plural(len(e.Roots), "that folder", "one of those folders"))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// CheckWorkspace reports whether cwd lies inside one of the roots in
// workspacePath (a path list), comparing real paths as Gemini CLI does.
func CheckWorkspace(workspacePath *string, cwd string) error {
	if workspacePath == nil {
		return &WorkspaceError{Kind: "missing", Cwd: cwd}
	}
	if *workspacePath == "" {
		return &WorkspaceError{Kind: "empty", Cwd: cwd}
	}
	realCwd := realPath(cwd)
	var roots []string
	for _, r := range filepath.SplitList(*workspacePath) {
		if r == "" {
			continue
		}
		r = realPath(r)
		roots = append(roots, r)
		if isSubpath(r, realCwd) {
			return nil
		}
	}
	return &WorkspaceError{Kind: "mismatch", Roots: roots, Cwd: realCwd}
}

// realPath resolves symlinks, keeping the path as it is when that fails.
func realPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// isSubpath reports whether child is parent or inside it; like Gemini CLI
// it ignores case on macOS and Windows.
func isSubpath(parent, child string) bool {
	if runtime.GOOS == "darwin" || runtime.GOOS == "windows" {
		parent, child = strings.ToLower(parent), strings.ToLower(child)
	}
	rel, err := filepath.Rel(parent, child)
	if err != nil {
		return false
	}
	return rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// detectIDE names the IDE from the terminal's environment when the
// discovery file does not, like Gemini CLI's detectIdeFromEnv (without
// refusing unknown editors: any editor may run a companion).
func detectIDE(getenv func(string) string) IDEInfo {
	switch {
	case getenv("ANTIGRAVITY_CLI_ALIAS") != "":
		return IDEInfo{"antigravity", "Antigravity"}
	case getenv("CURSOR_TRACE_ID") != "":
		return IDEInfo{"cursor", "Cursor"}
	case getenv("CODESPACES") != "":
		return IDEInfo{"codespaces", "GitHub Codespaces"}
	case getenv("TERM_PRODUCT") == "Trae":
		return IDEInfo{"trae", "Trae"}
	case getenv("POSITRON") == "1":
		return IDEInfo{"positron", "Positron"}
	case getenv("TERM_PROGRAM") == "sublime":
		return IDEInfo{"sublimetext", "Sublime Text"}
	case getenv("ZED_SESSION_ID") != "" || getenv("TERM_PROGRAM") == "Zed":
		return IDEInfo{"zed", "Zed"}
	case strings.Contains(strings.ToLower(getenv("TERMINAL_EMULATOR")), "jetbrains"):
		return IDEInfo{"jetbrains", "JetBrains IDE"}
	case getenv("NVIM") != "":
		return IDEInfo{"neovim", "Neovim"}
	case getenv("INSIDE_EMACS") != "":
		return IDEInfo{"emacs", "Emacs"}
	case getenv("TERM_PROGRAM") == "vscode":
		return IDEInfo{"vscode", "VS Code"}
	}
	return IDEInfo{"ide", "IDE"}
}
