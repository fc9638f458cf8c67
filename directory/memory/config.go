package memory

import (
	"errors"
	"fmt"
	"sort"
	"sync"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/common/extension"
	"dubbo.apache.org/dubbo-go/v3/config_center"
	"dubbo.apache.org/dubbo-go/v3/config_center/parser"
	"dubbo.apache.org/dubbo-go/v3/remoting"
	gxset "github.com/dubbogo/gost/container/set"
)

// Name is the extension name of the registry and of the config center.
const Name = "memory"

// DefaultGroup is the group Java Dubbo and Dubbo Admin store rules under.
const DefaultGroup = config_center.DefaultGroup

func init() {
	extension.SetRegistry(Name, newRegistry)
	extension.SetConfigCenterFactory(Name, func() config_center.DynamicConfigurationFactory { return configFactory{} })
	extension.SetConfigCenter(Name, func(u *common.URL) (config_center.DynamicConfiguration, error) {
		return configFactory{}.GetDynamicConfiguration(u)
	})
}

// ConfigStore is an in-memory config center: values by (group, key), and
// listeners by (group, key).
type ConfigStore struct {
	deliver sync.Mutex // serialises change+delivery so listeners see changes in order
	mu      sync.Mutex
	values  map[configKey]string
	ls      map[configKey][]config_center.ConfigurationListener
}

type configKey struct{ group, key string }

// NewConfigStore makes an empty store.
func NewConfigStore() *ConfigStore {
	return &ConfigStore{
		values: map[configKey]string{},
		ls:     map[configKey][]config_center.ConfigurationListener{},
	}
}

// Configs is the process-wide store behind the "memory" config center and
// the package-level PutRule, DeleteRule and GetRule.
var Configs = NewConfigStore()

// PutRule stores a rule under key in group "dubbo" (where Dubbo Admin writes
// rules) and notifies listeners: EventTypeAdd, or EventTypeDel when content
// is empty, as ZooKeeper's config center does.
func PutRule(key, content string) { Configs.Put(DefaultGroup, key, content) }

// DeleteRule removes the rule under key in group "dubbo" and notifies
// listeners with EventTypeDel if it existed.
func DeleteRule(key string) { Configs.Delete(DefaultGroup, key) }

// Put stores value and notifies the key's listeners.
func (s *ConfigStore) Put(group, key, value string) {
	s.deliver.Lock()
	defer s.deliver.Unlock()
	k := configKey{group, key}
	s.mu.Lock()
	_, existed := s.values[k]
	typ := remoting.EventTypeAdd
	if value == "" {
		delete(s.values, k)
		typ = remoting.EventTypeDel
	} else {
		s.values[k] = value
	}
	ls := append([]config_center.ConfigurationListener(nil), s.ls[k]...)
	s.mu.Unlock()
	if value == "" && !existed {
		return
	}
	for _, l := range ls {
		l.Process(&config_center.ConfigChangeEvent{Key: key, Value: value, ConfigType: typ})
	}
}

// PutEmpty stores an empty value under an existing key and notifies its
// listeners with a modification whose content is empty, as ZooKeeper does
// for a node whose data is set empty (Put with "" deletes instead). A key
// that does not exist is left alone.
func (s *ConfigStore) PutEmpty(group, key string) {
	s.deliver.Lock()
	defer s.deliver.Unlock()
	k := configKey{group, key}
	s.mu.Lock()
	_, existed := s.values[k]
	if existed {
		s.values[k] = ""
	}
	ls := append([]config_center.ConfigurationListener(nil), s.ls[k]...)
	s.mu.Unlock()
	if !existed {
		return
	}
	for _, l := range ls {
		l.Process(&config_center.ConfigChangeEvent{Key: key, Value: "", ConfigType: remoting.EventTypeUpdate})
	}
}

// Delete removes a key and notifies its listeners if it existed.
func (s *ConfigStore) Delete(group, key string) { s.Put(group, key, "") }

// Get returns the value of a key.
func (s *ConfigStore) Get(group, key string) (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	v, ok := s.values[configKey{group, key}]
	return v, ok
}

// Keys returns the keys of a group, sorted.
func (s *ConfigStore) Keys(group string) []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for k := range s.values {
		if k.group == group {
			out = append(out, k.key)
		}
	}
	sort.Strings(out)
	return out
}

// Listeners is the number of listeners on a key (for tests that check a key
// is subscribed exactly once).
func (s *ConfigStore) Listeners(group, key string) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.ls[configKey{group, key}])
}

// Reset drops every value and listener (for tests).
func (s *ConfigStore) Reset() {
	s.deliver.Lock()
	defer s.deliver.Unlock()
	s.mu.Lock()
	defer s.mu.Unlock()
	s.values = map[configKey]string{}
	s.ls = map[configKey][]config_center.ConfigurationListener{}
}

func (s *ConfigStore) addListener(group, key string, l config_center.ConfigurationListener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := configKey{group, key}
	for _, x := range s.ls[k] {
		if x == l {
			return
		}
	}
	s.ls[k] = append(s.ls[k], l)
}

func (s *ConfigStore) removeListener(group, key string, l config_center.ConfigurationListener) {
	s.mu.Lock()
	defer s.mu.Unlock()
	k := configKey{group, key}
	ls := s.ls[k]
	for i, x := range ls {
		if x == l {
			s.ls[k] = append(ls[:i:i], ls[i+1:]...)
			return
		}
	}
}

type configFactory struct{}

// GetDynamicConfiguration implements config_center.DynamicConfigurationFactory.
func (configFactory) GetDynamicConfiguration(u *common.URL) (config_center.DynamicConfiguration, error) {
	if u == nil {
		return nil, errors.New("memory config center: nil URL")
	}
	return &DynamicConfiguration{
		store:     Configs,
		namespace: u.GetParam(constant.ConfigNamespaceKey, DefaultGroup),
		url:       u,
		parser:    &parser.DefaultConfigurationParser{},
	}, nil
}

// DynamicConfiguration is the dubbo-go view of a ConfigStore. Like the
// ZooKeeper implementation, listeners and rule reads without a group use the
// config-center namespace (default "dubbo") as the group.
type DynamicConfiguration struct {
	store     *ConfigStore
	namespace string
	url       *common.URL

	mu     sync.Mutex
	parser parser.ConfigurationParser
}

// NewDynamicConfiguration wraps store as a dubbo-go dynamic configuration
// with the given namespace (group); for installing it by hand in tests.
func NewDynamicConfiguration(store *ConfigStore, namespace string) *DynamicConfiguration {
	if namespace == "" {
		namespace = DefaultGroup
	}
	return &DynamicConfiguration{store: store, namespace: namespace, parser: &parser.DefaultConfigurationParser{}}
}

// Parser implements config_center.DynamicConfiguration.
func (d *DynamicConfiguration) Parser() parser.ConfigurationParser {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.parser
}

// SetParser implements config_center.DynamicConfiguration.
func (d *DynamicConfiguration) SetParser(p parser.ConfigurationParser) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.parser = p
}

// AddListener implements config_center.DynamicConfiguration.
func (d *DynamicConfiguration) AddListener(key string, l config_center.ConfigurationListener, _ ...config_center.Option) {
	if l == nil {
		return
	}
	d.store.addListener(d.namespace, key, l)
}

// RemoveListener implements config_center.DynamicConfiguration (unlike
// ZooKeeper's in dubbo-go v3.3.2, it really removes the listener).
func (d *DynamicConfiguration) RemoveListener(key string, l config_center.ConfigurationListener, _ ...config_center.Option) {
	d.store.removeListener(d.namespace, key, l)
}

func (d *DynamicConfiguration) group(opts []config_center.Option) string {
	if len(opts) > 0 {
		if g := config_center.NewOptions(opts...).Center.Group; g != "" {
			return g
		}
	}
	return d.namespace
}

// GetProperties implements config_center.DynamicConfiguration; a missing key
// is "" without error, as in the ZooKeeper implementation.
func (d *DynamicConfiguration) GetProperties(key string, opts ...config_center.Option) (string, error) {
	v, _ := d.store.Get(d.group(opts), key)
	return v, nil
}

// GetRule implements config_center.DynamicConfiguration.
func (d *DynamicConfiguration) GetRule(key string, opts ...config_center.Option) (string, error) {
	return d.GetProperties(key, opts...)
}

// GetInternalProperty implements config_center.DynamicConfiguration.
func (d *DynamicConfiguration) GetInternalProperty(key string, opts ...config_center.Option) (string, error) {
	return d.GetProperties(key, opts...)
}

// PublishConfig implements config_center.DynamicConfiguration.
func (d *DynamicConfiguration) PublishConfig(key, group, value string) error {
	if key == "" {
		return fmt.Errorf("memory config center: publish to group %q: empty key", group)
	}
	if group == "" {
		group = d.namespace
	}
	d.store.Put(group, key, value)
	return nil
}

// RemoveConfig implements config_center.DynamicConfiguration.
func (d *DynamicConfiguration) RemoveConfig(key, group string) error {
	if group == "" {
		group = d.namespace
	}
	d.store.Delete(group, key)
	return nil
}

// GetConfigKeysByGroup implements config_center.DynamicConfiguration.
func (d *DynamicConfiguration) GetConfigKeysByGroup(group string) (*gxset.HashSet, error) {
	set := gxset.NewSet()
	for _, k := range d.store.Keys(group) {
		set.Add(k)
	}
	return set, nil
}

// GetURL returns the config-center URL (nil when built by hand).
func (d *DynamicConfiguration) GetURL() *common.URL { return d.url }

// IsAvailable is always true.
func (d *DynamicConfiguration) IsAvailable() bool { return true }

// Destroy does nothing: the store is process-wide.
func (d *DynamicConfiguration) Destroy() {}
