package blobstore

import (
	"context"
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/castor-dev/castor/internal/lazy"
)

// BuildHint is how to get a binary that opens gs:// and s3:// stores. The
// cloud drivers are left out by default because they double the binary
// (+42 MB) and the start-up memory (+20 MB) of every castor command, the
// interactive ones included.
const BuildHint = "go build -tags cloudstore ./cmd/castor"

// fileDefaults are the file:// options (gocloud fileblob's, which
// earlier castors opened directories with) the store needs unless the
// URL says otherwise: create the directory, owner-only; no .attrs sidecar
// files, so the directory holds the task layout (see the package
// documentation) and nothing else; temporary files beside their targets rather than in
// $TMPDIR, where other users could read them and from where a rename
// across file systems fails.
var fileDefaults = lazy.Value[url.Values]{New: func() url.Values {
	return url.Values{
		"create_dir":    {"1"},
		"dir_file_mode": {"0700"},
		"metadata":      {"skip"},
		"no_tmp_dir":    {"1"},
	}
}}

// Open opens the task store a URL names:
//
//	file:///abs/dir          a directory (created, owner-only)
//	mem://                   memory: nothing survives the process
//	gs://bucket[/prefix]     Google Cloud Storage, with Application Default Credentials
//	s3://bucket[/prefix]     Amazon S3 and compatibles, with the AWS SDK's configuration
//
// gs:// and s3:// need a binary built with the cloudstore tag (BuildHint).
// Query parameters go to the bucket: ?prefix= anywhere; fileblob's
// options for file:// (fileDefaults); the gocloud driver's for gs:// and
// s3:// (for instance ?region=). Errors are one line, naming the URL; a URL
// refused as malformed, unknown or unsupported is a *URLError.
func Open(ctx context.Context, rawURL string) (*Store, error) {
	u, err := parseURL(rawURL)
	if err != nil {
		return nil, err
	}
	b, err := openBucket(ctx, u)
	if err != nil {
		return nil, fmt.Errorf("task store %s: %w", rawURL, oneLine(err))
	}
	s := New(b)
	switch {
	case u.Scheme == "file" && !u.Query().Has("prefix"):
		s.dir = localDir(u.Path)
		s.openDir()
	case u.Scheme != "mem":
		// A bucket (or a file:// prefix) other processes may open too.
		if err := s.announce(ctx); err != nil {
			s.Close()
			return nil, fmt.Errorf("task store %s: %w", rawURL, oneLine(err))
		}
	}
	return s, nil
}

// openBucket opens the bucket of a URL parseURL checked: a file:// or
// mem:// one with the package's own buckets, under the URL's ?prefix=
// if it has one; a gs:// or s3:// one through gocloud (cloud.go), which
// takes ?prefix= itself.
func openBucket(ctx context.Context, u *url.URL) (Bucket, error) {
	if u.Scheme != "file" && u.Scheme != "mem" {
		return openCloudBucket(ctx, u.String())
	}
	// As gocloud's URL opener did, a non-empty prefix is the bucket's;
	// any other parameter is the bucket's own (gocloud's ?key=, a bucket
	// of one object, is refused as unknown).
	q := u.Query()
	prefix := q.Get("prefix")
	if prefix != "" {
		c := *u
		q.Del("prefix")
		c.RawQuery = q.Encode()
		u = &c
	}
	var b Bucket
	var err error
	if u.Scheme == "file" {
		b, err = openFileBucket(u)
	} else {
		b, err = openMemBucket(u)
	}
	if err != nil || prefix == "" {
		return b, err
	}
	return &prefixBucket{b: b, prefix: prefix}, nil
}

// localDir is the directory of a file:// URL's path, as openFileBucket reads it
// ("/C:/x" is C:\x on Windows).
func localDir(p string) string {
	if runtime.GOOS == "windows" && len(p) > 2 && p[0] == '/' && p[2] == ':' {
		p = p[1:]
	}
	return filepath.FromSlash(p)
}

// URLError is a store URL Open refuses before trying to open it: a
// mistake of whoever wrote the URL, as opposed to a bucket that fails to
// open.
type URLError struct {
	URL    string
	Reason string
}

func (e *URLError) Error() string { return fmt.Sprintf("task store %q: %s", e.URL, e.Reason) }

// parseURL checks a store URL and rewrites it into the form openBucket
// (and gocloud) opens.
func parseURL(raw string) (*url.URL, error) {
	bad := func(why string, args ...any) error {
		return &URLError{URL: raw, Reason: fmt.Sprintf(why, args...)}
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, bad("not a URL: %v", unwrapURLError(err))
	}
	if u.Scheme == "" || u.Opaque != "" {
		return nil, bad("not a URL; use file:///abs/dir, mem://, gs://bucket or s3://bucket")
	}
	q := u.Query()
	switch u.Scheme {
	case "file":
		// fileblob read "file://dir" as host "dir" and ignored it, which
		// would put tasks in / ; "." is its spelling of a relative path.
		if u.Host != "" && u.Host != "localhost" && u.Host != "." {
			return nil, bad("file URLs take an absolute path: file:///%s%s", u.Host, u.Path)
		}
		if u.Path == "" || (u.Path == "/" && u.Host != ".") {
			return nil, bad("no directory; use file:///abs/dir")
		}
		for k, v := range fileDefaults.Get() {
			if !q.Has(k) {
				q[k] = v
			}
		}
	case "mem":
	case "gs", "s3":
		if u.Host == "" {
			return nil, bad("no bucket; use %s://bucket[/prefix]", u.Scheme)
		}
		if !cloudScheme(u.Scheme) {
			return nil, bad("this castor was built without %s:// support; build it with: %s", u.Scheme, BuildHint)
		}
		// gocloud takes the bucket from the host and ignores the path; a
		// path here is the prefix the tasks are kept under.
		if p := strings.Trim(u.Path, "/"); p != "" {
			if q.Has("prefix") {
				return nil, bad("give the prefix as the path or as ?prefix=, not both")
			}
			q.Set("prefix", p+"/")
		}
		u.Path, u.RawPath = "", ""
	default:
		return nil, bad("unknown scheme %q; use file, mem, gs or s3", u.Scheme)
	}
	u.RawQuery = q.Encode()
	return u, nil
}

// FileURL is the file:// URL of a directory, made absolute.
func FileURL(dir string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	// On Windows C:\x becomes /C:/x, which openFileBucket turns back.
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return (&url.URL{Scheme: "file", Path: p}).String(), nil
}

// GCSBucketURL is the store URL for GCS_BUCKET_NAME, read as Gemini CLI's
// A2A server reads it: a bare bucket name. A gs:// prefix is tolerated; ""
// gives "".
func GCSBucketURL(name string) string {
	name = strings.TrimSpace(name)
	name = strings.TrimSuffix(strings.TrimPrefix(name, "gs://"), "/")
	if name == "" {
		return ""
	}
	return "gs://" + name
}

// unwrapURLError drops url.Error's repetition of the whole URL, which the
// caller's message already names.
func unwrapURLError(err error) error {
	if ue, ok := err.(*url.Error); ok {
		return ue.Err
	}
	return err
}

// oneLine keeps driver errors, some of which span lines, to one line.
func oneLine(err error) error {
	s := err.Error()
	if !strings.ContainsAny(s, "\r\n") {
		return err
	}
	return fmt.Errorf("%s", strings.Join(strings.Fields(s), " "))
}
