package cli

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/dubboroute/dubboroute/directory/nacos"
	"github.com/dubboroute/dubboroute/directory/watch"
	"github.com/dubboroute/dubboroute/directory/zookeeper"
)

// ruleStore is a config center that keeps rules: ZooKeeper (zkStore) or
// Nacos (nacosStore). get, push, rm, watch and explain work on either.
type ruleStore interface {
	// Where names where key's rule lives, for messages: the node path on
	// ZooKeeper, "Nacos dataId D group G namespace N" on Nacos.
	Where(key string) string
	// Fields are the JSON fields that say where key's rule lives.
	Fields(key string) map[string]any
	// Get reads a rule; a missing rule gives an error wrapping errNoRule.
	Get(ctx context.Context, key string) (string, revision, error)
	// Put writes a rule.
	Put(ctx context.Context, key, content string) (revision, error)
	// Delete deletes a rule; a missing rule gives an error wrapping errNoRule.
	Delete(ctx context.Context, key string) error
	// Watch reports each state of key until ctx ends.
	Watch(ctx context.Context, key string) (<-chan storeEvent, error)
	Close()
}

// errNoRule reports a rule that does not exist.
var errNoRule = errors.New("does not exist")

// revision is a stored rule's revision: the node's data version on
// ZooKeeper, the content MD5 on Nacos.
type revision struct {
	zk      bool
	version int32
	md5     string
}

func (r revision) String() string {
	if r.zk {
		return fmt.Sprintf("data version %d", r.version)
	}
	if r.md5 == "" {
		return "no md5"
	}
	return "md5 " + r.md5
}

// fields are the JSON fields of a revision.
func (r revision) fields(m map[string]any) map[string]any {
	if r.zk {
		m["version"] = r.version
	} else {
		m["md5"] = r.md5
	}
	return m
}

// storeEvent is one change of a watched rule.
type storeEvent struct {
	Key     string
	Type    string // add, update, delete
	Content string
	Rev     revision
}

// storeFlags are the connection flags of get, push, rm and watch: --zk or
// --nacos and their settings.
type storeFlags struct {
	zk, root                    string
	sec                         zkSecFlags
	nacos, namespace, nacosAuth string
	group                       string
	timeout                     time.Duration
}

func addStoreFlags(fs *flagSet, withACL bool) *storeFlags {
	z := &storeFlags{}
	fs.StringVar(&z.zk, "zk", "", "ZooKeeper `host:port` (comma-separated ensemble); this or --nacos is required")
	addZKSecFlags(fs, &z.sec, withACL)
	fs.StringVar(&z.root, "root", zookeeper.DefaultRoot, "ZooKeeper config-center root `path` (Java's dubbo.config-center.root-path)")
	fs.StringVar(&z.nacos, "nacos", "", "Nacos `host:port` (comma-separated cluster; HTTP OpenAPI port)")
	fs.StringVar(&z.namespace, "namespace", "", "Nacos `namespace` id (default public; Dubbo's \"dubbo\" is public too)")
	fs.StringVar(&z.nacosAuth, "nacos-auth", "", "Nacos credentials `user:pass` (Nacos auth login)")
	fs.StringVar(&z.group, "group", zookeeper.DefaultGroup, "config-center `group` (ZooKeeper path segment, Nacos group)")
	fs.DurationVar(&z.timeout, "timeout", zookeeper.DefaultTimeout, "connect and operation `timeout`")
	return z
}

// open connects to the config center the flags name.
func (z *storeFlags) open(fs *flagSet) (ruleStore, int, bool) {
	switch {
	case z.zk == "" && z.nacos == "":
		return nil, fs.usageErr("--zk or --nacos is required"), false
	case z.zk != "" && z.nacos != "":
		return nil, fs.usageErr("give --zk or --nacos, not both"), false
	case z.timeout <= 0:
		return nil, fs.usageErr("--timeout must be positive"), false
	case z.nacos != "" && (z.sec.set() || z.root != zookeeper.DefaultRoot):
		return nil, fs.usageErr("--digest, --digest-file, --acl, --tls* and --root are ZooKeeper settings; with --nacos use --namespace, --group, --nacos-auth"), false
	case z.zk != "" && (z.namespace != "" || z.nacosAuth != ""):
		return nil, fs.usageErr("--namespace and --nacos-auth are Nacos settings"), false
	}
	var (
		st  ruleStore
		err error
	)
	if z.nacos != "" {
		st, err = dialNacosStore(z.nacos, z.namespace, z.group, z.nacosAuth, z.timeout)
	} else {
		var c *zookeeper.Client
		c, err = dialZK(z.zk, z.root, z.group, "", z.timeout, &z.sec)
		st = zkStore{c}
	}
	if err != nil {
		return nil, fail(fs.sio, strings.TrimPrefix(fs.Name(), programName+" "), err), false
	}
	return st, 0, true
}

// keyAndOpen is the start of a command that takes exactly one key and
// talks to a config center: parse the flags, take the key, connect.
func (z *storeFlags) keyAndOpen(fs *flagSet, args []string) (string, ruleStore, int, bool) {
	pos, code, ok := fs.parse(args)
	if !ok {
		return "", nil, code, false
	}
	key, code, ok := oneKey(fs, pos, 0)
	if !ok {
		return "", nil, code, false
	}
	st, code, ok := z.open(fs)
	if !ok {
		return "", nil, code, false
	}
	return key, st, 0, true
}

// zkStore is ruleStore on ZooKeeper.
type zkStore struct{ c *zookeeper.Client }

func (s zkStore) Where(key string) string {
	p, err := s.c.RulePath(key)
	if err != nil {
		return key
	}
	return p
}

func (s zkStore) Fields(key string) map[string]any {
	return map[string]any{"path": s.Where(key)}
}

func (s zkStore) Get(ctx context.Context, key string) (string, revision, error) {
	content, v, err := s.c.GetRule(ctx, key)
	if err != nil {
		return "", revision{}, noRule(err, zookeeper.ErrNotFound, "node "+s.Where(key))
	}
	return content, revision{zk: true, version: v}, nil
}

func (s zkStore) Put(ctx context.Context, key, content string) (revision, error) {
	v, err := s.c.PutRule(ctx, key, content)
	return revision{zk: true, version: v}, err
}

func (s zkStore) Delete(ctx context.Context, key string) error {
	return noRule(s.c.DeleteRule(ctx, key), zookeeper.ErrNotFound, "node "+s.Where(key))
}

func (s zkStore) Watch(ctx context.Context, key string) (<-chan storeEvent, error) {
	ch, err := s.c.WatchRule(ctx, key)
	if err != nil {
		return nil, err
	}
	return watch.Relay(ctx, ch, func(ev zookeeper.RuleEvent) storeEvent {
		return storeEvent{Key: ev.Key, Type: ev.Type.String(), Content: ev.Content, Rev: revision{zk: true, version: ev.Version}}
	}), nil
}

func (s zkStore) Close() { s.c.Close() }

// nacosStore is ruleStore on Nacos: dataId = the key (with Java's '$' and
// '/' rewrites), the group and namespace of the flags.
type nacosStore struct{ c *nacos.Client }

func dialNacosStore(addr, namespace, group, auth string, timeout time.Duration) (nacosStore, error) {
	opts := []nacos.Option{nacos.WithTimeout(timeout), nacos.WithNamespace(nacos.NamespaceFromDubbo(namespace)), nacos.WithGroup(group)}
	if auth != "" {
		user, pass, ok := strings.Cut(auth, ":")
		if !ok {
			return nacosStore{}, errors.New("--nacos-auth: want user:pass")
		}
		opts = append(opts, nacos.WithCredentials(user, pass))
	}
	c, err := nacos.Dial(strings.Split(addr, ","), opts...)
	if err != nil {
		return nacosStore{}, fmt.Errorf("connect to Nacos %s: %w", addr, err)
	}
	return nacosStore{c}, nil
}

func (s nacosStore) Where(key string) string {
	return "Nacos " + s.c.Where("", nacos.DataID(key))
}

func (s nacosStore) Fields(key string) map[string]any {
	ns := s.c.Namespace()
	if ns == "" {
		ns = "public"
	}
	return map[string]any{"dataId": nacos.DataID(key), "group": s.c.Group(), "namespace": ns}
}

func (s nacosStore) Get(ctx context.Context, key string) (string, revision, error) {
	content, md5, err := s.c.GetRule(ctx, key)
	if err != nil {
		return "", revision{}, noRule(err, nacos.ErrNotFound, s.Where(key))
	}
	return content, revision{md5: md5}, nil
}

func (s nacosStore) Put(ctx context.Context, key, content string) (revision, error) {
	md5, err := s.c.PutRule(ctx, key, content)
	return revision{md5: md5}, err
}

func (s nacosStore) Delete(ctx context.Context, key string) error {
	return noRule(s.c.DeleteRule(ctx, key), nacos.ErrNotFound, s.Where(key))
}

func (s nacosStore) Watch(ctx context.Context, key string) (<-chan storeEvent, error) {
	ch, err := s.c.WatchRule(ctx, key)
	if err != nil {
		return nil, err
	}
	return watch.Relay(ctx, ch, func(ev nacos.ConfigEvent) storeEvent {
		return storeEvent{Key: key, Type: ev.Type.String(), Content: ev.Content, Rev: revision{md5: ev.MD5}}
	}), nil
}

func (s nacosStore) Close() { s.c.Close() }

// noRule is err, or, when err is the store client's notFound, errNoRule
// naming where the rule was looked for.
func noRule(err, notFound error, where string) error {
	if errors.Is(err, notFound) {
		return fmt.Errorf("%s %w", where, errNoRule)
	}
	return err
}
