//go:build cloudstore

package blobstore

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"

	"gocloud.dev/blob"
	"gocloud.dev/gcerrors"
)

// cloudScheme reports whether this binary opens scheme (gs, s3) through
// gocloud.dev/blob: whether gcs.go and s3.go registered its driver.
func cloudScheme(scheme string) bool { return blob.DefaultURLMux().ValidBucketScheme(scheme) }

// openCloudBucket opens a gs:// or s3:// URL (parseURL's form, the
// prefix in ?prefix=) through gocloud.dev/blob.
func openCloudBucket(ctx context.Context, u string) (Bucket, error) {
	b, err := blob.OpenBucket(ctx, u)
	if err != nil {
		return nil, err
	}
	return &cloudBucket{b: b}, nil
}

// cloudBucket is a gocloud.dev/blob bucket as a Bucket. Its errors are
// gocloud's, with their codes made the package's (cloudError).
type cloudBucket struct{ b *blob.Bucket }

// cloudError keeps a gocloud error's words and gives it the package's
// meaning: NotFound is fs.ErrNotExist, FailedPrecondition a closed
// bucket's.
type cloudError struct{ err error }

func (e *cloudError) Error() string { return e.err.Error() }
func (e *cloudError) Unwrap() error { return e.err }

// Is makes a NotFound error fs.ErrNotExist.
func (e *cloudError) Is(target error) bool {
	return target == fs.ErrNotExist && gcerrors.Code(e.err) == gcerrors.NotFound
}

// closed reports whether the error is a closed bucket's
// (FailedPrecondition), which closedBucket asks.
func (e *cloudError) closed() bool { return gcerrors.Code(e.err) == gcerrors.FailedPrecondition }

func cloudErr(err error) error {
	if err == nil {
		return nil
	}
	return &cloudError{err}
}

func (c *cloudBucket) ReadAll(ctx context.Context, key string) ([]byte, error) {
	b, err := c.b.ReadAll(ctx, key)
	return b, cloudErr(err)
}

func (c *cloudBucket) ReadPrefix(ctx context.Context, key string, n int64) ([]byte, error) {
	r, err := c.b.NewRangeReader(ctx, key, 0, n, nil)
	if err != nil {
		return nil, cloudErr(err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	return b, cloudErr(err)
}

func (c *cloudBucket) WriteAll(ctx context.Context, key string, b []byte, private bool) error {
	var opts *blob.WriterOptions
	if private {
		opts = &blob.WriterOptions{
			ContentType: "application/json",
			// Buckets keep their own access control; a driver that writes
			// a file would get 0600.
			BeforeWrite: func(as func(any) bool) error {
				var f *os.File
				if as(&f) {
					return f.Chmod(0o600)
				}
				return nil
			},
		}
	}
	return cloudErr(c.b.WriteAll(ctx, key, b, opts))
}

func (c *cloudBucket) Delete(ctx context.Context, key string) error {
	return cloudErr(c.b.Delete(ctx, key))
}

func (c *cloudBucket) List(ctx context.Context, prefix string) ([]Object, error) {
	var out []Object
	it := c.b.List(&blob.ListOptions{Prefix: prefix})
	for {
		obj, err := it.Next(ctx)
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, cloudErr(err)
		}
		if !obj.IsDir {
			out = append(out, Object{Key: obj.Key, ModTime: obj.ModTime})
		}
	}
}

func (c *cloudBucket) Close() error { return cloudErr(c.b.Close()) }
