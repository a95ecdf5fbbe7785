package chats

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/castor-dev/castor/internal/fsutil"
	"github.com/castor-dev/castor/internal/lazy"
)

// projectRootFile marks which project owns a slug directory. Gemini CLI
// trusts these markers over projects.json, which lets it (and us) recover
// slugs when the registry is lost.
const projectRootFile = ".project_root"

// Lock timing follows Gemini CLI's use of proper-lockfile: a lock older
// than lockStale is abandoned, and a waiter gives up after lockTimeout.
const (
	lockTimeout = 10 * time.Second
	lockRetry   = 100 * time.Millisecond
	lockStale   = 10 * time.Second
)

// ProjectHash is the sha256 (hex) of the project root as Gemini CLI sees
// it (see projectPath). Gemini CLI writes it into every session header and
// named its older temp directories after it.
func ProjectHash(projectRoot string) string {
	return hashOf(projectPath(projectRoot))
}

// hashOf is ProjectHash of a root projectPath already resolved.
func hashOf(root string) string {
	sum := sha256.Sum256([]byte(root))
	return hex.EncodeToString(sum[:])
}

// projectPath is the project root the way Gemini CLI derives it from
// process.cwd(): absolute and with symlinks resolved, because the kernel's
// getcwd reports the physical path while Go's os.Getwd may return a
// symlinked $PWD. Without this the two programs would file one project
// under two slugs. A path that cannot be resolved (it may not exist) is
// used as given.
func projectPath(p string) string {
	p = absPath(p)
	if real, err := filepath.EvalSymlinks(p); err == nil {
		return real
	}
	return p
}

func absPath(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return filepath.Clean(p)
}

// normalizeProjectPath is the registry key: the absolute path, lowercased
// on Windows where paths are case-insensitive.
func normalizeProjectPath(p string) string {
	p = absPath(p)
	if runtime.GOOS == "windows" {
		p = strings.ToLower(p)
	}
	return p
}

// RegistryError reports a projects.json that cannot be used. Castor never
// overwrites such a file: Gemini CLI would reset it to empty and rely on
// the .project_root markers, but a user's hand-edited mappings are worth
// more than an automatic repair.
type RegistryError struct {
	Path string
	Err  error
}

// Error says which file is at fault and that it was left untouched.
func (e *RegistryError) Error() string {
	return fmt.Sprintf("project registry %s is unreadable (%v); fix or remove it — Castor will not overwrite it", e.Path, e.Err)
}

// Unwrap returns the parse error.
func (e *RegistryError) Unwrap() error { return e.Err }

// ProjectTempDir returns <geminiHome>/tmp/<slug>, the project's temp
// directory, creating it if needed. The slug is looked up in, or allocated
// into, <geminiHome>/projects.json under the same lock and with the same
// rules as Gemini CLI (slug of the directory name, "-1", "-2"… on clashes,
// .project_root ownership markers in tmp/<slug> and history/<slug>). A
// legacy <geminiHome>/tmp/<sha256> directory is copied into a fresh slug
// directory once, as Gemini CLI does.
//
// If projects.json is corrupt the project is still found through its
// markers; only a project that would need a new slug fails, with a
// *RegistryError.
func ProjectTempDir(geminiHome, projectRoot string) (string, error) {
	// A long-running process (the A2A server) asks for the same project at
	// every new task; the slug never changes once allocated, so the answer
	// is kept rather than taking the cross-process lock each time.
	key := geminiHome + "\x00" + projectRoot
	if dir, ok := tempDirs.Load(key); ok {
		if err := os.MkdirAll(dir.(string), 0o700); err == nil {
			return dir.(string), nil
		}
	}
	dir, err := projectTempDir(geminiHome, projectRoot)
	if err == nil {
		tempDirs.Store(key, dir)
	}
	return dir, err
}

// tempDirs caches ProjectTempDir answers for this process.
var tempDirs sync.Map

func projectTempDir(geminiHome, projectRoot string) (string, error) {
	root := projectPath(projectRoot)
	tmpBase := filepath.Join(geminiHome, "tmp")
	historyBase := filepath.Join(geminiHome, "history")
	reg := &projectRegistry{
		path:     filepath.Join(geminiHome, "projects.json"),
		baseDirs: []string{tmpBase, historyBase},
	}
	slug, err := reg.shortID(root)
	if err != nil {
		return "", err
	}
	hash := hashOf(root)
	migrateLegacyDir(filepath.Join(tmpBase, hash), filepath.Join(tmpBase, slug))
	migrateLegacyDir(filepath.Join(historyBase, hash), filepath.Join(historyBase, slug))
	return filepath.Join(tmpBase, slug), nil
}

type projectRegistry struct {
	path     string
	baseDirs []string
}

// shortID returns the project's slug, allocating one if needed.
func (r *projectRegistry) shortID(projectPath string) (string, error) {
	norm := normalizeProjectPath(projectPath)
	if slug, ok := r.known(norm); ok {
		return slug, nil
	}
	if err := os.MkdirAll(filepath.Dir(r.path), 0o700); err != nil {
		return "", err
	}
	if err := createIfMissing(r.path, []byte("{\n  \"projects\": {}\n}")); err != nil {
		return "", err
	}
	unlock, err := lockFile(r.path)
	if err != nil {
		return "", err
	}
	defer unlock()

	data, loadErr := r.load()
	var corrupt *RegistryError
	if loadErr != nil {
		if !errors.As(loadErr, &corrupt) {
			return "", loadErr
		}
		data = &registryData{}
	}

	if slug, ok := data.get(norm); ok {
		if r.verifyOwnership(slug, norm) {
			if err := r.ensureMarkers(slug, norm); err != nil {
				return "", err
			}
			return slug, nil
		}
		data.remove(norm)
	}
	slug, err := r.findExisting(norm)
	if err != nil {
		return "", err
	}
	if slug == "" {
		if corrupt != nil {
			return "", corrupt
		}
		if slug, err = r.claimNew(norm, data); err != nil {
			return "", err
		}
	}
	if corrupt != nil {
		return slug, nil
	}
	data.set(norm, slug)
	if err := r.save(data); err != nil {
		return "", err
	}
	return slug, nil
}

// known returns the slug of a project the registry lists and both of
// whose markers already name it: the answer at nearly every start, with
// nothing to write, so it is read without the lock (whose mkdir and
// rmdir were most of a headless run's registry cost). Castor renames a
// new registry into place, so it is read whole or not at all; one half
// written by another program does not parse and takes the locked path.
// The markers, created exclusively and never rewritten, are what
// ownership rests on anyway; anything else takes the locked path too.
func (r *projectRegistry) known(norm string) (string, bool) {
	b, err := os.ReadFile(r.path)
	if err != nil {
		return "", false
	}
	d, err := parseRegistry(b)
	if err != nil {
		return "", false
	}
	slug, ok := d.get(norm)
	if !ok {
		return "", false
	}
	for _, base := range r.baseDirs {
		if owner, err := readOwner(r.marker(base, slug)); err != nil || owner != norm {
			return "", false
		}
	}
	return slug, true
}

// load reads the registry. A file that is not JSON of the expected shape
// yields a *RegistryError; other read errors are returned as they are,
// since a permission problem is no reason to treat the file as empty.
func (r *projectRegistry) load() (*registryData, error) {
	b, err := os.ReadFile(r.path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return &registryData{}, nil
		}
		return nil, err
	}
	d, err := parseRegistry(b)
	if err != nil {
		return nil, &RegistryError{Path: r.path, Err: err}
	}
	return d, nil
}

// save replaces the registry atomically, through a symlink if the path is
// one and keeping the mode of the file it replaces.
func (r *projectRegistry) save(d *registryData) error {
	return fsutil.WriteFileAtomic(r.path, d.encode(), 0o600)
}

func (r *projectRegistry) marker(base, slug string) string {
	return filepath.Join(base, slug, projectRootFile)
}

func readOwner(path string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	return normalizeProjectPath(strings.TrimSpace(string(b))), nil
}

// verifyOwnership rejects a registered slug whose markers name another
// project; a missing marker is fine, an unreadable one is not.
func (r *projectRegistry) verifyOwnership(slug, norm string) bool {
	for _, base := range r.baseDirs {
		owner, err := readOwner(r.marker(base, slug))
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil || owner != norm {
			return false
		}
	}
	return true
}

// findExisting scans the base directories for a slug whose marker names
// this project.
func (r *projectRegistry) findExisting(norm string) (string, error) {
	for _, base := range r.baseDirs {
		entries, err := os.ReadDir(base)
		if err != nil {
			continue
		}
		for _, e := range entries {
			owner, err := readOwner(r.marker(base, e.Name()))
			if err != nil || owner != norm {
				continue
			}
			if err := r.ensureMarkers(e.Name(), norm); err != nil {
				return "", err
			}
			return e.Name(), nil
		}
	}
	return "", nil
}

// errSlugTaken reports a marker naming another project.
var errSlugTaken = errors.New("slug owned by another project")

// claimNew takes the first free candidate of slug, slug-1, slug-2, …,
// skipping slugs registered or marked for other projects.
func (r *projectRegistry) claimNew(norm string, d *registryData) (string, error) {
	base := slugify(filepath.Base(norm))
	taken := d.slugs()
	for n := 0; ; n++ {
		cand := base
		if n > 0 {
			cand = fmt.Sprintf("%s-%d", base, n)
		}
		if taken[cand] {
			continue
		}
		clash := false
		for _, b := range r.baseDirs {
			owner, err := readOwner(r.marker(b, cand))
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			if err != nil || owner != norm {
				clash = true
				break
			}
		}
		if clash {
			continue
		}
		err := r.ensureMarkers(cand, norm)
		if errors.Is(err, errSlugTaken) || errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		return cand, nil
	}
}

// ensureMarkers creates tmp/<slug>/.project_root and
// history/<slug>/.project_root naming the project. Creation is exclusive so
// that two processes racing for one slug cannot both believe they own it.
func (r *projectRegistry) ensureMarkers(slug, norm string) error {
	for _, base := range r.baseDirs {
		dir := filepath.Join(base, slug)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return err
		}
		path := filepath.Join(dir, projectRootFile)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			owner, rerr := readOwner(path)
			if rerr == nil && owner == norm {
				continue
			}
			return fmt.Errorf("%w: %s", errSlugTaken, path)
		}
		if err != nil {
			return err
		}
		_, werr := f.WriteString(norm)
		cerr := f.Close()
		if err := errors.Join(werr, cerr); err != nil {
			return err
		}
	}
	return nil
}

var slugUnsafe = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`[^a-z0-9]`) }}
var dashes = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`-+`) }}

// slugify follows Gemini CLI: lowercase, non-alphanumerics to dashes,
// dashes collapsed and trimmed, "project" if nothing is left.
func slugify(s string) string {
	s = slugUnsafe.Get().ReplaceAllString(strings.ToLower(s), "-")
	s = strings.Trim(dashes.Get().ReplaceAllString(s, "-"), "-")
	if s == "" {
		return "project"
	}
	return s
}

// registryData is projects.json with its key order kept, so that saving
// changes only what we changed. Unknown top-level keys are kept too.
type registryData struct {
	keys     []string                   // top-level key order; "projects" included
	other    map[string]json.RawMessage // top-level keys other than "projects"
	projects []projectEntry
}

type projectEntry struct{ path, slug string }

var validSlug = lazy.Value[*regexp.Regexp]{New: func() *regexp.Regexp { return regexp.MustCompile(`^[a-z0-9-]+$`) }}

// parseRegistry accepts what Gemini CLI's schema accepts: an object whose
// "projects" maps strings to slugs of [a-z0-9-].
func parseRegistry(b []byte) (*registryData, error) {
	top, err := orderedObject(b)
	if err != nil {
		return nil, err
	}
	d := &registryData{other: map[string]json.RawMessage{}}
	found := false
	for _, kv := range top {
		if !contains(d.keys, kv.key) {
			d.keys = append(d.keys, kv.key)
		}
		if kv.key != "projects" {
			d.other[kv.key] = kv.val
			continue
		}
		found = true
		entries, err := orderedObject(kv.val)
		if err != nil {
			return nil, fmt.Errorf("projects: %w", err)
		}
		d.projects = nil
		for _, e := range entries {
			var slug string
			if err := json.Unmarshal(e.val, &slug); err != nil || !validSlug.Get().MatchString(slug) {
				return nil, fmt.Errorf("projects[%q]: not a valid slug", e.key)
			}
			d.set(e.key, slug)
		}
	}
	if !found {
		return nil, errors.New(`missing "projects"`)
	}
	return d, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

type rawKV struct {
	key string
	val json.RawMessage
}

// orderedObject splits a JSON object into its members in file order.
func orderedObject(b []byte) ([]rawKV, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, errors.New("not a JSON object")
	}
	var out []rawKV
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, errors.New("malformed object")
		}
		var val json.RawMessage
		if err := dec.Decode(&val); err != nil {
			return nil, err
		}
		out = append(out, rawKV{key, val})
	}
	if _, err := dec.Token(); err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, errors.New("trailing data after JSON object")
	}
	return out, nil
}

func (d *registryData) get(path string) (string, bool) {
	for _, e := range d.projects {
		if e.path == path {
			return e.slug, true
		}
	}
	return "", false
}

// set keeps an existing key's position, like assignment to a JavaScript
// object property.
func (d *registryData) set(path, slug string) {
	for i := range d.projects {
		if d.projects[i].path == path {
			d.projects[i].slug = slug
			return
		}
	}
	d.projects = append(d.projects, projectEntry{path, slug})
}

func (d *registryData) remove(path string) {
	for i := range d.projects {
		if d.projects[i].path == path {
			d.projects = append(d.projects[:i], d.projects[i+1:]...)
			return
		}
	}
}

func (d *registryData) slugs() map[string]bool {
	m := map[string]bool{}
	for _, e := range d.projects {
		m[e.slug] = true
	}
	return m
}

// encode writes JSON.stringify(data, null, 2): two-space indent, no final
// newline.
func (d *registryData) encode() []byte {
	keys := d.keys
	if !contains(keys, "projects") {
		keys = append([]string{"projects"}, keys...)
	}
	var b bytes.Buffer
	b.WriteString("{")
	for i, k := range keys {
		if i > 0 {
			b.WriteString(",")
		}
		b.WriteString("\n  ")
		kb, _ := marshalNoEscape(k)
		b.Write(kb)
		b.WriteString(": ")
		if k != "projects" {
			var ind bytes.Buffer
			if json.Indent(&ind, d.other[k], "  ", "  ") == nil {
				b.Write(ind.Bytes())
			} else {
				b.Write(d.other[k])
			}
			continue
		}
		if len(d.projects) == 0 {
			b.WriteString("{}")
			continue
		}
		b.WriteString("{")
		for j, e := range d.projects {
			if j > 0 {
				b.WriteString(",")
			}
			pk, _ := marshalNoEscape(e.path)
			pv, _ := marshalNoEscape(e.slug)
			b.WriteString("\n    ")
			b.Write(pk)
			b.WriteString(": ")
			b.Write(pv)
		}
		b.WriteString("\n  }")
	}
	if len(keys) > 0 {
		b.WriteString("\n")
	}
	b.WriteString("}")
	return b.Bytes()
}

// createIfMissing creates path with content unless it exists, without ever
// replacing a file another process created meanwhile: the content is
// written to a temp file and hard-linked into place, which fails if the
// name is taken. Where hard links are unsupported it falls back to an
// exclusive create.
func createIfMissing(path string, content []byte) error {
	if _, err := os.Lstat(path); err == nil {
		return nil
	}
	tmp := path + "." + uuid.NewString() + ".tmp"
	if err := os.WriteFile(tmp, content, 0o600); err != nil {
		return err
	}
	defer os.Remove(tmp)
	err := os.Link(tmp, path)
	if err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return nil
	}
	if err != nil {
		return err
	}
	_, werr := f.Write(content)
	return errors.Join(werr, f.Close())
}

// lockFile takes the lock proper-lockfile uses, so that Castor and Gemini
// CLI exclude each other: a directory named <realpath>.lock, created
// atomically with mkdir, considered abandoned once its mtime is older than
// lockStale.
func lockFile(path string) (unlock func(), err error) {
	real, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, err
	}
	lock := real + ".lock"
	// Waiters in this process queue on a mutex first, so that only one of
	// them polls the directory lock held by another process.
	mu, _ := lockMutexes.LoadOrStore(lock, &sync.Mutex{})
	mu.(*sync.Mutex).Lock()
	deadline := time.Now().Add(lockTimeout)
	wait := time.Millisecond
	for {
		err := os.Mkdir(lock, 0o700)
		if err == nil {
			return func() { os.Remove(lock); mu.(*sync.Mutex).Unlock() }, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			mu.(*sync.Mutex).Unlock()
			return nil, err
		}
		if st, serr := os.Stat(lock); serr == nil && time.Since(st.ModTime()) > lockStale {
			// Abandoned by a crashed process. Remove and retry at once; if
			// another waiter beat us to it, Mkdir fails again and we wait.
			os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			mu.(*sync.Mutex).Unlock()
			return nil, fmt.Errorf("chats: %s is locked by another process (remove %s if no Gemini CLI or Castor is running)", path, lock)
		}
		// Back off from 1 ms: the lock is usually held for a millisecond,
		// and a fixed 100 ms sleep made bursts of new sessions queue.
		time.Sleep(wait)
		wait = min(2*wait, lockRetry)
	}
}

// lockMutexes holds one mutex per lock path for this process.
var lockMutexes sync.Map

// migrateLegacyDir copies a legacy hash-named directory into the slug
// directory if the latter holds nothing but its ownership marker, as Gemini
// CLI does at every start. Gemini CLI copies rather than moves (so older
// versions keep working) and ignores failures, and so do we.
func migrateLegacyDir(oldDir, newDir string) {
	if st, err := os.Stat(oldDir); err != nil || !st.IsDir() {
		return
	}
	if entries, err := os.ReadDir(newDir); err == nil {
		if len(entries) > 1 || (len(entries) == 1 && entries[0].Name() != projectRootFile) {
			return
		}
	}
	_ = copyTree(oldDir, newDir)
}

func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(target, 0o700)
		case rel == projectRootFile:
			// The new directory's marker is authoritative.
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			link, err := os.Readlink(p)
			if err != nil {
				return err
			}
			os.Remove(target)
			return os.Symlink(link, target)
		case d.Type().IsRegular():
			return fsutil.CopyFile(p, target, true)
		}
		return nil
	})
}
