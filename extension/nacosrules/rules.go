package nacosrules

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"

	dnacos "github.com/dubboroute/dubboroute/directory/nacos"
	"github.com/dubboroute/dubboroute/directory/pool"
	"github.com/dubboroute/dubboroute/extension/source"
)

// Protocol is the config-center protocol this package registers its rule
// source for.
const Protocol = "nacos"

// RuleGroupKey is the config-center URL parameter (dubbo.config-center.params)
// that moves the Nacos group of rule keys; default dnacos.DefaultGroup
// ("dubbo"), where Java's routers and configurators read and Dubbo Admin
// writes, whatever config-center.group says (Java uses that group only for
// the external dubbo.properties, never for rules; dubbo-go v3.3.2 reads
// rules in it, DEFAULT_GROUP by default, and so misses Admin's rules).
const RuleGroupKey = "dubboroute.rule-group"

// Register registers Nacos's rule source (package extension/source). The
// package's init calls it; calling it again is harmless.
func Register() { source.RegisterRuleSource(Protocol, ruleSource{}) }

// clients are dubboroute's Nacos config clients, one per cluster and
// settings, shared by every rule key of the process and kept for its
// lifetime (as dubbo-go keeps its config-center client). Package state
// because the rule keys are read through the process's rule store from
// config centers dubbo-go builds with no context. (nacosfollow keeps the
// naming clients, which take no group, timeout or logger.)
var clients pool.Pool[*dnacos.Client]

// Settings is where a config-center URL says rules live.
type Settings struct {
	Addrs     []string
	Namespace string // Nacos namespace id, "" for public
	Group     string
	Username  string
	Password  string
	Timeout   time.Duration
}

// SettingsOf reads a dubbo-go config-center URL: the address list, the
// namespace (config-center.namespace; Dubbo's default "dubbo" is Nacos's
// public namespace, as Java's NacosDynamicConfigurationFactory maps it),
// the rule group (RuleGroupKey, default "dubbo"), credentials (the URL's
// userinfo, else username/password parameters) and timeout.
func SettingsOf(cu *common.URL) Settings {
	s := Settings{
		Addrs:     strings.Split(cu.Location, ","),
		Namespace: dnacos.NamespaceFromDubbo(cu.GetParam(constant.ConfigNamespaceKey, cu.GetParam("namespace", ""))),
		Group:     cu.GetParam(RuleGroupKey, dnacos.DefaultGroup),
		Username:  cu.Username,
		Password:  cu.Password,
		Timeout:   cu.GetParamDuration(constant.ConfigTimeoutKey, dnacos.DefaultTimeout.String()),
	}
	if s.Username == "" {
		s.Username = cu.GetParam(constant.NacosUsername, cu.GetParam("username", ""))
		s.Password = cu.GetParam(constant.NacosPassword, cu.GetParam("password", ""))
	}
	if s.Timeout <= 0 {
		s.Timeout = dnacos.DefaultTimeout
	}
	return s
}

func (s Settings) id() string {
	return fmt.Sprintf("%s|ns=%s|group=%s|user=%s|pw=%d|t=%v", strings.Join(s.Addrs, ","), s.Namespace, s.Group, s.Username, len(s.Password), s.Timeout)
}

// Client returns the shared client for s. It does not wait for a server:
// rule reads and watches wait for one (a consumer starts while Nacos is
// down and picks its rules up when it is back).
func Client(s Settings) (*dnacos.Client, error) {
	return clients.Get(s.id(), func() (*dnacos.Client, error) {
		opts := []dnacos.Option{
			dnacos.WithNamespace(s.Namespace), dnacos.WithGroup(s.Group), dnacos.WithTimeout(s.Timeout),
			dnacos.WithLogger(slog.New(gostHandler{})),
		}
		if s.Username != "" {
			opts = append(opts, dnacos.WithCredentials(s.Username, s.Password))
		}
		return dnacos.New(s.Addrs, opts...)
	})
}

// ruleSource reads and follows rule keys with dubboroute's own Nacos
// client.
type ruleSource struct{}

// DubboGoGroup is the group dubbo-go v3.3.2 itself reads rules from on a
// Nacos config center: config-center.group, default DEFAULT_GROUP.
func DubboGoGroup(cu *common.URL) string {
	return cu.GetParam(constant.NacosGroupKey, cu.GetParam(constant.ConfigGroupKey, dnacos.DefaultNamingGroup))
}

// Open implements source.RuleSource. Rules are read in Admin's group
// (SettingsOf) and, unless the rule group was moved explicitly or is the
// same, in the group dubbo-go itself reads (DubboGoGroup): Admin's wins
// when both hold a key (source.Layered).
func (ruleSource) Open(cu *common.URL) (source.RuleClient, error) {
	s := SettingsOf(cu)
	c, err := Client(s)
	if err != nil {
		return nil, fmt.Errorf("nacos config center %s: %w", cu.Location, err)
	}
	goGroup := DubboGoGroup(cu)
	if goGroup == s.Group || cu.GetParam(RuleGroupKey, "") != "" {
		return ruleClient{c}, nil
	}
	s2 := s
	s2.Group = goGroup
	c2, err := Client(s2)
	if err != nil {
		return nil, fmt.Errorf("nacos config center %s, group %s: %w", cu.Location, goGroup, err)
	}
	return source.Layered{Primary: ruleClient{c}, Secondary: ruleClient{c2}, PrimaryName: "group " + s.Group, SecondaryName: "group " + goGroup}, nil
}

// ruleClient is source.RuleClient over a directory/nacos client. The
// revision of a state is its content MD5 ("" for no config).
type ruleClient struct{ c *dnacos.Client }

// Read implements source.RuleClient: a missing config is a deleted key.
func (r ruleClient) Read(ctx context.Context, key string) (source.RuleEvent, error) {
	content, md5, err := r.c.GetRule(ctx, key)
	return source.ReadEvent(key, content, md5, err, dnacos.ErrNotFound)
}

// Where implements source.RuleLocator: the rule's dataId, group and
// namespace.
func (r ruleClient) Where(key string) string {
	return "Nacos " + r.c.Where("", dnacos.DataID(key))
}

// Watch implements source.RuleClient.
func (r ruleClient) Watch(ctx context.Context, key string) (<-chan source.RuleEvent, error) {
	ch, err := r.c.WatchRule(ctx, key)
	return source.WatchEvents(ctx, key, ch, err)
}
