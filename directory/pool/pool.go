package pool

import "sync"

// Pool is a set of clients by id (a string naming the settings a client
// was dialled with). The zero value is empty and ready; safe for
// concurrent use.
type Pool[C any] struct {
	mu sync.Mutex
	m  map[string]C
}

// Get returns the client of id, dialled by dial the first time. Dials run
// under the pool's lock, so an id is dialled once however many callers
// race; a failed dial is not kept (the next Get dials again).
func (p *Pool[C]) Get(id string, dial func() (C, error)) (C, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c, ok := p.m[id]; ok {
		return c, nil
	}
	c, err := dial()
	if err != nil {
		return c, err
	}
	if p.m == nil {
		p.m = map[string]C{}
	}
	p.m[id] = c
	return c, nil
}
