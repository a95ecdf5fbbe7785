package pgstore

import "context"

// Pool is the store's connection pool, for tests that keep it busy.
func (s *Store) Pool() TestPool { return TestPool{s.pool} }

// TestPool hands out the pool's connections.
type TestPool struct{ p *pool }

// Acquire takes a connection from the pool until its Release.
func (p TestPool) Acquire(ctx context.Context) (*TestConn, error) {
	c, err := p.p.acquire(ctx)
	if err != nil {
		return nil, err
	}
	return &TestConn{p.p, c}, nil
}

// TestConn is a connection taken from the pool.
type TestConn struct {
	p *pool
	c *poolConn
}

// Release gives the connection back.
func (c *TestConn) Release() { c.p.release(c.c) }
