package consumer

import (
	"fmt"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/global"
	"github.com/dubbogo/gost/log/logger"
	"gopkg.in/yaml.v3"

	"github.com/dubboroute/dubboroute/cluster"
	"github.com/dubboroute/dubboroute/router/condition"
	"github.com/dubboroute/dubboroute/router/tag"
	"github.com/dubboroute/dubboroute/rules/assembly"
)

// staticRules reads dubbo.router / WithRouter configs from the URL
// attribute dubbo-go uses (RoutersConfigKey, on the URL or its SubURL):
//   - scope service, conditions: the service slot of every reference, as
//     dubbo-go's service router applies it whatever its key; when several
//     exist, the last one whose key names this interface, else the last one
//     (dubbo-go: the last one, for every reference);
//   - scope application, conditions: the consumer-app slot when key is the
//     consumer application, else the provider-app slot (it applies when key
//     is the provider application; see ruleFor);
//   - scope application, tags: the tag slot, keyed by the provider app.
func staticRules(u *common.URL, iface, consumerApp string) assembly.Statics {
	out := assembly.Statics{ProviderApp: map[string]cluster.RuleRef{}, Tags: map[string]cluster.RuleRef{}}
	raw, ok := u.GetAttribute(constant.RoutersConfigKey)
	if !ok && u.SubURL != nil {
		raw, ok = u.SubURL.GetAttribute(constant.RoutersConfigKey)
	}
	if !ok {
		return out
	}
	cfgs, _ := raw.([]*global.RouterConfig)
	svcKeyed := false // the service slot holds a rule keyed by this interface
	for _, cfg := range cfgs {
		if cfg == nil || (cfg.Enabled != nil && !*cfg.Enabled) || (cfg.Valid != nil && !*cfg.Valid) {
			continue
		}
		key := "static:" + cfg.Key
		switch {
		case cfg.Scope == constant.RouterScopeService && len(cfg.Conditions) > 0:
			if svcKeyed && cfg.Key != iface {
				continue // a rule keyed by this interface wins
			}
			if r, err := staticCondition(cfg); err != nil {
				logger.Errorf("[dubboroute] static router key=%s rejected: %v", cfg.Key, err)
			} else {
				out.Slots[cluster.SlotService] = cluster.RuleRef{Key: key, Version: "static", Condition: r}
				svcKeyed = cfg.Key == iface
			}
		case cfg.Scope == constant.RouterScopeApplication && len(cfg.Conditions) > 0:
			r, err := staticCondition(cfg)
			if err != nil {
				logger.Errorf("[dubboroute] static router key=%s rejected: %v", cfg.Key, err)
				continue
			}
			if cfg.Key == consumerApp {
				out.Slots[cluster.SlotConsumerApp] = cluster.RuleRef{Key: key, Version: "static", Condition: r}
			} else {
				out.ProviderApp[cfg.Key] = cluster.RuleRef{Key: key, Version: "static", Condition: r}
			}
		case len(cfg.Tags) > 0:
			r, err := staticTag(cfg)
			if err != nil {
				logger.Errorf("[dubboroute] static tag router key=%s rejected: %v", cfg.Key, err)
				continue
			}
			out.Tags[cfg.Key] = cluster.RuleRef{Key: key, Version: "static", Tag: r}
		}
	}
	return out
}

func staticCondition(cfg *global.RouterConfig) (*condition.Rule, error) {
	doc := map[string]any{
		"scope":      cfg.Scope,
		"key":        cfg.Key,
		"force":      cfg.Force != nil && *cfg.Force,
		"enabled":    true,
		"conditions": cfg.Conditions,
	}
	text, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode static condition rule %s: %w", cfg.Key, err)
	}
	return condition.ParseRule(string(text))
}

func staticTag(cfg *global.RouterConfig) (*tag.Rule, error) {
	tags := make([]map[string]any, 0, len(cfg.Tags))
	for _, t := range cfg.Tags {
		tags = append(tags, map[string]any{"name": t.Name, "addresses": t.Addresses})
	}
	doc := map[string]any{
		"key":     cfg.Key,
		"force":   cfg.Force != nil && *cfg.Force,
		"enabled": true,
		"tags":    tags,
	}
	text, err := yaml.Marshal(doc)
	if err != nil {
		return nil, fmt.Errorf("encode static tag rule %s: %w", cfg.Key, err)
	}
	return tag.ParseRule(string(text))
}
