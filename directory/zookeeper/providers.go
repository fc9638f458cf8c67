package zookeeper

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/go-zookeeper/zk"

	"github.com/dubboroute/dubboroute/router"
)

// Providers is one state of an interface's provider list.
type Providers struct {
	Interface string
	// Path is the watched node, /dubbo/<URL-encoded interface>/providers.
	Path string
	// URLs are the providers that parse, in node-name order.
	URLs []*router.URL
	// Nodes are the child node names of URLs (URL-encoded), in the same
	// order.
	Nodes []string
	// Invalid are the child nodes whose names do not decode and parse as a
	// provider URL; they are left out of URLs (and logged once).
	Invalid []InvalidProvider
}

// InvalidProvider is a provider node whose name is not a URL-encoded URL.
type InvalidProvider struct {
	Node string
	Err  error
}

// ProvidersPath is the registry node of an interface's providers, as Java's
// ZookeeperRegistry.toCategoryPath builds it.
func (c *Client) ProvidersPath(iface string) (string, error) {
	return c.CategoryPath(iface, "providers")
}

// CategoryPath is the registry node of one category of an interface
// (providers, configurators, routers, consumers).
func (c *Client) CategoryPath(iface, category string) (string, error) {
	if strings.TrimSpace(iface) == "" {
		return "", errors.New("interface name is empty")
	}
	return c.opts.registryRoot + "/" + EncodeComponent(iface) + "/" + category, nil
}

// WatchProviders reports the provider list of an interface: first its
// current state (possibly empty, also when the node does not exist yet),
// then every change, until ctx ends or the client is closed; then the
// channel is closed. Lists are re-read after a new session, so providers
// that came or went while the session was lost are reported.
func (c *Client) WatchProviders(ctx context.Context, iface string) (<-chan Providers, error) {
	return c.WatchCategory(ctx, iface, "providers")
}

// WatchCategory is WatchProviders for another category of the interface,
// e.g. "configurators" (the registry override:// URLs of Dubbo 2.6, which
// Java consumers still apply): the child nodes that decode and parse as
// URLs, in the same Providers shape.
func (c *Client) WatchCategory(ctx context.Context, iface, category string) (<-chan Providers, error) {
	path, err := c.CategoryPath(iface, category)
	if err != nil {
		return nil, fmt.Errorf("zookeeper: watch %s: %w", category, err)
	}
	if err := c.checkOpen("watch " + category + " " + path); err != nil {
		return nil, err
	}
	out := make(chan Providers, 16)
	w := &providerWatch{c: c, iface: iface, path: path, out: out, logged: map[string]bool{}}
	runWatch(c, ctx, category+" "+path, out, func() (<-chan zk.Event, error) { return w.read(ctx) })
	return out, nil
}

// providerWatch is the state of one WatchProviders.
type providerWatch struct {
	c     *Client
	iface string
	path  string
	out   chan<- Providers

	reported bool
	last     []string        // sorted child names last reported
	logged   map[string]bool // invalid names already logged
}

func (w *providerWatch) read(ctx context.Context) (<-chan zk.Event, error) {
	children, _, ch, err := w.c.conn.ChildrenW(w.path)
	err = w.c.authErr("list", w.path, err)
	if errors.Is(err, zk.ErrNoNode) {
		if ch, err = w.c.armAbsent(w.path); err != nil || ch == fired {
			return ch, err
		}
		children = nil
	} else if err != nil {
		return nil, err
	}
	slices.Sort(children)
	if w.reported && slices.Equal(children, w.last) {
		return ch, nil
	}
	w.reported, w.last = true, children

	p := Providers{Interface: w.iface, Path: w.path, URLs: make([]*router.URL, 0, len(children))}
	for _, name := range children {
		u, err := parseProviderNode(name)
		if err != nil {
			p.Invalid = append(p.Invalid, InvalidProvider{Node: name, Err: err})
			if !w.logged[name] {
				w.logged[name] = true
				w.c.log.Warn("zookeeper: ignoring provider node that is not a URL-encoded URL", "path", w.path, "node", name, "err", err)
			}
			continue
		}
		p.URLs = append(p.URLs, u)
		p.Nodes = append(p.Nodes, name)
	}
	w.c.log.Debug("zookeeper: providers changed", "path", w.path, "providers", len(p.URLs), "invalid", len(p.Invalid))
	select {
	case w.out <- p:
		return ch, nil
	case <-ctx.Done():
		return nil, errStopped
	case <-w.c.closed:
		return nil, errStopped
	}
}

// encodedSchemeSeparator is "://" URL-encoded. Java's
// ZookeeperRegistry.toUrlsWithoutEmpty only takes children containing it.
const encodedSchemeSeparator = "%3A%2F%2F"

// parseProviderNode decodes and parses a provider node name.
func parseProviderNode(name string) (*router.URL, error) {
	if !strings.Contains(name, encodedSchemeSeparator) {
		return nil, fmt.Errorf("node name has no URL-encoded \"://\" (%s); Java's registry ignores it too", encodedSchemeSeparator)
	}
	u, err := router.ParseEncodedURL(name)
	if err != nil {
		return nil, err
	}
	if u.Host == "" {
		return nil, fmt.Errorf("provider URL %q has no host", u.Raw())
	}
	return u, nil
}
