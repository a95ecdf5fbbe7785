package blobstore

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// fileBucket is a directory as gocloud's fileblob kept it, which the
// stores of earlier castors were written with: an object is the file at
// its (escaped) key below the directory, written to a temporary file
// (<name>.<hex time>.tmp) and renamed over it. With metadata= (an empty
// value; the store's default is skip) an object gets a <name>.attrs
// sidecar, fileblob's JSON of its content type and MD5, which listings
// leave out and Delete removes with its object, whoever wrote it.
type fileBucket struct {
	dir     string // absolute, clean
	dirMode os.FileMode
	// besideTarget puts temporary files beside their object (no_tmp_dir),
	// else in os.TempDir().
	besideTarget bool
	sidecars     bool
	closed       atomic.Bool
}

// attrsExt is the suffix of fileblob's sidecar files.
const attrsExt = ".attrs"

// fileParams are the query parameters a file:// URL may carry: fileblob's.
var fileParams = [...]string{"create_dir", "base_url", "secret_key_path", "metadata", "no_tmp_dir", "dir_file_mode"}

// openFileBucket opens the directory a file:// URL names, with fileblob's
// options (and its error messages).
func openFileBucket(u *url.URL) (Bucket, error) {
	path := u.Path
	// Host "." marks a relative path; on Windows /C:/x is C:\x.
	if u.Host == "." || os.PathSeparator != '/' {
		path = strings.TrimPrefix(path, "/")
	}
	q := u.Query()
	for k := range q {
		if !slices.Contains(fileParams[:], k) {
			return nil, fmt.Errorf("open bucket %v: invalid query parameter %q", u, k)
		}
	}
	b := &fileBucket{dirMode: 0o777}
	if v, ok := q["metadata"]; ok {
		switch v[0] {
		case "skip":
		case "":
			b.sidecars = true
		default:
			return nil, fmt.Errorf("open bucket %v: %w", u, errors.New("fileblob.OpenBucket: unsupported value for query parameter 'metadata'"))
		}
	}
	if s := q.Get("dir_file_mode"); s != "" {
		m, err := strconv.ParseUint(s, 0, 32)
		if err != nil {
			return nil, fmt.Errorf("open bucket %v: fileblob.OpenBucket: invalid dir_file_mode %q: %w", u, s, err)
		}
		if m != 0 {
			b.dirMode = os.FileMode(m)
		}
	}
	b.besideTarget = q.Get("no_tmp_dir") != ""
	// Signed URLs are not used, but the options are checked as fileblob
	// checked them.
	baseURL, keyPath := q.Get("base_url"), q.Get("secret_key_path")
	if (baseURL == "") != (keyPath == "") {
		return nil, fmt.Errorf("open bucket %v: %w", u, errors.New("fileblob.OpenBucket: must supply both base_url and secret_key_path query parameters"))
	}
	if baseURL != "" {
		if _, err := url.Parse(baseURL); err != nil {
			return nil, fmt.Errorf("open bucket %v: %w", u, err)
		}
		if _, err := os.ReadFile(keyPath); err != nil {
			return nil, fmt.Errorf("open bucket %v: %w", u, err)
		}
	}
	abs, err := filepath.Abs(filepath.FromSlash(path))
	if err != nil {
		return nil, fmt.Errorf("failed to convert %s into an absolute path: %w", path, err)
	}
	info, err := os.Stat(abs)
	if err != nil && q.Get("create_dir") != "" && os.IsNotExist(err) {
		if err = os.MkdirAll(abs, b.dirMode); err != nil {
			return nil, fmt.Errorf("tried to create directory but failed: %w", err)
		}
		info, err = os.Stat(abs)
	}
	if err != nil {
		return nil, err
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("%s is not a directory", abs)
	}
	b.dir = abs
	return b, nil
}

// path is the file of key: below the directory, and not a sidecar's name.
func (b *fileBucket) path(key string) (string, error) {
	p := filepath.Join(b.dir, escapeKey(key))
	c := filepath.Clean(p) + string(os.PathSeparator)
	root := b.dir + string(os.PathSeparator)
	if c == root || b.dir != string(os.PathSeparator) && !strings.HasPrefix(c, root) {
		return "", fmt.Errorf("fileblob: key %q escapes bucket root", key)
	}
	if strings.HasSuffix(p, attrsExt) {
		return "", errors.New(`file extension ".attrs" is reserved`)
	}
	return p, nil
}

// open opens key's file for reading; a directory is no object.
func (b *fileBucket) open(key string) (*os.File, error) {
	if b.closed.Load() {
		return nil, closedError()
	}
	p, err := b.path(key)
	if err == nil {
		var fi os.FileInfo
		if fi, err = os.Stat(p); err == nil && fi.IsDir() {
			err = os.ErrNotExist
		}
	}
	var f *os.File
	if err == nil {
		f, err = os.Open(p)
	}
	return f, keyError(key, err)
}

func (b *fileBucket) ReadAll(ctx context.Context, key string) ([]byte, error) {
	f, err := b.open(key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(f)
	return data, keyError(key, err)
}

func (b *fileBucket) ReadPrefix(ctx context.Context, key string, n int64) ([]byte, error) {
	f, err := b.open(key)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, n))
	return data, keyError(key, err)
}

// WriteAll writes b to a temporary file and renames it over key's file,
// so that a reader sees the old object or the new one, never half of it.
func (b *fileBucket) WriteAll(ctx context.Context, key string, data []byte, private bool) error {
	if b.closed.Load() {
		return closedError()
	}
	return keyError(key, b.write(ctx, key, data, private))
}

func (b *fileBucket) write(ctx context.Context, key string, data []byte, private bool) error {
	p, err := b.path(key)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), b.dirMode); err != nil {
		return err
	}
	perm := os.FileMode(0o666)
	if private {
		perm = 0o600
	}
	f, err := b.createTemp(p, perm)
	if err != nil {
		return err
	}
	tmp := f.Name()
	defer os.Remove(tmp) // gone once renamed
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = ctx.Err()
	}
	if err == nil && b.sidecars {
		err = writeSidecar(p, data, private)
	}
	if err != nil {
		return err
	}
	if err := os.Rename(tmp, p); err != nil {
		if b.sidecars {
			os.Remove(p + attrsExt)
		}
		return err
	}
	return nil
}

// createTemp creates the temporary file a write of path goes to, named
// as fileblob named it: <path>.<hex nanoseconds>.tmp, beside path or in
// os.TempDir().
func (b *fileBucket) createTemp(path string, perm os.FileMode) (*os.File, error) {
	for try := 0; ; try++ {
		name := path
		if !b.besideTarget {
			name = filepath.Join(os.TempDir(), filepath.Base(path))
		}
		name += "." + strconv.FormatInt(time.Now().UnixNano(), 16) + ".tmp"
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if os.IsExist(err) && try < 10000 {
			continue
		}
		return f, err
	}
}

// sidecar is fileblob's <name>.attrs: the object's attributes, of which
// a store's objects have a content type and an MD5 only.
type sidecar struct {
	CacheControl       string            `json:"user.cache_control"`
	ContentDisposition string            `json:"user.content_disposition"`
	ContentEncoding    string            `json:"user.content_encoding"`
	ContentLanguage    string            `json:"user.content_language"`
	ContentType        string            `json:"user.content_type"`
	Metadata           map[string]string `json:"user.metadata"`
	MD5                []byte            `json:"md5"`
}

// writeSidecar writes path's sidecar for the object data. The store
// gave its private objects (the task's files) the content type
// application/json; gocloud detected the others' (presence objects).
func writeSidecar(path string, data []byte, private bool) error {
	sum := md5.Sum(data)
	ct := "application/json"
	if !private {
		ct = http.DetectContentType(data)
	}
	b, err := json.Marshal(sidecar{ContentType: ct, MD5: sum[:]})
	if err != nil {
		return err
	}
	return os.WriteFile(path+attrsExt, append(b, '\n'), 0o666)
}

func (b *fileBucket) Delete(ctx context.Context, key string) error {
	if b.closed.Load() {
		return closedError()
	}
	p, err := b.path(key)
	if err == nil {
		err = os.Remove(p)
	}
	if err == nil {
		if err = os.Remove(p + attrsExt); os.IsNotExist(err) {
			err = nil
		}
	}
	return keyError(key, err)
}

// List walks the directory below prefix's last slash, as fileblob did,
// leaving out sidecars and files that go while it walks.
func (b *fileBucket) List(ctx context.Context, prefix string) ([]Object, error) {
	if b.closed.Load() {
		return nil, closedError()
	}
	root := b.dir
	if i := strings.LastIndex(prefix, "/"); i >= 0 {
		root = filepath.Join(root, escapeKey(prefix[:i]))
	}
	var out []Object
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == b.dir || strings.HasSuffix(path, attrsExt) {
			return nil // an unreadable or vanished entry is no object
		}
		rel := path[len(b.dir):]
		rel = strings.TrimPrefix(rel, string(os.PathSeparator))
		key := unescapeKey(rel)
		if d.IsDir() {
			if k := key + "/"; len(k) > len(prefix) && !strings.HasPrefix(k, prefix) {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasPrefix(key, prefix) {
			return nil
		}
		fi, err := d.Info()
		if err != nil {
			return nil
		}
		out = append(out, Object{Key: key, ModTime: fi.ModTime()})
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (b *fileBucket) Close() error {
	if b.closed.Swap(true) {
		return closedError()
	}
	return nil
}
