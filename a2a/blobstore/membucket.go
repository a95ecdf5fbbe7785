package blobstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"
)

// memBucket keeps objects in memory: nothing survives the process.
type memBucket struct {
	mu      sync.Mutex
	objects map[string]memObject
	closed  bool
}

type memObject struct {
	data []byte
	mod  time.Time
}

// NewMemBucket returns an empty bucket in memory, which New can keep a
// store in (several stores may share it, as processes share a bucket).
func NewMemBucket() Bucket { return &memBucket{objects: map[string]memObject{}} }

// openMemBucket opens a mem:// URL, which takes gocloud memblob's one
// parameter (nomd5, of no effect here).
func openMemBucket(u *url.URL) (Bucket, error) {
	for k := range u.Query() {
		if k != "nomd5" {
			return nil, fmt.Errorf("open bucket %v: invalid query parameter %q", u, k)
		}
	}
	return NewMemBucket(), nil
}

// errMemNotFound is memblob's word for a missing object.
type errMemNotFound struct{}

func (errMemNotFound) Error() string { return "blob not found" }

// Is makes a missing object fs.ErrNotExist (keyError's NotFound).
func (errMemNotFound) Is(target error) bool { return target == fs.ErrNotExist }

// get returns key's object, or the error saying why not.
func (b *memBucket) get(key string) (memObject, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return memObject{}, closedError()
	}
	o, ok := b.objects[key]
	if !ok {
		return memObject{}, keyError(key, errMemNotFound{})
	}
	return o, nil
}

func (b *memBucket) ReadAll(ctx context.Context, key string) ([]byte, error) {
	o, err := b.get(key)
	if err != nil {
		return nil, err
	}
	return bytes.Clone(o.data), nil
}

func (b *memBucket) ReadPrefix(ctx context.Context, key string, n int64) ([]byte, error) {
	o, err := b.get(key)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(io.LimitReader(bytes.NewReader(o.data), n))
}

func (b *memBucket) WriteAll(ctx context.Context, key string, data []byte, private bool) error {
	if err := ctx.Err(); err != nil {
		return keyError(key, err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return closedError()
	}
	b.objects[key] = memObject{data: bytes.Clone(data), mod: time.Now()}
	return nil
}

func (b *memBucket) Delete(ctx context.Context, key string) error {
	if _, err := b.get(key); err != nil {
		return err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	delete(b.objects, key)
	return nil
}

func (b *memBucket) List(ctx context.Context, prefix string) ([]Object, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return nil, closedError()
	}
	var out []Object
	for k, o := range b.objects {
		if strings.HasPrefix(k, prefix) {
			out = append(out, Object{Key: k, ModTime: o.mod})
		}
	}
	slices.SortFunc(out, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
	return out, nil
}

func (b *memBucket) Close() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.closed {
		return closedError()
	}
	b.closed = true
	return nil
}
