package nacos

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dubboroute/dubboroute/directory/watch"
)

// listenerPath is the 1.x long-polling config listener.
const listenerPath = "/v1/cs/configs/listener"

// ConfigEvent is one change of a watched config.
type ConfigEvent struct {
	// Key is the Dubbo key watched with WatchRule ("" for WatchConfig).
	Key       string
	DataID    string
	Group     string
	Namespace string // "" for public
	// Type is watch.Added when the config exists and did not before (or
	// the watch started and found it), watch.Updated when its content
	// changed (a new MD5), watch.Deleted when it is gone.
	Type watch.EventType
	// Content is the config text ("" for watch.Deleted).
	Content string
	// MD5 is the content's MD5, the revision ("" for watch.Deleted).
	MD5 string
}

// State is what the event says of its config: whether it exists, its
// content and its revision (the MD5).
func (e ConfigEvent) State() (exists bool, content string, revision any) {
	return e.Type != watch.Deleted, e.Content, e.MD5
}

// WatchRule watches the rule of a Dubbo config key (DataID(key), the
// client's group); see WatchConfig.
func (c *Client) WatchRule(ctx context.Context, key string) (<-chan ConfigEvent, error) {
	if key == "" {
		return nil, errors.New("nacos: watch rule: key is empty")
	}
	return c.watchConfig(ctx, key, "", DataID(key))
}

// WatchConfig reports the changes of a config of group ("" for the
// client's group) until ctx ends or the client closes; then the channel is
// closed. The first event is the config's state when the watch starts:
// watch.Added if it exists, nothing if not. Events come in the order the
// client read the states; a watcher that reads slowly gets the latest
// state, never an older one after a newer. Changes made while the server
// was unreachable are reported once it answers again.
func (c *Client) WatchConfig(ctx context.Context, group, dataID string) (<-chan ConfigEvent, error) {
	return c.watchConfig(ctx, "", group, dataID)
}

func (c *Client) watchConfig(ctx context.Context, key, group, dataID string) (<-chan ConfigEvent, error) {
	if group == "" {
		group = c.opts.group
	}
	if _, err := c.configParams(group, dataID); err != nil {
		return nil, fmt.Errorf("nacos: watch config: %w", err)
	}
	if c.isClosed() {
		return nil, fmt.Errorf("nacos: watch config %s: %w", c.Where(group, dataID), ErrClosed)
	}
	out := make(chan ConfigEvent, 16)
	s := &sub{key: key, at: configKey{dataID: dataID, group: group}, out: out, signal: make(chan struct{}, 1)}
	c.watch.add(s)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(out)
		defer c.watch.remove(s)
		s.run(ctx, c)
	}()
	return out, nil
}

// configKey is a watched config in the client's namespace.
type configKey struct{ dataID, group string }

// state is what the client last read of a config.
type state struct {
	known   bool // read since it was added or since the last failure
	present bool
	content string
	md5     string
}

// entry is one watched config and its watchers.
type entry struct {
	state
	subs map[*sub]struct{}
}

// sub is one watch: its own goroutine turns the entry's latest state into
// events, so a slow reader never holds the poller up and never sees an
// older state after a newer one.
type sub struct {
	key    string
	at     configKey
	out    chan ConfigEvent
	signal chan struct{} // capacity 1: the entry's state changed

	present bool // what this watcher was last told
	md5     string
}

func (s *sub) poke() {
	select {
	case s.signal <- struct{}{}:
	default:
	}
}

func (s *sub) run(ctx context.Context, c *Client) {
	for {
		select {
		case <-s.signal:
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		}
		st, ok := c.watch.stateOf(s.at)
		if !ok || !st.known {
			continue
		}
		ev := ConfigEvent{Key: s.key, DataID: s.at.dataID, Group: s.at.group, Namespace: c.opts.namespace}
		switch {
		case st.present && !s.present:
			ev.Type, ev.Content, ev.MD5 = watch.Added, st.content, st.md5
		case st.present && st.md5 != s.md5:
			ev.Type, ev.Content, ev.MD5 = watch.Updated, st.content, st.md5
		case !st.present && s.present:
			ev.Type = watch.Deleted
		default:
			continue
		}
		s.present, s.md5 = st.present, st.md5
		c.log.Debug("nacos: config changed", "dataId", s.at.dataID, "group", s.at.group, "event", ev.Type.String(), "md5", ev.MD5)
		select {
		case s.out <- ev:
		case <-ctx.Done():
			return
		case <-c.closed:
			return
		}
	}
}

// watcher is a client's config listener: one goroutine that reads the
// watched configs it does not know yet and long-polls the server with the
// MD5s of all of them.
type watcher struct {
	c *Client

	mu         sync.Mutex
	entries    map[configKey]*entry
	running    bool
	wake       chan struct{}      // capacity 1: the set of keys changed
	pollCancel context.CancelFunc // ends the long-poll under way
}

func (w *watcher) init(c *Client) {
	w.c = c
	w.entries = map[configKey]*entry{}
	w.wake = make(chan struct{}, 1)
}

func (w *watcher) add(s *sub) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.entries[s.at]
	if !ok {
		e = &entry{subs: map[*sub]struct{}{}}
		w.entries[s.at] = e
		w.kickLocked()
	}
	e.subs[s] = struct{}{}
	if e.known {
		s.poke()
	}
	if !w.running {
		w.running = true
		w.c.wg.Add(1)
		go func() {
			defer w.c.wg.Done()
			w.loop()
		}()
	}
}

func (w *watcher) remove(s *sub) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.entries[s.at]
	if !ok {
		return
	}
	delete(e.subs, s)
	if len(e.subs) == 0 {
		delete(w.entries, s.at)
		w.kickLocked()
	}
}

// kickLocked makes the poller send a new long-poll for the new key set.
func (w *watcher) kickLocked() {
	if w.pollCancel != nil {
		w.pollCancel()
		w.pollCancel = nil
	}
	select {
	case w.wake <- struct{}{}:
	default:
	}
}

func (w *watcher) stateOf(k configKey) (state, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.entries[k]
	if !ok {
		return state{}, false
	}
	return e.state, true
}

// unknown lists the watched configs not read since they were added or
// since the last failure.
func (w *watcher) unknown() []configKey {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []configKey
	for k, e := range w.entries {
		if !e.known {
			out = append(out, k)
		}
	}
	return out
}

// set records a config's state and tells its watchers; it reports
// whether the state differs from the one known before.
func (w *watcher) set(k configKey, st state) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	e, ok := w.entries[k]
	if !ok {
		return false
	}
	changed := e.present != st.present || e.md5 != st.md5
	e.state = st
	for s := range e.subs {
		s.poke()
	}
	return changed
}

// forget marks configs as not known, so they are read again.
func (w *watcher) forget(keys []configKey) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, k := range keys {
		if e, ok := w.entries[k]; ok {
			e.known = false
		}
	}
}

func (w *watcher) forgetAll() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, e := range w.entries {
		e.known = false
	}
}

// pollSet builds the Listening-Configs of every known config, and a
// context for the long-poll that ends when the key set changes.
func (w *watcher) pollSet() (string, context.Context, context.CancelFunc, bool) {
	w.mu.Lock()
	defer w.mu.Unlock()
	var b strings.Builder
	for k, e := range w.entries {
		if !e.known {
			// Added since unknown() ran: read it first.
			return "", nil, nil, false
		}
		md5 := ""
		if e.present {
			md5 = e.md5
		}
		b.WriteString(k.dataID)
		b.WriteByte(2)
		b.WriteString(k.group)
		b.WriteByte(2)
		b.WriteString(md5)
		if ns := w.c.opts.namespace; ns != "" {
			b.WriteByte(2)
			b.WriteString(ns)
		}
		b.WriteByte(1)
	}
	// Drain a wake-up for a key set this poll already covers.
	select {
	case <-w.wake:
	default:
	}
	if b.Len() == 0 {
		return "", nil, nil, true
	}
	ctx, cancel := context.WithCancel(w.c.ctx)
	w.pollCancel = cancel
	return b.String(), ctx, cancel, true
}

// loop is the poller, until the client closes.
func (w *watcher) loop() {
	c := w.c
	const minBackoff, maxBackoff = 100 * time.Millisecond, 2 * time.Second
	backoff := minBackoff
	failing := false
	polled := false // the keys read next were named by a poll
	fail := func(what string, err error) {
		if !failing {
			c.log.Warn("nacos: config listener lost the server; retrying, and re-reading every watched config when it answers",
				"servers", strings.Join(c.addrs, ","), "while", what, "err", err)
		}
		failing = true
		w.forgetAll()
		select {
		case <-time.After(backoff):
		case <-c.closed:
		}
		backoff = min(2*backoff, maxBackoff)
	}
	spurious := false // the last poll named configs whose reads changed nothing
	for !c.isClosed() {
		if spurious {
			// A server whose listener keeps naming configs that read the
			// same (an MD5 it computes otherwise) must not make this a
			// busy loop.
			select {
			case <-time.After(time.Second):
			case <-c.closed:
			}
		}
		keys := w.unknown()
		ok, changed := true, false
		for _, k := range keys {
			st, err := w.read(k)
			if err != nil {
				if !c.isClosed() {
					fail("reading "+c.Where(k.group, k.dataID), err)
				}
				ok = false
				break
			}
			if w.set(k, st) {
				changed = true
			}
		}
		if !ok {
			spurious = false
			continue
		}
		spurious = polled && len(keys) > 0 && !changed
		polled = false
		if failing {
			failing = false
			c.log.Info("nacos: config listener reconnected; watched configs re-read", "servers", strings.Join(c.addrs, ","), "configs", len(keys))
		}
		backoff = minBackoff
		list, ctx, cancel, ready := w.pollSet()
		if !ready {
			continue
		}
		if list == "" {
			select {
			case <-w.wake:
			case <-c.closed:
			}
			continue
		}
		named, err := w.poll(ctx, list)
		kicked := ctx.Err() != nil
		cancel()
		if err != nil {
			if kicked || c.isClosed() {
				continue // the key set changed, or the client closed
			}
			fail("long-polling the config listener", err)
			continue
		}
		w.forget(named)
		polled = len(named) > 0
	}
}

// read reads one watched config.
func (w *watcher) read(k configKey) (state, error) {
	content, sum, err := w.c.GetConfig(w.c.ctx, k.group, k.dataID)
	if errors.Is(err, ErrNotFound) {
		return state{known: true}, nil
	}
	if err != nil {
		return state{}, err
	}
	return state{known: true, present: true, content: content, md5: sum}, nil
}

// poll sends one long-poll and returns the configs the server says
// changed (none when it timed out).
func (w *watcher) poll(ctx context.Context, list string) ([]configKey, error) {
	c := w.c
	pt := c.opts.pollTimeout
	resp, err := c.Call(ctx, Request{
		Method:  http.MethodPost,
		Path:    listenerPath,
		Params:  url.Values{"Listening-Configs": {list}},
		Header:  http.Header{"Long-Pulling-Timeout": {strconv.FormatInt(pt.Milliseconds(), 10)}},
		Timeout: pt + pt/2,
	})
	if err != nil {
		return nil, err
	}
	return parseChanged(string(resp.Body), c.opts.namespace)
}

// parseChanged decodes the listener's answer: URL-encoded
// "dataId\x02group[\x02tenant]\x01" items. Items of another namespace are
// left out.
func parseChanged(body, namespace string) ([]configKey, error) {
	body = strings.TrimSpace(body)
	if body == "" {
		return nil, nil
	}
	dec, err := url.QueryUnescape(body)
	if err != nil {
		return nil, fmt.Errorf("listener answer %q: %w", cut(body, 200), err)
	}
	var out []configKey
	for _, item := range strings.Split(dec, "\x01") {
		if item == "" {
			continue
		}
		f := strings.Split(item, "\x02")
		if len(f) < 2 {
			return nil, fmt.Errorf("listener answer item %q: want dataId, group[, tenant]", cut(item, 200))
		}
		ns := ""
		if len(f) > 2 && f[2] != "public" {
			ns = f[2]
		}
		if ns != namespace {
			continue
		}
		out = append(out, configKey{dataID: f[0], group: f[1]})
	}
	return out, nil
}
