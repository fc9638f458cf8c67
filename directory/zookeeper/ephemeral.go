package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/go-zookeeper/zk"
)

// DefaultHoldOff is how long a kept node must stay absent before Ephemeral
// re-creates it.
const DefaultHoldOff = time.Second

// EphemeralOptions configure KeepEphemeral.
type EphemeralOptions struct {
	// Data is what the node is created with. Every time the node is read
	// its current data replaces it, so a re-created node has the data the
	// node last had.
	Data []byte
	// Adopt: the data is not known yet; the node is only re-created after
	// it has been seen (and its data read) once. Without Adopt a missing
	// node is created with Data.
	Adopt bool
	// HoldOff is how long the node must stay absent before it is
	// (re-)created, so that a writer that deletes and re-creates it (as
	// dubbo-go's registries do when their session reconnects) is not
	// raced. Default DefaultHoldOff.
	HoldOff time.Duration
	// Created, if set, is called (in the keeper's goroutine) each time the
	// node is created, with the session that owns it.
	Created func(session int64)
	// Tighten: whenever the node is found with an ACL that lets anyone
	// write or delete it (dubbo-go creates every node with
	// world:anyone:cdrwa), replace it with the client's ACL (WithACL, or
	// the creator-only ACL of WithDigest). Nothing is done when the
	// client's own ACL is world-writable.
	Tighten bool
}

// Ephemeral keeps one ephemeral node alive, as Curator's PersistentNode in
// EPHEMERAL mode does for Java Dubbo: it watches the node, and when the node
// is gone (deleted, or removed with the session that owned it, which may be
// another client's) or this client's session is new, it creates the node
// again, ephemeral, with the data it last had. Whoever owns the node, it is
// only created after it has been absent for the hold-off, so a concurrent
// delete-and-create by its registering client is left alone.
type Ephemeral struct {
	c       *Client
	path    string
	holdOff time.Duration
	onNew   func(int64)
	tighten bool
	cancel  context.CancelFunc
	done    chan struct{}

	mu      sync.Mutex
	data    []byte
	known   bool  // data is known: the node may be created
	owner   int64 // session that owned the node when last read (0: absent)
	created int   // nodes this Ephemeral created
}

// KeepEphemeral starts keeping the node at path (its parents are created
// when missing) until Close or Release, or until the client is closed.
func (c *Client) KeepEphemeral(path string, o EphemeralOptions) (*Ephemeral, error) {
	if !strings.HasPrefix(path, "/") || strings.HasSuffix(path, "/") || strings.Contains(path, "//") {
		return nil, fmt.Errorf("zookeeper: keep ephemeral %q: not an absolute node path", path)
	}
	if err := c.checkOpen("keep ephemeral " + path); err != nil {
		return nil, err
	}
	if o.HoldOff <= 0 {
		o.HoldOff = DefaultHoldOff
	}
	ctx, cancel := context.WithCancel(context.Background())
	e := &Ephemeral{
		c: c, path: path, holdOff: o.HoldOff, onNew: o.Created, tighten: o.Tighten && !worldWritable(c.acl), cancel: cancel, done: make(chan struct{}),
		data: append([]byte(nil), o.Data...), known: !o.Adopt,
	}
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(e.done)
		c.watchLoop(ctx, "ephemeral "+path, func() (<-chan zk.Event, error) { return e.read(ctx) })
	}()
	return e, nil
}

// Path is the kept node.
func (e *Ephemeral) Path() string { return e.path }

// Created is how many times this Ephemeral created the node.
func (e *Ephemeral) Created() int {
	e.mu.Lock()
	defer e.mu.Unlock()
	return e.created
}

// Close stops keeping the node and waits (at most the client timeout) for
// a create in progress to end; the node is left as it is.
func (e *Ephemeral) Close() {
	e.cancel()
	select {
	case <-e.done:
	case <-time.After(e.c.opts.timeout):
	}
}

// Release stops keeping the node and deletes it if this client's session
// owns it (a node of another session, such as the registering client's, is
// left to that client). A missing node is not an error.
func (e *Ephemeral) Release(ctx context.Context) error {
	e.Close()
	err := e.c.do(ctx, func() error {
		_, stat, err := e.c.conn.Exists(e.path)
		if err != nil || stat == nil || stat.EphemeralOwner == 0 || stat.EphemeralOwner != e.c.conn.SessionID() {
			return err
		}
		return e.c.conn.Delete(e.path, stat.Version)
	})
	if err != nil && !errors.Is(err, zk.ErrNoNode) && !errors.Is(err, zk.ErrBadVersion) {
		return fmt.Errorf("zookeeper: release %s: %w", e.path, err)
	}
	return nil
}

// read reads the node and arms a watch on it; a node absent for the
// hold-off is created.
func (e *Ephemeral) read(ctx context.Context) (<-chan zk.Event, error) {
	data, stat, ch, err := e.c.conn.GetW(e.path)
	if err == nil {
		e.mu.Lock()
		newOwner := e.owner != stat.EphemeralOwner
		e.data, e.known, e.owner = data, true, stat.EphemeralOwner
		e.mu.Unlock()
		if e.tighten && newOwner {
			e.tightenACL()
		}
		return ch, nil
	}
	err = e.c.authErr("read", e.path, err)
	if !errors.Is(err, zk.ErrNoNode) {
		return nil, err
	}
	exists, _, ech, err := e.c.conn.ExistsW(e.path)
	if err != nil {
		return nil, err
	}
	if exists {
		return fired, nil // created in between: read again
	}
	e.mu.Lock()
	known, data, was := e.known, e.data, e.owner
	e.owner = 0
	e.mu.Unlock()
	if !known {
		return ech, nil // not seen yet: wait for its creator
	}
	if was != 0 {
		e.c.log.Warn("zookeeper: kept node is gone", "path", e.path, "owner", fmt.Sprintf("0x%x", was), "recreate_in", e.holdOff)
	}
	select {
	case <-ech:
		return fired, nil // created (or the session changed) meanwhile
	case <-time.After(e.holdOff):
	case <-ctx.Done():
		return nil, errStopped
	case <-e.c.closed:
		return nil, errStopped
	}
	if err := e.c.createParents(e.path); err != nil {
		return nil, err
	}
	_, err = e.c.conn.Create(e.path, data, zk.FlagEphemeral, e.c.acl)
	err = e.c.authErr("create", e.path, err)
	switch {
	case err == nil:
		e.mu.Lock()
		e.created++
		e.mu.Unlock()
		session := e.c.conn.SessionID()
		e.c.log.Warn("zookeeper: kept node re-created", "path", e.path, "session", fmt.Sprintf("0x%x", session))
		if e.onNew != nil {
			e.onNew(session)
		}
	case errors.Is(err, zk.ErrNodeExists):
	default:
		return nil, err
	}
	return fired, nil // read it back and watch it
}

// tightenACL replaces a world-writable ACL of the node with the client's.
func (e *Ephemeral) tightenACL() {
	acl, _, err := e.c.conn.GetACL(e.path)
	if err != nil || !worldWritable(acl) {
		return
	}
	if _, err := e.c.conn.SetACL(e.path, e.c.acl, -1); err != nil {
		e.c.log.Warn("zookeeper: kept node is world-writable and its ACL could not be tightened", "path", e.path, "acl", FormatACL(acl), "err", e.c.authErr("set the ACL of", e.path, err))
		return
	}
	e.c.log.Info("zookeeper: kept node's world-writable ACL replaced", "path", e.path, "was", FormatACL(acl), "now", FormatACL(e.c.acl))
}
