package chats

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/lazy"
)

// sessionFilePrefix starts the name of every main-agent session file.
const sessionFilePrefix = "session-"

// Store is one project's chats directory.
type Store struct {
	dir         string
	projectHash string
	// now, newID and readFile are replaced by tests.
	now      func() time.Time
	newID    func() string
	readFile func(string) ([]byte, error)
}

// NewStore returns the store for a chats directory. projectHash is written
// into new sessions; see ProjectHash.
func NewStore(chatsDir, projectHash string) *Store {
	return &Store{dir: chatsDir, projectHash: projectHash, now: time.Now, newID: uuid.NewString, readFile: os.ReadFile}
}

// load reads and parses a session file (LoadFile through s.readFile).
func (s *Store) load(path string) (*Conversation, error) {
	data, err := s.readFile(path)
	if err != nil {
		return nil, err
	}
	return parseFile(path, data)
}

// OpenStore returns the store of a project, allocating the project's temp
// directory in geminiHome (normally ~/.gemini) if needed.
func OpenStore(geminiHome, projectRoot string) (*Store, error) {
	dir, err := ProjectTempDir(geminiHome, projectRoot)
	if err != nil {
		return nil, err
	}
	return NewStore(filepath.Join(dir, "chats"), ProjectHash(projectRoot)), nil
}

// Dir is the chats directory.
func (s *Store) Dir() string { return s.dir }

// CreateOptions tune a new session.
type CreateOptions struct {
	// Kind is "main" (the default) or "subagent". Subagent sessions are
	// named after their id alone and never listed.
	Kind string
	// ParentSessionID files a subagent session under its parent's directory.
	ParentSessionID string
	// Directories are the workspace directories; Gemini CLI records them in
	// the header of subagent sessions only.
	Directories []string
}

// sanitizeFilenamePart matches Gemini CLI, so both name a session's files
// the same way: each character but [a-zA-Z0-9_-] becomes "_" (a byte
// that is not UTF-8 too, as Go's regexp reads it). A loop, not the
// regexp: its backtracker allocated 37 KB on every session's start.
func sanitizeFilenamePart(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if r < utf8.RuneSelf && (r == '_' || r == '-' || '0' <= r && r <= '9' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z') {
			b.WriteRune(r)
		} else {
			b.WriteByte('_')
		}
	}
	return b.String()
}

// Create starts a new session. Its file, named now, is written with its
// header on the first record, so that a session closed before any
// message (an editor's session/new, empty input, a terminal opened and
// closed) leaves no header-only file that listings hide and retention
// never deletes. An empty sessionID is replaced by a new UUID.
func (s *Store) Create(sessionID string, opts CreateOptions) (*Recorder, error) {
	if sessionID == "" {
		sessionID = s.newID()
	}
	safe := sanitizeFilenamePart(sessionID)
	if safe == "" || sessionID == "." || sessionID == ".." {
		return nil, fmt.Errorf("chats: invalid session id %q", sessionID)
	}
	kind := opts.Kind
	if kind == "" {
		kind = "main"
	}
	now := s.now()
	dir := s.dir
	var name string
	if kind == "subagent" {
		if opts.ParentSessionID != "" {
			parent := sanitizeFilenamePart(opts.ParentSessionID)
			if parent == "" {
				return nil, fmt.Errorf("chats: invalid parent session id %q", opts.ParentSessionID)
			}
			dir = filepath.Join(dir, parent)
		}
		name = safe + ".jsonl"
	} else {
		// The minute-resolution UTC stamp is toISOString().slice(0, 16) with
		// colons made filename-safe.
		stamp := strings.ReplaceAll(now.UTC().Format("2006-01-02T15:04"), ":", "-")
		name = sessionFilePrefix + stamp + "-" + safe[:min(8, len(safe))] + ".jsonl"
	}
	path := filepath.Join(dir, name)
	// A main session's file is named after the first 8 characters of its
	// id, as Gemini CLI names it; ids chosen by people (--session-id
	// ci-job-42, ci-job-43) often share those, and two sessions started
	// in one minute would want the same file. The later one is then named
	// after its whole id (Gemini CLI lists and resumes files by the id
	// inside them, whatever their name).
	alt := ""
	if kind != "subagent" && len(safe) > 8 {
		alt = filepath.Join(dir, strings.TrimSuffix(name, safe[:8]+".jsonl")+safe+".jsonl")
	}
	// The file is made on the first record (see Recorder.append), so a
	// session that never gets a prompt leaves nothing behind. A name clash
	// is still reported here when both names are already on disk, and by
	// O_EXCL at the first record.
	if _, err := os.Lstat(path); err == nil {
		if alt == "" || sessionIDOf(path) == sessionID {
			return nil, &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
		}
		path, alt = alt, ""
		if _, err := os.Lstat(path); err == nil {
			return nil, &fs.PathError{Op: "create", Path: path, Err: fs.ErrExist}
		}
	}
	conv := Conversation{
		SessionID:   sessionID,
		ProjectHash: s.projectHash,
		StartTime:   now,
		LastUpdated: now,
		Kind:        kind,
	}
	hdr := header{
		SessionID:   sessionID,
		ProjectHash: s.projectHash,
		StartTime:   formatTime(now),
		LastUpdated: formatTime(now),
		Kind:        kind,
	}
	if kind == "subagent" {
		conv.Directories = slices.Clone(opts.Directories)
		hdr.Directories = conv.Directories
	}
	line, err := marshalNoEscape(hdr)
	if err != nil {
		return nil, err
	}
	r := newRecorder(nil, path, conv, s.now, s.newID)
	r.pending = [][]byte{line}
	r.alt = alt
	return r, nil
}

// header is the first line of a session file, in Gemini CLI's key order.
type header struct {
	SessionID   string   `json:"sessionId"`
	ProjectHash string   `json:"projectHash"`
	StartTime   string   `json:"startTime"`
	LastUpdated string   `json:"lastUpdated"`
	Kind        string   `json:"kind,omitempty"`
	Directories []string `json:"directories,omitempty"`
	Summary     string   `json:"summary,omitempty"`
}

// Info describes a listed session.
type Info struct {
	// conv is the file as the listing parsed it, handed along by Resolve
	// so that resuming reads the file once; nil in List's results, whose
	// callers need no more than the listing.
	conv *Conversation
	// ID is the full session id.
	ID string
	// Path is the session file; FileName its base name.
	Path     string
	FileName string
	// Index is the 1-based number --list-sessions shows and --resume takes.
	Index       int
	StartTime   time.Time
	LastUpdated time.Time
	// MessageCount counts the session's messages of every type, each once
	// (Gemini CLI's listing also counts re-appended copies).
	MessageCount int
	// FirstUserMessage is the first real user message, cleaned for a
	// one-line display ("Empty conversation" if there is none).
	FirstUserMessage string
	// Summary is the generated summary, if any.
	Summary string
	// DisplayName is what listings show: the summary if there is one,
	// otherwise FirstUserMessage.
	DisplayName string
}

// List returns the project's resumable sessions as Gemini CLI lists them:
// files named session-*.json[l] that parse, are not subagent sessions and
// hold at least one real exchange; one per session id (the most recently
// updated copy); oldest start first, numbered from 1. A missing directory
// is an empty list.
func (s *Store) List() ([]Info, error) {
	infos, err := s.list()
	for i := range infos {
		infos[i].conv = nil
	}
	return infos, err
}

// list is List with each Info's parsed file.
func (s *Store) list() ([]Info, error) {
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
		return nil, err
	}
	var names []string
	for _, e := range entries {
		n := e.Name()
		if strings.HasPrefix(n, sessionFilePrefix) && (strings.HasSuffix(n, ".json") || strings.HasSuffix(n, ".jsonl")) {
			names = append(names, n)
		}
	}
	slices.Sort(names)

	var infos []Info
	seen := map[string]int{}
	for _, n := range names {
		info, ok := s.describe(n)
		if !ok {
			continue
		}
		if i, dup := seen[info.ID]; dup {
			if info.LastUpdated.After(infos[i].LastUpdated) {
				infos[i] = info
			}
			continue
		}
		seen[info.ID] = len(infos)
		infos = append(infos, info)
	}
	slices.SortStableFunc(infos, func(a, b Info) int { return a.StartTime.Compare(b.StartTime) })
	for i := range infos {
		infos[i].Index = i + 1
	}
	return infos, nil
}

// describe loads one file for listing; ok is false for files Gemini CLI
// would not list.
func (s *Store) describe(name string) (Info, bool) {
	path := filepath.Join(s.dir, name)
	c, err := s.load(path)
	if err != nil || c.SessionID == "" || c.Kind == "subagent" {
		return Info{}, false
	}
	if !slices.ContainsFunc(c.Messages, func(m Message) bool { return isResumable(&m) }) {
		return Info{}, false
	}
	start, last := c.StartTime, c.LastUpdated
	if start.IsZero() || last.IsZero() {
		fallback := s.now()
		if st, err := os.Stat(path); err == nil {
			fallback = st.ModTime()
		}
		if start.IsZero() {
			start = cmpOr(last, fallback)
		}
		if last.IsZero() {
			last = cmpOr(c.StartTime, fallback)
		}
	}
	first := firstUserMessage(c.Messages)
	info := Info{
		conv:             c,
		ID:               c.SessionID,
		Path:             path,
		FileName:         name,
		StartTime:        start,
		LastUpdated:      last,
		MessageCount:     len(c.Messages),
		FirstUserMessage: first,
		Summary:          c.Summary,
		DisplayName:      first,
	}
	if c.Summary != "" {
		info.DisplayName = stripUnsafeCharacters(c.Summary)
	}
	return info, true
}

func cmpOr(a, b time.Time) time.Time {
	if !a.IsZero() {
		return a
	}
	return b
}

// firstUserMessage follows Gemini CLI: the text of the first resumable user
// message with any text, cleaned; else "Empty conversation".
func firstUserMessage(msgs []Message) string {
	for i := range msgs {
		m := &msgs[i]
		if m.Type != TypeUser || !isResumable(m) {
			continue
		}
		if t := textOf(m.Content); t != "" {
			return cleanMessage(t)
		}
	}
	return "Empty conversation"
}

// ErrNoSessions is returned when the project has no resumable session. Its
// text is Gemini CLI's, capital and full stop included, so that the CLI can
// print it verbatim.
var ErrNoSessions = errors.New("No previous sessions found for this project.")

// InvalidSessionError is returned for a session reference that matches
// nothing. Its text is Gemini CLI's --resume message.
type InvalidSessionError struct {
	Identifier string
	ChatsDir   string
	// Matches lists the session ids an ambiguous prefix matched.
	Matches []string
}

// Error returns Gemini CLI's wording, so the CLI can print it unchanged.
func (e *InvalidSessionError) Error() string {
	dir := ""
	if e.ChatsDir != "" {
		dir = " in " + e.ChatsDir
	}
	if len(e.Matches) > 1 {
		return fmt.Sprintf("Ambiguous session identifier %q matches %d sessions: %s.\n  Use --list-sessions to see available sessions, then use --resume {number}, --resume {uuid}, or --resume latest.",
			e.Identifier, len(e.Matches), strings.Join(e.Matches, ", "))
	}
	return fmt.Sprintf("Invalid session identifier %q.\n  Searched for sessions%s.\n  Use --list-sessions to see available sessions, then use --resume {number}, --resume {uuid}, or --resume latest.", e.Identifier, dir)
}

// Latest is the reference to the most recently started session.
const Latest = "latest"

// Resolve finds a session by reference: "latest" (the session started
// last), a full session id, a 1-based index as listed, or a prefix that
// matches exactly one session id (all-digit prefixes need 8 characters, so
// that an out-of-range index is not taken for one). Gemini CLI accepts the
// first three; the prefix form is Castor's.
//
// The Info carries the file as the listing parsed it, so that Load and
// Continue of it read nothing again.
func (s *Store) Resolve(ref string) (Info, error) {
	infos, err := s.list()
	if err != nil {
		return Info{}, err
	}
	return resolve(infos, ref, s.dir)
}

func resolve(infos []Info, ref, dir string) (Info, error) {
	ref = strings.TrimSpace(ref)
	if len(infos) == 0 {
		return Info{}, ErrNoSessions
	}
	if ref == Latest {
		return infos[len(infos)-1], nil
	}
	for _, in := range infos {
		if in.ID == ref {
			return in, nil
		}
	}
	// Only a canonical decimal counts as an index, as in Gemini CLI
	// (index.toString() === identifier).
	if n, err := strconv.Atoi(ref); err == nil && strconv.Itoa(n) == ref && n >= 1 && n <= len(infos) {
		return infos[n-1], nil
	}
	// A short all-digit reference is a mistyped index far more often than
	// an id prefix, so it never falls through to prefix matching.
	if ref != "" && !(len(ref) < 8 && isDigits(ref)) {
		var matches []Info
		for _, in := range infos {
			if strings.HasPrefix(in.ID, ref) {
				matches = append(matches, in)
			}
		}
		if len(matches) == 1 {
			return matches[0], nil
		}
		if len(matches) > 1 {
			ids := make([]string, len(matches))
			for i, m := range matches {
				ids[i] = m.ID
			}
			return Info{}, &InvalidSessionError{Identifier: ref, ChatsDir: dir, Matches: ids}
		}
	}
	return Info{}, &InvalidSessionError{Identifier: ref, ChatsDir: dir}
}

func isDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// Exists reports whether a session file with this exact id is stored,
// listed or not. Gemini CLI refuses --session-id for an id that exists
// ("Error starting session: Session ID \"<id>\" already exists. Use --resume
// to resume it, or provide a different ID.").
func (s *Store) Exists(sessionID string) (bool, error) {
	safe := sanitizeFilenamePart(sessionID)
	if safe == "" {
		return false, nil
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return false, nil
		}
		return false, err
	}
	for _, e := range entries {
		n := e.Name()
		if namedFor(n, safe) && sessionIDOf(filepath.Join(s.dir, n)) == sessionID {
			return true, nil
		}
	}
	return false, nil
}

// Load reads a listed session: the conversation Resolve parsed, else the
// file.
func (s *Store) Load(info Info) (*Conversation, error) {
	if info.conv != nil {
		return info.conv, nil
	}
	return s.load(info.Path)
}

// Continue reopens a listed session for appending, as Gemini CLI does on
// --resume: new records go to the end of the same file, after a
// {"$set":{"sessionId":…}} marker. A legacy .json session is first copied
// into a sibling .jsonl file (header, messages, scratchpad), which is then
// continued; the .json file is left alone.
func (s *Store) Continue(info Info) (*Recorder, error) {
	conv, err := s.Load(info)
	if err != nil {
		return nil, err
	}
	// The recorder changes its messages in place; the caller's copy stays
	// as it was read.
	own := *conv
	own.Messages = slices.Clone(conv.Messages)
	conv = &own
	path := info.Path
	legacy := strings.HasSuffix(path, ".json")
	flags := os.O_RDWR | os.O_APPEND
	if legacy {
		path += "l"
		flags |= os.O_CREATE
	}
	f, err := os.OpenFile(path, flags, 0o600)
	if err != nil {
		return nil, err
	}
	// A recording (and its folder) an older version left readable by
	// others is made the user's alone; best effort, as the user may have
	// good reasons on a file system that refuses.
	_ = fsutil.DropGroupOther(path)
	_ = fsutil.DropGroupOther(filepath.Dir(path))
	if err := terminateLastLine(f); err != nil {
		f.Close()
		return nil, err
	}
	r := newRecorder(f, path, *conv, s.now, s.newID)
	var lines [][]byte
	if legacy {
		hdr := header{
			SessionID:   conv.SessionID,
			ProjectHash: conv.ProjectHash,
			StartTime:   timeOrEmpty(conv.StartTime),
			LastUpdated: timeOrEmpty(conv.LastUpdated),
			Kind:        conv.Kind,
			Directories: conv.Directories,
			Summary:     conv.Summary,
		}
		l, err := marshalNoEscape(hdr)
		if err != nil {
			f.Close()
			return nil, err
		}
		lines = append(lines, l)
		for i := range conv.Messages {
			l, err := encodeMessage(&conv.Messages[i])
			if err != nil {
				f.Close()
				return nil, err
			}
			lines = append(lines, l)
		}
		if len(conv.MemoryScratchpad) > 0 {
			l, err := setLine(map[string]any{"memoryScratchpad": conv.MemoryScratchpad})
			if err != nil {
				f.Close()
				return nil, err
			}
			lines = append(lines, l)
		}
	}
	l, err := setLine(map[string]any{"sessionId": conv.SessionID})
	if err != nil {
		f.Close()
		return nil, err
	}
	lines = append(lines, l)
	// Synced once here, what a migration wrote with it: a file taken up
	// again is where the next turns go.
	if err := r.append(lines...); err != nil {
		f.Close()
		return nil, err
	}
	if err := r.sync(); err != nil {
		f.Close()
		return nil, err
	}
	return r, nil
}

func timeOrEmpty(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return formatTime(t)
}

// Delete removes a session found by reference (see Resolve) with its
// artifacts, as Gemini CLI's --delete-session does: every session-*.json[l]
// file of that id (legacy and migrated copies), its subagent sessions,
// logs/session-<id>.jsonl, tool-outputs/session-<id>/ and <temp>/<id>/.
// Gemini CLI deletes by the 8-character id prefix alone; Castor checks the
// full id so that a prefix clash cannot take another session with it.
func (s *Store) Delete(ref string) (Info, error) {
	info, err := s.Resolve(ref)
	if err != nil {
		return Info{}, err
	}
	if err := s.deleteFiles(info.ID); err != nil {
		return info, err
	}
	return info, nil
}

// reservedDirs are the project temp dir's own subdirectories, which a
// crafted session id must never make us delete.
var reservedDirs = lazy.Value[map[string]bool]{New: func() map[string]bool {
	return map[string]bool{"chats": true, "logs": true, "tool-outputs": true}
}}

func (s *Store) deleteFiles(id string) error {
	safe, errs := s.removeSessionFiles(id)
	if safe == "" {
		return errors.Join(errs...)
	}
	temp := filepath.Dir(s.dir)
	for _, p := range []string{
		filepath.Join(temp, "logs", "session-"+safe+".jsonl"),
		filepath.Join(temp, "tool-outputs", "session-"+safe),
		filepath.Join(s.dir, safe),
	} {
		if err := os.RemoveAll(p); err != nil {
			errs = append(errs, err)
		}
	}
	if !reservedDirs.Get()[strings.ToLower(safe)] {
		if err := os.RemoveAll(filepath.Join(temp, safe)); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// removeSessionFiles deletes the session-*-<id prefix>.json[l] files of
// the chats directory whose full id is id, and returns the id as it names
// the session's folders ("" for an id that cannot name one, with the
// error).
func (s *Store) removeSessionFiles(id string) (safe string, errs []error) {
	safe = sanitizeFilenamePart(id)
	if safe == "" || id == "." || id == ".." {
		return "", []error{fmt.Errorf("chats: invalid session id %q", id)}
	}
	entries, err := os.ReadDir(s.dir)
	if err != nil {
		return "", []error{err}
	}
	for _, e := range entries {
		n := e.Name()
		if e.IsDir() || !namedFor(n, safe) {
			continue
		}
		p := filepath.Join(s.dir, n)
		if sessionIDOf(p) != id {
			continue
		}
		if err := os.Remove(p); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	// The id's claim file (claim.go) goes with the session; it is empty,
	// so a failure to remove it is not worth a word.
	_ = os.Remove(s.claimPath(safe))
	return safe, errs
}

// sessionIDOf reads a session file's id from its first line, falling back
// to a full parse for legacy files.
func sessionIDOf(path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadBytes('\n')
	var h struct {
		SessionID string `json:"sessionId"`
	}
	if json.Unmarshal(bytes.TrimSpace(line), &h) == nil && h.SessionID != "" {
		return h.SessionID
	}
	if c, err := LoadFile(path); err == nil {
		return c.SessionID
	}
	return ""
}

// namedFor reports whether a chats directory entry may be a main session
// file of the session whose filename-safe id is safe: named after the
// id's first 8 characters (Gemini CLI's name) or after the whole id (a
// clash, see Create). The id inside the file decides.
func namedFor(name, safe string) bool {
	if !strings.HasPrefix(name, sessionFilePrefix) {
		return false
	}
	for _, tail := range []string{safe[:min(8, len(safe))], safe} {
		if strings.HasSuffix(name, "-"+tail+".json") || strings.HasSuffix(name, "-"+tail+".jsonl") {
			return true
		}
	}
	return false
}
