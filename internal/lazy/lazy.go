// Package lazy holds values built on first use, declared as package-level
// variables the compiler lays out statically: unlike sync.OnceValue, whose
// call runs (and allocates) in the package's init at every start, a
// Value literal costs nothing until Get is called.
package lazy

import "sync"

// Value is a T built by New on the first call of Get and kept. Declare it
// as a composite literal whose New is a function literal capturing nothing
// (var x = lazy.Value[T]{New: func() T { ... }}), so that no init code
// runs; a Value must not be copied after first use.
type Value[T any] struct {
	// New builds the value, once.
	New func() T

	once  sync.Once
	valid bool
	p     any
	v     T
}

// Get returns the value, building it on the first call. As with
// sync.OnceValue, if New panicked every call panics with the same value.
func (l *Value[T]) Get() T {
	l.once.Do(l.build)
	if !l.valid {
		panic(l.p)
	}
	return l.v
}

func (l *Value[T]) build() {
	defer func() {
		l.p = recover()
		if !l.valid {
			panic(l.p)
		}
	}()
	l.v = l.New()
	l.valid = true
}
