package blobstore

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"strings"
	"time"
)

// Bucket is the object store a Store keeps its tasks in: flat keys
// ("tasks/<id>/state.json") naming whole objects, each replaced
// atomically by a write. The package has its own for file:// (fileBucket)
// and mem:// (memBucket); binaries built with the cloudstore tag open
// gs:// and s3:// through gocloud.dev/blob (cloud.go), which is left out
// of the default build: its drivers' packages and their init work would
// be in every start of castor.
//
// Errors are worded as gocloud.dev/blob worded them (bucketError), so
// that logs and messages read as before; errors.Is(err, fs.ErrNotExist)
// says an object is missing.
type Bucket interface {
	// ReadAll reads the object key whole.
	ReadAll(ctx context.Context, key string) ([]byte, error)
	// ReadPrefix reads the first n bytes of the object key (all of it
	// when it is shorter).
	ReadPrefix(ctx context.Context, key string, n int64) ([]byte, error)
	// WriteAll replaces the object key with b. A private object is
	// readable by its owner only, where the bucket has file modes.
	WriteAll(ctx context.Context, key string, b []byte, private bool) error
	// Delete deletes the object key.
	Delete(ctx context.Context, key string) error
	// List returns the objects whose keys start with prefix, at any
	// depth, sorted by key.
	List(ctx context.Context, prefix string) ([]Object, error)
	// Close closes the bucket; any use after it fails.
	Close() error
}

// Object is a listed object: its key and when it was last written.
type Object struct {
	Key     string
	ModTime time.Time
}

// errCode classifies a bucket's errors, as gocloud.dev/gcerrors does.
type errCode int

// The codes the store's buckets give; their names are gocloud's.
const (
	codeUnknown errCode = iota
	codeNotFound
	codeFailedPrecondition
	codeCanceled
	codeDeadlineExceeded
)

func (c errCode) String() string {
	switch c {
	case codeNotFound:
		return "NotFound"
	case codeFailedPrecondition:
		return "FailedPrecondition"
	case codeCanceled:
		return "Canceled"
	case codeDeadlineExceeded:
		return "DeadlineExceeded"
	}
	return "Unknown"
}

// codeOf is the code of an error from the file system or a context.
func codeOf(err error) errCode {
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return codeNotFound
	case errors.Is(err, context.Canceled):
		return codeCanceled
	case errors.Is(err, context.DeadlineExceeded):
		return codeDeadlineExceeded
	}
	return codeUnknown
}

// bucketError is an error of the package's own buckets, worded as
// gocloud.dev/blob's: `blob (key "k") (code=NotFound): <cause>`.
type bucketError struct {
	msg  string
	code errCode
	err  error
}

// keyError wraps err, the cause of an operation on key failing.
func keyError(key string, err error) error {
	if err == nil {
		return nil
	}
	var be *bucketError
	if errors.As(err, &be) {
		return err
	}
	return &bucketError{msg: "blob (key " + strconv.Quote(key) + ")", code: codeOf(err), err: err}
}

// closedError is what a closed bucket answers, as gocloud's does.
func closedError() error {
	return &bucketError{msg: "blob: Bucket has been closed", code: codeFailedPrecondition}
}

func (e *bucketError) Error() string {
	s := e.msg + " (code=" + e.code.String() + ")"
	if e.err != nil {
		s += ": " + e.err.Error()
	}
	return s
}

func (e *bucketError) Unwrap() error { return e.err }

// Is makes a NotFound error fs.ErrNotExist, whatever its cause.
func (e *bucketError) Is(target error) bool {
	return target == fs.ErrNotExist && e.code == codeNotFound
}

// notFound reports whether err says an object is missing.
func notFound(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// closed reports whether the error is a closed bucket's.
func (e *bucketError) closed() bool { return e.code == codeFailedPrecondition }

// closedBucket reports whether err is a closed bucket's.
func closedBucket(err error) bool {
	var c interface{ closed() bool }
	return errors.As(err, &c) && c.closed()
}

// prefixBucket keeps every key of b under prefix (the ?prefix= of a
// store URL).
type prefixBucket struct {
	b      Bucket
	prefix string
}

func (p *prefixBucket) ReadAll(ctx context.Context, key string) ([]byte, error) {
	return p.b.ReadAll(ctx, p.prefix+key)
}

func (p *prefixBucket) ReadPrefix(ctx context.Context, key string, n int64) ([]byte, error) {
	return p.b.ReadPrefix(ctx, p.prefix+key, n)
}

func (p *prefixBucket) WriteAll(ctx context.Context, key string, b []byte, private bool) error {
	return p.b.WriteAll(ctx, p.prefix+key, b, private)
}

func (p *prefixBucket) Delete(ctx context.Context, key string) error {
	return p.b.Delete(ctx, p.prefix+key)
}

func (p *prefixBucket) List(ctx context.Context, prefix string) ([]Object, error) {
	objs, err := p.b.List(ctx, p.prefix+prefix)
	for i := range objs {
		objs[i].Key = strings.TrimPrefix(objs[i].Key, p.prefix)
	}
	return objs, err
}

func (p *prefixBucket) Close() error { return p.b.Close() }

// escapeKey turns a key into its file's path below the bucket directory
// as gocloud's fileblob did, so that directories it wrote keep working:
// runes below 32, the slash of "../" and of "//", a final slash, and
// anything that reads as an escape ("__0x<hex>__") are written
// "__0x<hex>__"; so are os.PathSeparator and, on Windows, <>:"|?*. The
// slashes left become os.PathSeparator.
func escapeKey(key string) string {
	r := []rune(key)
	var b strings.Builder
	escaped := false
	for i, c := range r {
		if escapeRune(r, i) {
			b.WriteString("__0x" + strconv.FormatInt(int64(c), 16) + "__")
			escaped = true
			continue
		}
		b.WriteRune(c)
	}
	s := key
	if escaped {
		s = b.String()
	}
	if os.PathSeparator != '/' {
		s = strings.ReplaceAll(s, "/", string(os.PathSeparator))
	}
	return s
}

// escapeRune reports whether r[i] is escaped (escapeKey).
func escapeRune(r []rune, i int) bool {
	c := r[i]
	switch {
	case c < 32,
		os.PathSeparator != '/' && c == os.PathSeparator,
		c == '/' && i > 1 && r[i-1] == '.' && r[i-2] == '.',
		c == '/' && i > 0 && r[i-1] == '/',
		c == '/' && i == len(r)-1,
		os.PathSeparator == '\\' && strings.ContainsRune(`<>:"|?*`, c):
		return true
	}
	_, _, ok := unescapeAt(r, i)
	return ok
}

// unescapeKey reverses escapeKey.
func unescapeKey(s string) string {
	if os.PathSeparator != '/' {
		s = strings.ReplaceAll(s, string(os.PathSeparator), "/")
	}
	if !strings.Contains(s, "__0x") {
		return s
	}
	r := []rune(s)
	var b strings.Builder
	for i := 0; i < len(r); i++ {
		if c, end, ok := unescapeAt(r, i); ok {
			b.WriteRune(c)
			i = end
			continue
		}
		b.WriteRune(r[i])
	}
	return b.String()
}

// unescapeAt reads an escape "__0x<hex>__" at r[i]: the rune, and the
// index of its last underscore.
func unescapeAt(r []rune, i int) (rune, int, bool) {
	if i+4 > len(r) || string(r[i:i+4]) != "__0x" {
		return 0, 0, false
	}
	j := i + 4
	for j < len(r) && r[j] != '_' {
		j++
	}
	if j+1 >= len(r) || r[j+1] != '_' {
		return 0, 0, false
	}
	v, err := strconv.ParseInt(string(r[i+4:j]), 16, 32)
	if err != nil {
		return 0, 0, false
	}
	return rune(v), j + 1, true
}
