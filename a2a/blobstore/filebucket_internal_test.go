package blobstore

import (
	"context"
	"errors"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// fixtureKeys are the keys of testdata/fileblob/keys, which gocloud's
// fileblob wrote (each object holds its key and a newline): plain ones,
// and ones it escaped in their file names.
var fixtureKeys = []string{
	"esc/__0xZZ__.json", "esc/__0x__.json", "esc/a__0x41__b.json", "esc/ctl\x01x.json",
	"esc/dots/../x.json", "esc/double//x.json", "plain/a.json",
}

func mustFileBucket(t *testing.T, dir, query string) Bucket {
	t.Helper()
	b, err := openFileBucket(&url.URL{Scheme: "file", Path: filepath.ToSlash(dir), RawQuery: query})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { b.Close() })
	return b
}

// TestFileBucketFileblobKeys: the bucket reads the files fileblob wrote
// under the keys fileblob wrote them, and writes those keys to the same
// file names.
func TestFileBucketFileblobKeys(t *testing.T) {
	ctx := t.Context()
	fixture, _ := filepath.Abs(filepath.Join("testdata", "fileblob", "keys"))
	b := mustFileBucket(t, fixture, "")
	objs, err := b.List(ctx, "")
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, o := range objs {
		keys = append(keys, o.Key)
		if data, err := b.ReadAll(ctx, o.Key); err != nil || string(data) != o.Key+"\n" {
			t.Errorf("ReadAll(%q) = %q, %v", o.Key, data, err)
		}
	}
	if !slices.Equal(keys, fixtureKeys) {
		t.Errorf("List = %q, want %q", keys, fixtureKeys)
	}
	if objs, err := b.List(ctx, "esc/d"); err != nil || len(objs) != 2 {
		t.Errorf(`List("esc/d") = %v, %v; want the two keys under it`, objs, err)
	}

	dir := t.TempDir()
	w := mustFileBucket(t, dir, "no_tmp_dir=1")
	for _, k := range fixtureKeys {
		if err := w.WriteAll(ctx, k, []byte(k+"\n"), false); err != nil {
			t.Fatal(err)
		}
	}
	if got, want := files(t, dir), files(t, fixture); !slices.Equal(got, want) {
		t.Errorf("wrote %q, fileblob %q", got, want)
	}
}

func files(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, filepath.ToSlash(rel))
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestBucketErrors: the buckets' errors read as gocloud's did, a missing
// object's is fs.ErrNotExist, and a closed bucket's says so.
func TestBucketErrors(t *testing.T) {
	ctx := t.Context()
	dir := t.TempDir()
	for _, tt := range []struct {
		name    string
		b       Bucket
		missing string // the error of reading "tasks/x/state.json"
	}{
		{"file", mustFileBucket(t, dir, ""), `blob (key "tasks/x/state.json") (code=NotFound): stat ` + filepath.Join(dir, "tasks", "x", "state.json") + `: no such file or directory`},
		{"mem", NewMemBucket(), `blob (key "tasks/x/state.json") (code=NotFound): blob not found`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.b.ReadAll(ctx, "tasks/x/state.json")
			if err == nil || err.Error() != tt.missing || !notFound(err) || closedBucket(err) {
				t.Errorf("ReadAll of a missing object: %v", err)
			}
			if err := tt.b.Delete(ctx, "tasks/x/state.json"); !notFound(err) {
				t.Errorf("Delete of a missing object: %v", err)
			}
			if err := tt.b.WriteAll(ctx, "tasks/x/state.json", []byte("{}\n"), true); err != nil {
				t.Fatal(err)
			}
			if b, err := tt.b.ReadPrefix(ctx, "tasks/x/state.json", 1); err != nil || string(b) != "{" {
				t.Errorf("ReadPrefix = %q, %v", b, err)
			}
			canceled, cancel := context.WithCancel(ctx)
			cancel()
			if err := tt.b.WriteAll(canceled, "tasks/x/state.json", []byte("[]\n"), true); !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "(code=Canceled)") {
				t.Errorf("a write under a canceled context: %v", err)
			}
			if b, err := tt.b.ReadAll(ctx, "tasks/x/state.json"); err != nil || string(b) != "{}\n" {
				t.Errorf("after the canceled write: %q, %v", b, err)
			}
			if err := tt.b.Close(); err != nil {
				t.Fatal(err)
			}
			_, err = tt.b.ReadAll(ctx, "tasks/x/state.json")
			if !closedBucket(err) || notFound(err) || err.Error() != "blob: Bucket has been closed (code=FailedPrecondition)" {
				t.Errorf("ReadAll of a closed bucket: %v", err)
			}
		})
	}
	if entries, _ := os.ReadDir(filepath.Join(dir, "tasks", "x")); len(entries) != 1 {
		t.Errorf("the file bucket left %d files, want state.json alone", len(entries))
	}
}

// TestOpenFileBucketOptions: fileblob's options and its refusals.
func TestOpenFileBucketOptions(t *testing.T) {
	dir := t.TempDir()
	for _, tt := range []struct {
		query, err string
	}{
		{"create_dir=1&dir_file_mode=0700&metadata=skip&no_tmp_dir=1", ""},
		{"metadata=", ""},
		{"metadata=json", "unsupported value for query parameter 'metadata'"},
		{"dir_file_mode=rwx", `invalid dir_file_mode "rwx"`},
		{"base_url=/x", "must supply both base_url and secret_key_path"},
		{"key=k", `invalid query parameter "key"`},
		{"region=x", `invalid query parameter "region"`},
	} {
		_, err := openFileBucket(&url.URL{Scheme: "file", Path: filepath.ToSlash(dir), RawQuery: tt.query})
		if tt.err == "" && err != nil || tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)) {
			t.Errorf("?%s: %v, want %q", tt.query, err, tt.err)
		}
	}
	file := filepath.Join(dir, "f")
	os.WriteFile(file, nil, 0o600)
	if _, err := openFileBucket(&url.URL{Scheme: "file", Path: filepath.ToSlash(file)}); err == nil || !strings.Contains(err.Error(), "is not a directory") {
		t.Errorf("a file as the directory: %v", err)
	}
	if _, err := openFileBucket(&url.URL{Scheme: "file", Path: filepath.ToSlash(filepath.Join(dir, "new"))}); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a missing directory without create_dir: %v", err)
	}
}
