// Package checkpoint snapshots a project before the agent edits it, so
// that a later restore can roll the files and the conversation back, as
// Gemini CLI's checkpointing does (general.checkpointing.enabled).
//
// Files are committed to a shadow git repository, ~/.gemini/history/<slug>,
// whose work tree is the project: the project's own repository, if any, is
// never touched. Each checkpoint is a JSON file in the project temp
// directory's checkpoints/ holding the conversation, the tool call about
// to run and the commit, in Gemini CLI's format, so checkpoints written by
// either program can be listed and restored by the other.
package checkpoint

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"google.golang.org/genai"
)

// The shadow repository's own identity: commits must never depend on the
// user's git configuration (Gemini CLI 0.25 failed every edit when the user
// had no user.name), nor sign or run hooks.
const (
	authorName  = "Gemini CLI"
	authorEmail = "gemini-cli@google.com"
	gitConfig   = "[user]\n  name = " + authorName + "\n  email = " + authorEmail + "\n[commit]\n  gpgsign = false\n"
)

// RestoredMessage is what Gemini CLI tells the user after a successful
// restore (the A2A restore command's info message).
const RestoredMessage = "Restored project to the state before the tool call."

// Errors Restore and Load report; their texts are Gemini CLI's.
var (
	// ErrGitMissing means no git binary was found: checkpointing is off.
	ErrGitMissing = errors.New("Checkpointing is enabled, but Git is not installed. Please install Git or disable checkpointing to continue.")
	// ErrNotFound wraps a checkpoint name that has no file.
	ErrNotFound = errors.New("checkpoint not found")
	// ErrInvalid means the checkpoint file does not hold a checkpoint.
	ErrInvalid = errors.New("Checkpoint file is invalid or corrupted.")
	// ErrCommitMissing means the snapshot a checkpoint names is gone from
	// the shadow repository.
	ErrCommitMissing = errors.New("checkpoint commit missing")
)

// ToolCall is the call a checkpoint was taken for.
type ToolCall struct {
	Name string         `json:"name"`
	Args map[string]any `json:"args"`
}

// Data is one checkpoint file, Gemini CLI's ToolCallData.
type Data struct {
	// History is Gemini CLI's UI history, kept as found so that its
	// checkpoints survive a round trip; Castor does not write it.
	History json.RawMessage `json:"history,omitempty"`
	// ClientHistory is the conversation sent to the model, up to and
	// including the model turn that made the call.
	ClientHistory []*genai.Content `json:"clientHistory,omitempty"`
	ToolCall      ToolCall         `json:"toolCall"`
	// CommitHash is the shadow repository's snapshot of the files before
	// the call ran.
	CommitHash string `json:"commitHash,omitempty"`
	// MessageID is the id of the prompt whose turn made the call.
	MessageID string `json:"messageId,omitempty"`
}

// HistoryBeforeCall is ClientHistory rewound to before the model turn
// that made the call: restoring a checkpoint undoes the edit, so the
// conversation goes back to the prompt that led to it.
func (d *Data) HistoryBeforeCall() []*genai.Content {
	h := d.ClientHistory
	if n := len(h); n > 0 && h[n-1] != nil && h[n-1].Role == genai.RoleModel {
		for _, p := range h[n-1].Parts {
			if p != nil && p.FunctionCall != nil {
				return h[:n-1]
			}
		}
	}
	return h
}

// Info describes a stored checkpoint. Marshalled, it is Gemini CLI's
// CheckpointInfo ({"messageId","checkpoint"}), the entries of the A2A
// "restore list" answer (which lists only checkpoints with a message id).
type Info struct {
	// Checkpoint is the name to restore: the file name without ".json".
	Checkpoint string `json:"checkpoint"`
	MessageID  string `json:"messageId"`
	// Tool and FilePath tell what the call was about to change.
	Tool     string `json:"-"`
	FilePath string `json:"-"`
	// Commit is the snapshot's hash.
	Commit string `json:"-"`
}

// ForProject returns the service of the project at root, laid out as
// Gemini CLI lays it out: the shadow repository in
// <geminiDir>/history/<slug> and checkpoint files in
// <projectTempDir>/checkpoints, where the slug is the project temp
// directory's name.
func ForProject(geminiDir, projectTempDir, root string) *Service {
	return &Service{
		ProjectRoot: root,
		HistoryDir:  filepath.Join(geminiDir, "history", filepath.Base(projectTempDir)),
		Dir:         filepath.Join(projectTempDir, "checkpoints"),
	}
}

// Service keeps the checkpoints of one project. Its methods are safe for
// concurrent use.
type Service struct {
	// ProjectRoot is the directory snapshotted (the shadow work tree).
	ProjectRoot string
	// HistoryDir is the shadow repository, ~/.gemini/history/<slug>.
	HistoryDir string
	// Dir holds the checkpoint files, <project temp dir>/checkpoints.
	Dir string
	// Git is the git binary; "" looks it up on PATH.
	Git string
	// Warn receives the problems Checkpoint does not return; nil drops
	// them.
	Warn func(string)
	// Now is the clock for checkpoint names (tests); nil is time.Now.
	Now func() time.Time

	mu      sync.Mutex
	ready   bool
	gitWarn bool
}

// Checkpoint snapshots the project and records call with the conversation
// so far, for the engine to run before an edit. It never fails the edit:
// problems go to Warn (a missing git only once) and the name is "" when no
// checkpoint was written.
func (s *Service) Checkpoint(ctx context.Context, call ToolCall, history []*genai.Content, messageID string) string {
	name, err := s.Save(ctx, call, history, messageID)
	if err != nil {
		s.mu.Lock()
		quiet := errors.Is(err, ErrGitMissing) && s.gitWarn
		if errors.Is(err, ErrGitMissing) {
			s.gitWarn = true
		}
		s.mu.Unlock()
		if !quiet && s.Warn != nil {
			s.Warn("checkpointing: " + err.Error())
		}
	}
	return name
}

// Save snapshots the project and writes the checkpoint file for call. It
// returns the checkpoint's name. A call without a file_path argument is
// not restorable and is refused, as Gemini CLI skips it.
func (s *Service) Save(ctx context.Context, call ToolCall, history []*genai.Content, messageID string) (string, error) {
	filePath, _ := call.Args["file_path"].(string)
	if filePath == "" {
		return "", fmt.Errorf("skipping restorable tool call due to missing file_path: %s", call.Name)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.init(ctx); err != nil {
		return "", err
	}
	hash, err := s.snapshot(ctx, "Snapshot for "+call.Name)
	if err != nil {
		// An unchanged tree still has a usable HEAD; Gemini CLI falls back
		// to it the same way.
		if hash, _ = s.head(ctx); hash == "" {
			return "", err
		}
	}
	args := call.Args
	if args == nil {
		args = map[string]any{}
	}
	data := Data{
		ClientHistory: history,
		ToolCall:      ToolCall{Name: call.Name, Args: args},
		CommitHash:    hash,
		MessageID:     messageID,
	}
	// JSON.stringify(data, null, 2), as Gemini CLI writes it: no HTML
	// escaping of "<" and friends, no trailing newline.
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(data); err != nil {
		return "", err
	}
	b := bytes.TrimSuffix(buf.Bytes(), []byte("\n"))
	if err := os.MkdirAll(s.Dir, 0o700); err != nil {
		return "", err
	}
	base := s.fileName(call.Name, filePath)
	// Two edits of one file in the same millisecond must not overwrite
	// each other's checkpoint.
	name := base
	for i := 2; ; i++ {
		f, err := os.OpenFile(filepath.Join(s.Dir, name+".json"), os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			name = fmt.Sprintf("%s-%d", base, i)
			continue
		}
		if err != nil {
			return "", err
		}
		_, werr := f.Write(b)
		if cerr := f.Close(); werr == nil {
			werr = cerr
		}
		if werr != nil {
			os.Remove(f.Name())
			return "", werr
		}
		return name, nil
	}
}

// Time is when the checkpoint was taken, to the millisecond, read from
// its name (fileName); ok is false for a name that does not start with a
// time.
func (i Info) Time() (t time.Time, ok bool) {
	const layout = "2006-01-02T15-04-05_000Z" // fileName's, fraction included
	if len(i.Checkpoint) < len(layout) {
		return time.Time{}, false
	}
	name := []byte(i.Checkpoint[:len(layout)])
	name[19] = '.' // Go parses a fraction only after '.' or ','
	t, err := time.Parse("2006-01-02T15-04-05.000Z", string(name))
	return t, err == nil
}

// fileName is Gemini CLI's checkpoint name: the ISO time with ':' and '.'
// made file-safe, the edited file's base name and the tool,
// "2025-06-01T10-20-30_456Z-main.go-replace".
func (s *Service) fileName(toolName, filePath string) string {
	now := time.Now
	if s.Now != nil {
		now = s.Now
	}
	t := now().UTC()
	// JavaScript's toISOString with ':' → '-' and '.' → '_'; Go layouts
	// only know fractions after '.' or ','.
	ts := fmt.Sprintf("%s_%03dZ", t.Format("2006-01-02T15-04-05"), t.Nanosecond()/1e6)
	base := filepath.Base(filepath.FromSlash(filePath))
	return ts + "-" + base + "-" + toolName
}

// List returns the stored checkpoints, oldest first (names start with
// their time). Unreadable files are listed by name only.
func (s *Service) List() ([]Info, error) {
	entries, err := os.ReadDir(s.Dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []Info
	for _, e := range entries {
		if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") {
			continue
		}
		info := Info{Checkpoint: strings.TrimSuffix(e.Name(), ".json")}
		if d, err := s.Load(info.Checkpoint); err == nil {
			info.MessageID = d.MessageID
			info.Tool = d.ToolCall.Name
			info.FilePath, _ = d.ToolCall.Args["file_path"].(string)
			info.Commit = d.CommitHash
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Checkpoint < out[j].Checkpoint })
	return out, nil
}

// Load reads the checkpoint called name (".json" optional). A missing one
// is ErrNotFound, an unparsable one ErrInvalid.
func (s *Service) Load(name string) (*Data, error) {
	file := name
	if !strings.HasSuffix(file, ".json") {
		file += ".json"
	}
	// A name is a file in Dir, never a path: "../x" must not read
	// elsewhere.
	if file != filepath.Base(file) || strings.ContainsAny(file, `/\`) || file == ".json" {
		return nil, fmt.Errorf("%w: File not found: %s", ErrNotFound, file)
	}
	b, err := os.ReadFile(filepath.Join(s.Dir, file))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("%w: File not found: %s", ErrNotFound, file)
	}
	if err != nil {
		return nil, err
	}
	return Parse(b)
}

// Parse decodes a checkpoint file, checking what Gemini CLI's schema
// requires: a tool call with a name and an argument object.
func Parse(b []byte) (*Data, error) {
	var raw struct {
		ToolCall *struct {
			Name *string        `json:"name"`
			Args map[string]any `json:"args"`
		} `json:"toolCall"`
	}
	if err := json.Unmarshal(b, &raw); err != nil || raw.ToolCall == nil || raw.ToolCall.Name == nil || raw.ToolCall.Args == nil {
		return nil, ErrInvalid
	}
	var d Data
	if err := json.Unmarshal(b, &d); err != nil {
		return nil, ErrInvalid
	}
	if len(d.History) > 0 && d.History[0] != '[' {
		return nil, ErrInvalid
	}
	return &d, nil
}

// Restore rolls the project's files back to the checkpoint's snapshot
// (files created since are removed; ignored files are left alone) and
// returns the checkpoint, whose ClientHistory is the conversation to
// resume and ToolCall the call to offer again.
func (s *Service) Restore(ctx context.Context, name string) (*Data, error) {
	d, err := s.Load(name)
	if err != nil {
		return nil, err
	}
	if d.CommitHash == "" {
		return d, nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.init(ctx); err != nil {
		return nil, err
	}
	// The index is restored too (Gemini CLI restores the work tree only):
	// otherwise a file deleted after this snapshot and before a later one
	// would be brought back and then removed again by the clean below.
	if _, err := s.git(ctx, true, "restore", "--source", d.CommitHash, "--staged", "--worktree", "."); err != nil {
		if msg := err.Error(); strings.Contains(msg, "unable to read tree") || strings.Contains(msg, "not a tree") ||
			strings.Contains(msg, "invalid reference") || strings.Contains(msg, "bad revision") {
			return nil, fmt.Errorf("%w: The commit hash '%s' associated with this checkpoint could not be found in your Git repository. This can happen if the repository has been re-cloned, reset, or if old commits have been garbage collected. This checkpoint cannot be restored.", ErrCommitMissing, d.CommitHash)
		}
		return nil, err
	}
	if _, err := s.git(ctx, true, "clean", "-f", "-d"); err != nil {
		return nil, err
	}
	return d, nil
}

// init creates the shadow repository once: its private git config, an
// empty system config, the repository with an empty first commit on main,
// and a copy of the project's .gitignore. Called with s.mu held.
func (s *Service) init(ctx context.Context) error {
	if s.ready {
		return nil
	}
	if s.Git == "" {
		p, err := exec.LookPath("git")
		if err != nil {
			return ErrGitMissing
		}
		s.Git = p
	} else if _, err := exec.LookPath(s.Git); err != nil {
		return ErrGitMissing
	}
	if err := os.MkdirAll(s.HistoryDir, 0o700); err != nil {
		return s.initError(err)
	}
	if err := os.WriteFile(filepath.Join(s.HistoryDir, ".gitconfig"), []byte(gitConfig), 0o600); err != nil {
		return s.initError(err)
	}
	if err := os.WriteFile(filepath.Join(s.HistoryDir, ".gitconfig_system_empty"), nil, 0o600); err != nil {
		return s.initError(err)
	}
	if _, err := os.Stat(filepath.Join(s.HistoryDir, ".git", "HEAD")); err != nil {
		if _, err := s.git(ctx, false, "init", "--quiet", "--initial-branch", "main"); err != nil {
			// git before 2.28 has no --initial-branch.
			if _, err := s.git(ctx, false, "init", "--quiet"); err != nil {
				return s.initError(err)
			}
			if _, err := s.git(ctx, false, "symbolic-ref", "HEAD", "refs/heads/main"); err != nil {
				return s.initError(err)
			}
		}
		if _, err := s.git(ctx, false, "commit", "--quiet", "--allow-empty", "--no-verify", "-m", "Initial commit"); err != nil {
			return s.initError(err)
		}
	}
	// When the project holds Castor's own directories (a session started
	// in the home directory), snapshots must not swallow the shadow
	// repository and the checkpoints themselves; and whatever the
	// project's .gitignore forgets, secrets never go into a snapshot (a
	// copy under ~/.gemini outlives the file the user deletes).
	exclude := slices.Clone(secretPatterns)
	for _, d := range []string{s.HistoryDir, s.Dir} {
		if rel, err := filepath.Rel(s.ProjectRoot, d); err == nil && rel != "." && !strings.HasPrefix(rel, "..") {
			exclude = append(exclude, "/"+filepath.ToSlash(rel)+"/")
		}
	}
	info := filepath.Join(s.HistoryDir, ".git", "info")
	if err := os.MkdirAll(info, 0o700); err != nil {
		return s.initError(err)
	}
	if err := os.WriteFile(filepath.Join(info, "exclude"), []byte(strings.Join(exclude, "\n")+"\n"), 0o600); err != nil {
		return s.initError(err)
	}
	// A shadow repository from an older version may already hold such
	// files; excluding them now does not untrack them.
	if tracked, err := s.git(ctx, true, "ls-files", "-z", "--cached", "--ignored", "--exclude-standard"); err == nil && tracked != "" {
		for batch := range slices.Chunk(strings.Split(strings.TrimRight(tracked, "\x00"), "\x00"), 500) {
			args := append([]string{"rm", "--cached", "--quiet", "--ignore-unmatch", "--"}, batch...)
			if _, err := s.git(ctx, true, args...); err != nil {
				return s.initError(err)
			}
		}
		if _, err := s.git(ctx, true, "commit", "--quiet", "--no-verify", "-m", "Forget ignored files"); err != nil {
			return s.initError(err)
		}
	}
	ignore, err := os.ReadFile(filepath.Join(s.ProjectRoot, ".gitignore"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return s.initError(err)
	}
	if err := os.WriteFile(filepath.Join(s.HistoryDir, ".gitignore"), ignore, 0o600); err != nil {
		return s.initError(err)
	}
	s.ready = true
	return nil
}

// secretPatterns are the files no snapshot holds, whatever the project's
// .gitignore says: dotenv files, private keys, .netrc and credential
// JSONs (gitignore syntax, matched at any depth).
var secretPatterns = []string{
	".env",
	".env.*",
	"*.pem",
	"*.key",
	"id_rsa*",
	"id_ed25519*",
	".netrc",
	"*credentials*.json",
	"service-account*.json",
}

func (s *Service) initError(err error) error {
	return fmt.Errorf("Failed to initialize checkpointing: %v. Please check that Git is working properly or disable checkpointing.", err)
}

// snapshot stages the whole work tree and commits it when anything
// changed; it returns the commit that holds the tree as it is now.
func (s *Service) snapshot(ctx context.Context, message string) (string, error) {
	fail := func(err error) (string, error) {
		return "", fmt.Errorf("Failed to create checkpoint snapshot: %v. Checkpointing may not be working properly.", err)
	}
	if _, err := s.git(ctx, true, "add", "--all", "."); err != nil {
		return fail(err)
	}
	status, err := s.git(ctx, true, "status", "--porcelain")
	if err != nil {
		return fail(err)
	}
	if strings.TrimSpace(status) != "" {
		if _, err := s.git(ctx, true, "commit", "--quiet", "--no-verify", "-m", message); err != nil {
			return fail(err)
		}
	}
	h, err := s.head(ctx)
	if err != nil {
		return fail(err)
	}
	return h, nil
}

// head returns the shadow repository's current commit.
func (s *Service) head(ctx context.Context) (string, error) {
	out, err := s.git(ctx, true, "rev-parse", "HEAD")
	return strings.TrimSpace(out), err
}

// git runs git on the shadow repository; worktree makes the project its
// work tree (snapshots, restores), otherwise git runs in the repository
// itself (setup). The environment is scrubbed of the caller's GIT_*
// variables and points git at the repository's own configuration.
func (s *Service) git(ctx context.Context, worktree bool, args ...string) (string, error) {
	full := append([]string{
		"-c", "user.name=" + authorName,
		"-c", "user.email=" + authorEmail,
		"-c", "commit.gpgsign=false",
		"-c", "core.quotepath=off",
		// A project owned by another user must not make git refuse the
		// snapshot; the shadow repository is ours.
		"-c", "safe.directory=*",
	}, args...)
	cmd := exec.CommandContext(ctx, s.Git, full...)
	env := make([]string, 0, len(os.Environ())+8)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "GIT_") {
			env = append(env, kv)
		}
	}
	env = append(env,
		"GIT_CONFIG_GLOBAL="+filepath.Join(s.HistoryDir, ".gitconfig"),
		"GIT_CONFIG_SYSTEM="+filepath.Join(s.HistoryDir, ".gitconfig_system_empty"),
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME="+authorName, "GIT_AUTHOR_EMAIL="+authorEmail,
		"GIT_COMMITTER_NAME="+authorName, "GIT_COMMITTER_EMAIL="+authorEmail,
		"GIT_TERMINAL_PROMPT=0",
	)
	if worktree {
		env = append(env, "GIT_DIR="+filepath.Join(s.HistoryDir, ".git"), "GIT_WORK_TREE="+s.ProjectRoot)
		cmd.Dir = s.ProjectRoot
	} else {
		cmd.Dir = s.HistoryDir
	}
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		msg := strings.TrimSpace(stderr.String())
		if msg == "" {
			msg = err.Error()
		}
		return stdout.String(), fmt.Errorf("git %s: %s", args[0], msg)
	}
	return stdout.String(), nil
}
