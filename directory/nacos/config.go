package nacos

import (
	"context"
	"crypto/md5"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
)

// configPath is the 1.x config OpenAPI, below the context path.
const configPath = "/v1/cs/configs"

// DataID is the Nacos dataId (or group) of a Dubbo config key, as Java's
// NacosConfigServiceWrapper rewrites every key: '$' becomes "___" and '/'
// becomes "-". Every other character is kept.
func DataID(key string) string {
	if !strings.ContainsAny(key, "$/") {
		return key
	}
	return strings.NewReplacer("$", "___", "/", "-").Replace(key)
}

// NamespaceFromDubbo maps a Dubbo config-center namespace to a Nacos
// namespace id as Java's NacosDynamicConfigurationFactory does: Dubbo's
// default namespace "dubbo" (and "", "public") is Nacos's public namespace;
// any other value is the Nacos namespace id.
func NamespaceFromDubbo(ns string) string {
	switch ns {
	case "", "dubbo", "public":
		return ""
	}
	return ns
}

// MD5 is a config's revision: the lower-case hex MD5 of its content, as
// Nacos computes it.
func MD5(content string) string {
	sum := md5.Sum([]byte(content))
	return hex.EncodeToString(sum[:])
}

// Where names a config for messages: dataId, group and namespace.
func (c *Client) Where(group, dataID string) string {
	if group == "" {
		group = c.opts.group
	}
	ns := c.opts.namespace
	if ns == "" {
		ns = "public"
	}
	return fmt.Sprintf("dataId %s group %s namespace %s", dataID, group, ns)
}

func (c *Client) configParams(group, dataID string) (url.Values, error) {
	if group == "" {
		group = c.opts.group
	}
	if err := checkName("dataId", dataID); err != nil {
		return nil, err
	}
	if err := checkName("group", group); err != nil {
		return nil, err
	}
	p := url.Values{"dataId": {dataID}, "group": {group}}
	if c.opts.namespace != "" {
		p.Set("tenant", c.opts.namespace)
	}
	return p, nil
}

// GetConfig reads a config of group ("" for the client's group): its
// content and MD5 (the server's Content-MD5, which the listener compares,
// else computed). A missing config gives an error wrapping ErrNotFound.
func (c *Client) GetConfig(ctx context.Context, group, dataID string) (content, md5 string, err error) {
	p, err := c.configParams(group, dataID)
	if err != nil {
		return "", "", fmt.Errorf("nacos: get config: %w", err)
	}
	resp, err := c.Call(ctx, Request{Method: http.MethodGet, Path: configPath, Params: p, OK: []int{http.StatusNotFound}})
	if err != nil {
		return "", "", fmt.Errorf("nacos: get config %s: %w", c.Where(group, dataID), err)
	}
	if resp.Status == http.StatusNotFound {
		return "", "", fmt.Errorf("nacos: get config %s: %w", c.Where(group, dataID), ErrNotFound)
	}
	content = string(resp.Body)
	sum := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-MD5")))
	if len(sum) != 32 {
		sum = MD5(content)
	}
	return content, sum, nil
}

// PublishConfig writes a config of group ("" for the client's group) and
// returns its MD5. Nacos stores no empty config, so empty content is
// refused here; use DeleteConfig.
func (c *Client) PublishConfig(ctx context.Context, group, dataID, content string) (string, error) {
	p, err := c.configParams(group, dataID)
	if err != nil {
		return "", fmt.Errorf("nacos: publish config: %w", err)
	}
	if strings.TrimSpace(content) == "" {
		return "", fmt.Errorf("nacos: publish config %s: content is empty (Nacos stores no empty config; delete it instead)", c.Where(group, dataID))
	}
	p.Set("content", content)
	p.Set("type", "yaml")
	resp, err := c.Call(ctx, Request{Method: http.MethodPost, Path: configPath, Params: p})
	if err != nil {
		return "", fmt.Errorf("nacos: publish config %s: %w", c.Where(group, dataID), err)
	}
	if strings.TrimSpace(string(resp.Body)) != "true" {
		return "", fmt.Errorf("nacos: publish config %s: %s answered %q", c.Where(group, dataID), resp.Server, cut(string(resp.Body), 200))
	}
	sum := MD5(content)
	c.log.Info("nacos: config published", "dataId", dataID, "group", p.Get("group"), "namespace", c.opts.namespace, "md5", sum)
	return sum, nil
}

// DeleteConfig deletes a config of group ("" for the client's group).
// Nacos answers success for a missing config too; DeleteConfig reads it
// first and gives an error wrapping ErrNotFound when it is not there.
func (c *Client) DeleteConfig(ctx context.Context, group, dataID string) error {
	p, err := c.configParams(group, dataID)
	if err != nil {
		return fmt.Errorf("nacos: delete config: %w", err)
	}
	if _, _, err := c.GetConfig(ctx, group, dataID); err != nil {
		if errors.Is(err, ErrNotFound) {
			return fmt.Errorf("nacos: delete config %s: %w", c.Where(group, dataID), ErrNotFound)
		}
		return err
	}
	resp, err := c.Call(ctx, Request{Method: http.MethodDelete, Path: configPath, Params: p})
	if err != nil {
		return fmt.Errorf("nacos: delete config %s: %w", c.Where(group, dataID), err)
	}
	if strings.TrimSpace(string(resp.Body)) != "true" {
		return fmt.Errorf("nacos: delete config %s: %s answered %q", c.Where(group, dataID), resp.Server, cut(string(resp.Body), 200))
	}
	c.log.Info("nacos: config deleted", "dataId", dataID, "group", p.Get("group"), "namespace", c.opts.namespace)
	return nil
}

// GetRule reads the rule of a Dubbo config key (DataID(key), client group).
func (c *Client) GetRule(ctx context.Context, key string) (content, md5 string, err error) {
	if key == "" {
		return "", "", errors.New("nacos: get rule: key is empty")
	}
	return c.GetConfig(ctx, "", DataID(key))
}

// PutRule publishes the rule of a Dubbo config key and returns its MD5.
func (c *Client) PutRule(ctx context.Context, key, content string) (string, error) {
	if key == "" {
		return "", errors.New("nacos: put rule: key is empty")
	}
	return c.PublishConfig(ctx, "", DataID(key), content)
}

// DeleteRule deletes the rule of a Dubbo config key.
func (c *Client) DeleteRule(ctx context.Context, key string) error {
	if key == "" {
		return errors.New("nacos: delete rule: key is empty")
	}
	return c.DeleteConfig(ctx, "", DataID(key))
}
