package harness

import (
	"errors"
	"fmt"
	"net/url"
	"path"
	"sort"
	"strings"
	"testing"
	"time"

	gozk "github.com/go-zookeeper/zk"
)

// RuleRoot is where Dubbo Admin (and Java Dubbo's ZooKeeper config center
// with its defaults) keeps rules: <RuleRoot>/<key>, group dubbo.
const RuleRoot = "/dubbo/config/dubbo"

// Rules is a plain ZooKeeper client that reads and writes rules the way
// Dubbo Admin does, and lists registered providers.
type Rules struct {
	// Conn is the raw go-zookeeper connection.
	Conn *gozk.Conn
}

// DialRules connects to the ZooKeeper at addr (host:port, or an ensemble
// host:port,host:port,...) for t and closes
// the connection when t ends. It fails t if no session is established
// within 10 s.
func DialRules(t testing.TB, addr string) *Rules {
	t.Helper()
	conn, events, err := gozk.Connect(strings.Split(addr, ","), 10*time.Second, gozk.WithLogInfo(false))
	if err != nil {
		t.Fatalf("harness: connect ZooKeeper %s: %v", addr, err)
	}
	t.Cleanup(conn.Close)
	deadline := time.After(10 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.State == gozk.StateHasSession {
				return &Rules{Conn: conn}
			}
		case <-deadline:
			t.Fatalf("harness: no ZooKeeper session with %s within 10s", addr)
		}
	}
}

// RulePath is the node of a rule key, e.g.
// /dubbo/config/dubbo/com.foo.Bar::.condition-router.
func RulePath(key string) string { return RuleRoot + "/" + key }

// Put writes content under key: creates the node (and missing parents,
// persistent, open ACL) or overwrites its data, as Dubbo Admin does.
func (r *Rules) Put(key, content string) error {
	p := RulePath(key)
	if err := r.ensureParents(p); err != nil {
		return err
	}
	_, err := r.Conn.Create(p, []byte(content), 0, gozk.WorldACL(gozk.PermAll))
	if errors.Is(err, gozk.ErrNodeExists) {
		_, err = r.Conn.Set(p, []byte(content), -1)
	}
	if err != nil {
		return fmt.Errorf("harness: write rule %s: %w", p, err)
	}
	return nil
}

// Recreate replaces key's node by deleting it and creating it again with
// content in one ZooKeeper transaction (multi), as a script or Dubbo Admin
// replacing a rule can: the new node is back at data version 0. It returns
// the new node's stat. The node must exist.
func (r *Rules) Recreate(key, content string) (*gozk.Stat, error) {
	p := RulePath(key)
	_, err := r.Conn.Multi(
		&gozk.DeleteRequest{Path: p, Version: -1},
		&gozk.CreateRequest{Path: p, Data: []byte(content), Acl: gozk.WorldACL(gozk.PermAll)},
	)
	if err != nil {
		return nil, fmt.Errorf("harness: re-create rule %s in one multi: %w", p, err)
	}
	_, stat, err := r.Conn.Get(p)
	if err != nil {
		return nil, fmt.Errorf("harness: read re-created rule %s: %w", p, err)
	}
	return stat, nil
}

// Delete removes key's node; a missing node is not an error.
func (r *Rules) Delete(key string) error {
	p := RulePath(key)
	if err := r.Conn.Delete(p, -1); err != nil && !errors.Is(err, gozk.ErrNoNode) {
		return fmt.Errorf("harness: delete rule %s: %w", p, err)
	}
	return nil
}

// Get returns key's content and whether the node exists.
func (r *Rules) Get(key string) (string, bool, error) {
	b, _, err := r.Conn.Get(RulePath(key))
	if errors.Is(err, gozk.ErrNoNode) {
		return "", false, nil
	}
	if err != nil {
		return "", false, fmt.Errorf("harness: read rule %s: %w", RulePath(key), err)
	}
	return string(b), true, nil
}

func (r *Rules) ensureParents(p string) error {
	dir := path.Dir(p)
	cur := ""
	for _, part := range strings.Split(strings.Trim(dir, "/"), "/") {
		cur += "/" + part
		_, err := r.Conn.Create(cur, nil, 0, gozk.WorldACL(gozk.PermAll))
		if err != nil && !errors.Is(err, gozk.ErrNodeExists) {
			return fmt.Errorf("harness: create %s: %w", cur, err)
		}
	}
	return nil
}

// Registered is one provider or consumer node under /dubbo/<interface>/.
type Registered struct {
	// Node is the raw (URL-encoded) child name; URL the decoded URL.
	Node string
	URL  *url.URL
}

// Addr is the registered host:port.
func (r Registered) Addr() string { return r.URL.Host }

// Param is a URL parameter of the registered URL.
func (r Registered) Param(k string) string { return r.URL.Query().Get(k) }

// Providers lists /dubbo/<iface>/providers, decoded and sorted by address.
func (r *Rules) Providers(iface string) ([]Registered, error) {
	return r.registered(iface, "providers")
}

// Consumers lists /dubbo/<iface>/consumers, decoded.
func (r *Rules) Consumers(iface string) ([]Registered, error) {
	return r.registered(iface, "consumers")
}

func (r *Rules) registered(iface, category string) ([]Registered, error) {
	dir := "/dubbo/" + url.PathEscape(iface) + "/" + category
	kids, _, err := r.Conn.Children(dir)
	if err != nil {
		return nil, fmt.Errorf("harness: list %s: %w", dir, err)
	}
	out := make([]Registered, 0, len(kids))
	for _, k := range kids {
		raw, err := url.QueryUnescape(k)
		if err != nil {
			return nil, fmt.Errorf("harness: decode %s/%s: %w", dir, k, err)
		}
		u, err := url.Parse(raw)
		if err != nil {
			return nil, fmt.Errorf("harness: parse %s/%s: %w", dir, raw, err)
		}
		out = append(out, Registered{Node: k, URL: u})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].URL.Host < out[j].URL.Host })
	return out, nil
}
