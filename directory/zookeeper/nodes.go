package zookeeper

import (
	"context"
	"errors"
	"fmt"

	"github.com/go-zookeeper/zk"
)

// GetData reads the data of any node. A missing node gives an error
// wrapping ErrNotFound.
func (c *Client) GetData(ctx context.Context, path string) ([]byte, error) {
	data, _, err := c.getData(ctx, path)
	if err != nil {
		return nil, fmt.Errorf("zookeeper: get %s: %w", path, err)
	}
	return data, nil
}

// PutData writes data to a persistent node, creating it and its missing
// parents (empty, persistent) if needed.
func (c *Client) PutData(ctx context.Context, path string, data []byte) error {
	if _, err := c.putData(ctx, path, data); err != nil {
		return fmt.Errorf("zookeeper: put %s: %w", path, err)
	}
	return nil
}

// DeleteData deletes a node; a missing node is not an error.
func (c *Client) DeleteData(ctx context.Context, path string) error {
	err := c.do(ctx, func() error { return c.authErr("delete", path, c.conn.Delete(path, -1)) })
	if err != nil && !errors.Is(err, zk.ErrNoNode) {
		return fmt.Errorf("zookeeper: delete %s: %w", path, err)
	}
	return nil
}

// opError names the operation and the node of a failed request, "zookeeper:
// <op> <path>: ..."; a missing node wraps ErrNotFound (not zk.ErrNoNode).
// It is nil for a nil err.
func opError(op, path string, err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, zk.ErrNoNode):
		err = ErrNotFound
	}
	return fmt.Errorf("zookeeper: %s %s: %w", op, path, err)
}

// getData reads a node, waiting for a session within ctx; ErrNotFound when
// it does not exist.
func (c *Client) getData(ctx context.Context, path string) ([]byte, *zk.Stat, error) {
	data, stat, err := read(ctx, c, "read", path, (*zk.Conn).Get)
	if errors.Is(err, zk.ErrNoNode) {
		return nil, nil, ErrNotFound
	}
	if err != nil {
		return nil, nil, err
	}
	return data, stat, nil
}

// read runs one read request (get is the zk.Conn method) with do's waits,
// a refusal an *AuthError naming verb and path.
func read[T any](ctx context.Context, c *Client, verb, path string, get func(*zk.Conn, string) (T, *zk.Stat, error)) (T, *zk.Stat, error) {
	var v T
	var stat *zk.Stat
	err := c.do(ctx, func() error {
		var err error
		v, stat, err = get(c.conn, path)
		return c.authErr(verb, path, err)
	})
	return v, stat, err
}

// putData sets a node's data, creating it and its missing parents, and
// returns its new data version.
func (c *Client) putData(ctx context.Context, path string, data []byte) (int32, error) {
	var version int32
	err := c.do(ctx, func() error {
		for attempt := 0; attempt < 5; attempt++ {
			stat, err := c.conn.Set(path, data, -1)
			if err == nil {
				version = stat.Version
				return nil
			}
			if !errors.Is(err, zk.ErrNoNode) {
				return c.authErr("write", path, err)
			}
			if err := c.createParents(path); err != nil {
				return err
			}
			_, err = c.conn.Create(path, data, 0, c.acl)
			if err == nil {
				version = 0
				return nil
			}
			if !errors.Is(err, zk.ErrNodeExists) {
				return c.authErr("create", path, err)
			}
			// Someone else created it in between: set it.
		}
		return errors.New("node keeps appearing and disappearing")
	})
	return version, err
}
