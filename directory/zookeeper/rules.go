package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/directory/watch"
)

// MaxRuleBytes is the largest rule PutRule writes. ZooKeeper's default
// jute.maxbuffer (1 MiB - 1) bounds a whole request packet, and a server
// answers a bigger one by dropping the connection; the margin leaves room
// for the path and the request header.
const MaxRuleBytes = 0xfffff - 4096

// RuleEvent is one change of a rule node.
type RuleEvent struct {
	Key  string
	Path string
	// Type is watch.Added when the node exists and did not before (it was
	// created, or the watch started and found it), with whatever content
	// it holds, empty included; watch.Updated when its content was
	// rewritten (possibly to empty); watch.Deleted when it is gone.
	// Whether a node's content (an empty one, say) means "no rule" is not
	// decided here: that is the reader's business
	// (extension/source.NewRuleEvent for dubboroute's consumers).
	Type watch.EventType
	// Content is the node's text ("" for watch.Deleted, and for an empty
	// node).
	Content string
	// Version is the node's data version, -1 when the node does not exist.
	// It does not identify the content: a node deleted and created again
	// (in one multi, or while a watcher was away) is back at version 0.
	Version int32
	// Revision identifies the content reported (the zero Revision when
	// the node does not exist).
	Revision Revision
}

// State is what the event says of its node: whether it exists, its content
// and its Revision.
func (e RuleEvent) State() (exists bool, content string, revision any) {
	return e.Type != watch.Deleted, e.Content, e.Revision
}

// Revision identifies one content of a node: the node (its creation zxid)
// and its last write (its modification zxid). Unlike the data version it
// changes whenever the content may have changed, also when the node was
// deleted and created again; the zero Revision stands for no node.
// Revisions are comparable with ==.
type Revision struct {
	Czxid, Mzxid int64
}

// IsZero reports whether r stands for no node.
func (r Revision) IsZero() bool { return r == Revision{} }

func (r Revision) String() string {
	if r.IsZero() {
		return "none"
	}
	return fmt.Sprintf("czxid=%#x,mzxid=%#x", r.Czxid, r.Mzxid)
}

func revisionOf(stat *zk.Stat) Revision { return Revision{Czxid: stat.Czxid, Mzxid: stat.Mzxid} }

// RulePath is the node of a rule key: <root>/<group>/<key>.
func (c *Client) RulePath(key string) (string, error) {
	if err := validateKey(key); err != nil {
		return "", err
	}
	return c.opts.root + "/" + c.opts.group + "/" + key, nil
}

func validateKey(key string) error {
	switch {
	case key == "":
		return errors.New("rule key is empty")
	case strings.Contains(key, "/"):
		return fmt.Errorf("rule key %q contains '/' (Dubbo Admin writes '*' for '/' in keys)", key)
	case key == "." || key == "..":
		return fmt.Errorf("rule key %q is not a node name", key)
	case strings.ContainsRune(key, 0):
		return fmt.Errorf("rule key %q contains a NUL byte", key)
	}
	return nil
}

// GetRule reads a rule: its content and data version. A missing node gives
// an error wrapping ErrNotFound.
func (c *Client) GetRule(ctx context.Context, key string) (content string, version int32, err error) {
	content, version, _, err = c.GetRuleRevision(ctx, key)
	return content, version, err
}

// GetRuleRevision reads a rule as GetRule does, and also the Revision that
// identifies the content read (what WatchRule's events carry).
func (c *Client) GetRuleRevision(ctx context.Context, key string) (content string, version int32, rev Revision, err error) {
	path, err := c.RulePath(key)
	if err != nil {
		return "", 0, Revision{}, fmt.Errorf("zookeeper: get rule: %w", err)
	}
	data, stat, err := c.getData(ctx, path)
	if err != nil {
		return "", 0, Revision{}, fmt.Errorf("zookeeper: get rule %s: %w", path, err)
	}
	return string(data), stat.Version, revisionOf(stat), nil
}

// PutRule writes a rule, creating the node and its missing parents as Dubbo
// Admin does, and returns the node's new data version. Empty content is
// written as such (a node without data, reported by WatchRule as content
// "", not as a delete).
func (c *Client) PutRule(ctx context.Context, key, content string) (int32, error) {
	path, err := c.RulePath(key)
	if err != nil {
		return 0, fmt.Errorf("zookeeper: put rule: %w", err)
	}
	if len(content) > MaxRuleBytes {
		return 0, fmt.Errorf("zookeeper: put rule %s: %d bytes is more than ZooKeeper accepts (%d)", path, len(content), MaxRuleBytes)
	}
	version, err := c.putData(ctx, path, []byte(content))
	if err != nil {
		return 0, fmt.Errorf("zookeeper: put rule %s: %w", path, err)
	}
	c.log.Info("zookeeper: rule written", "key", key, "path", path, "version", version)
	return version, nil
}

// createParents creates every missing ancestor of path as a persistent node
// with empty data.
func (c *Client) createParents(path string) error {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	prefix := ""
	for _, p := range parts[:len(parts)-1] {
		prefix += "/" + p
		_, err := c.conn.Create(prefix, nil, 0, c.acl)
		if err != nil && !errors.Is(err, zk.ErrNodeExists) {
			return fmt.Errorf("create parent %s: %w", prefix, c.authErr("create", prefix, err))
		}
	}
	return nil
}

// DeleteRule deletes a rule node. A missing node gives an error wrapping
// ErrNotFound.
func (c *Client) DeleteRule(ctx context.Context, key string) error {
	path, err := c.RulePath(key)
	if err != nil {
		return fmt.Errorf("zookeeper: delete rule: %w", err)
	}
	err = c.do(ctx, func() error { return c.authErr("delete", path, c.conn.Delete(path, -1)) })
	if err != nil {
		return opError("delete rule", path, err)
	}
	c.log.Info("zookeeper: rule deleted", "key", key, "path", path)
	return nil
}

// WatchRule reports the changes of a rule until ctx ends or the client is
// closed; then the channel is closed. The first event is the rule's state
// when the watch starts: watch.Added if the node exists (even empty), nothing
// if not.
// Changes made while the session was lost are reported once it is back.
func (c *Client) WatchRule(ctx context.Context, key string) (<-chan RuleEvent, error) {
	path, err := c.RulePath(key)
	if err != nil {
		return nil, fmt.Errorf("zookeeper: watch rule: %w", err)
	}
	if err := c.checkOpen("watch rule " + path); err != nil {
		return nil, err
	}
	out := make(chan RuleEvent, 16)
	w := &ruleWatch{c: c, key: key, path: path, out: out}
	runWatch(c, ctx, "rule "+path, out, func() (<-chan zk.Event, error) { return w.read(ctx) })
	return out, nil
}

// ruleWatch is the state of one WatchRule.
type ruleWatch struct {
	c    *Client
	key  string
	path string
	out  chan<- RuleEvent

	present bool  // the last reported state was an existing node
	czxid   int64 // creation and modification zxids of the last reported content
	mzxid   int64
}

// read reads the node, arms a watch and reports a change if there is one.
func (w *ruleWatch) read(ctx context.Context) (<-chan zk.Event, error) {
	data, stat, ch, err := w.c.conn.GetW(w.path)
	err = w.c.authErr("read", w.path, err)
	if errors.Is(err, zk.ErrNoNode) {
		ech, err := w.c.armAbsent(w.path)
		if err != nil || ech == fired || !w.present {
			return ech, err
		}
		w.present = false
		return ech, w.emit(ctx, RuleEvent{Type: watch.Deleted, Version: -1})
	}
	if err != nil {
		return nil, err
	}
	switch {
	case !w.present:
		w.present, w.czxid, w.mzxid = true, stat.Czxid, stat.Mzxid
		return ch, w.emit(ctx, RuleEvent{Type: watch.Added, Content: string(data), Version: stat.Version, Revision: revisionOf(stat)})
	case stat.Czxid != w.czxid || stat.Mzxid != w.mzxid:
		w.czxid, w.mzxid = stat.Czxid, stat.Mzxid
		return ch, w.emit(ctx, RuleEvent{Type: watch.Updated, Content: string(data), Version: stat.Version, Revision: revisionOf(stat)})
	}
	return ch, nil
}

func (w *ruleWatch) emit(ctx context.Context, ev RuleEvent) error {
	ev.Key, ev.Path = w.key, w.path
	w.c.log.Debug("zookeeper: rule changed", "key", w.key, "event", ev.Type.String(), "version", ev.Version)
	select {
	case w.out <- ev:
		return nil
	case <-ctx.Done():
		return errStopped
	case <-w.c.closed:
		return errStopped
	}
}

// errStopped ends a watch loop: its consumer is gone.
var errStopped = errors.New("watch stopped")

// armAbsent arms a watch on a node a read found missing: the exists
// watch, or fired when the node was created in between (read again).
func (c *Client) armAbsent(path string) (<-chan zk.Event, error) {
	exists, _, ch, err := c.conn.ExistsW(path)
	switch {
	case err != nil:
		return nil, err
	case exists:
		return fired, nil
	}
	return ch, nil
}

// fired is an already-fired watch: the loop reads again at once.
var fired = func() <-chan zk.Event {
	ch := make(chan zk.Event)
	close(ch)
	return ch
}()

// watchLoop runs read (which reads a node, reports changes and arms a
// watch) again after every watch notification and every new session, and
// retries with backoff after errors, until ctx ends or the client closes.
func (c *Client) watchLoop(ctx context.Context, what string, read func() (<-chan zk.Event, error)) {
	const minBackoff, maxBackoff = 100 * time.Millisecond, 5 * time.Second
	backoff := minBackoff
	for {
		if err := c.waitReady(ctx); err != nil {
			return
		}
		c.mu.Lock()
		resync := c.resync
		c.mu.Unlock()

		wch, err := read()
		if errors.Is(err, errStopped) {
			return
		}
		if err != nil {
			select {
			case <-ctx.Done():
				return
			case <-c.closed:
				return
			default:
			}
			var ae *AuthError
			switch {
			case transient(err):
				c.log.Debug("zookeeper: watch interrupted, retrying", "watch", what, "err", err)
			case errors.As(err, &ae):
				// Not transient, but an operator may fix the ACL or the
				// credentials: keep trying, slowly and loudly.
				backoff = maxBackoff
				c.log.Error("zookeeper: watch refused", "watch", what, "err", err, "retry_in", backoff)
			default:
				c.log.Warn("zookeeper: watch failed, retrying", "watch", what, "err", err, "retry_in", backoff)
			}
			select {
			case <-time.After(backoff):
			case <-ctx.Done():
				return
			case <-c.closed:
				return
			}
			backoff = min(2*backoff, maxBackoff)
			continue
		}
		backoff = minBackoff
		select {
		case <-wch: // changed, or the watch is gone with its session
		case <-resync:
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		}
	}
}
