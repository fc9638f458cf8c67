package nacos

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
)

// The naming (registry) part of the 1.x OpenAPI, below the context path.
const (
	instancePath     = "/v1/ns/instance"
	instanceListPath = "/v1/ns/instance/list"
	serviceListPath  = "/v1/ns/service/list"
)

// DefaultNamingGroup is the Nacos group of services when the registry sets
// none: Nacos's own DEFAULT_GROUP, which Java Dubbo's NacosRegistry and
// NacosServiceDiscovery and dubbo-go's Nacos registry use alike (unlike
// rules, whose group is DefaultGroup "dubbo").
const DefaultNamingGroup = "DEFAULT_GROUP"

// Instance is one instance of a Nacos service, as the naming API lists it.
type Instance struct {
	InstanceID  string            `json:"instanceId,omitempty"`
	IP          string            `json:"ip"`
	Port        int               `json:"port"`
	Weight      float64           `json:"weight"`
	Healthy     bool              `json:"healthy"`
	Enabled     bool              `json:"enabled"`
	Ephemeral   bool              `json:"ephemeral"`
	ClusterName string            `json:"clusterName,omitempty"`
	ServiceName string            `json:"serviceName,omitempty"`
	Metadata    map[string]string `json:"metadata,omitempty"`
}

// Address is the instance's host:port.
func (i Instance) Address() string { return i.IP + ":" + strconv.Itoa(i.Port) }

// Instances is a service's instance list as one answer gave it.
type Instances struct {
	Service string     // the service name asked for
	Group   string     // its Nacos group
	Hosts   []Instance // sorted by address
}

// ServiceName is the Nacos service name of an interface-level Dubbo
// registration, as Java's NacosRegistry and dubbo-go build it:
// "<category>:<interface>:<version>:<group>" with empty parts left empty
// ("providers:com.foo.Bar::"). Java's NacosNamingServiceWrapper rewrites
// '$' to "___" in service names; so does this.
func ServiceName(category, iface, version, group string) string {
	name := category + ":" + iface + ":" + version + ":" + group
	return strings.ReplaceAll(name, "$", "___")
}

func (c *Client) namingParams(service, group string) url.Values {
	if group == "" {
		group = DefaultNamingGroup
	}
	p := url.Values{"serviceName": {service}, "groupName": {group}}
	if c.opts.namespace != "" {
		p.Set("namespaceId", c.opts.namespace)
	}
	return p
}

// ListInstances reads the instances of service in group ("" for
// DEFAULT_GROUP) in the client's namespace. With healthyOnly false it asks
// for every instance; Java Dubbo's registry drops only the disabled ones
// (rnacos answers healthy instances only, whatever is asked; its default is
// healthyOnly=true). A service that does not exist has no instances. No
// clientIP or udpPort is sent, so the server registers no push target.
func (c *Client) ListInstances(ctx context.Context, service, group string, healthyOnly bool) (Instances, error) {
	p := c.namingParams(service, group)
	p.Set("healthyOnly", strconv.FormatBool(healthyOnly))
	resp, err := c.Call(ctx, Request{Method: http.MethodGet, Path: instanceListPath, Params: p, OK: []int{http.StatusNotFound}})
	if err != nil {
		return Instances{}, fmt.Errorf("nacos: list instances of %s group %s: %w", service, p.Get("groupName"), err)
	}
	out := Instances{Service: service, Group: p.Get("groupName")}
	if resp.Status == http.StatusNotFound {
		return out, nil // Apache Nacos 1.x: no such service
	}
	var ans struct {
		Hosts []Instance `json:"hosts"`
	}
	if err := json.Unmarshal(resp.Body, &ans); err != nil {
		return Instances{}, fmt.Errorf("nacos: list instances of %s group %s: answer %q: %w", service, out.Group, cut(string(resp.Body), 200), err)
	}
	out.Hosts = ans.Hosts
	sort.Slice(out.Hosts, func(i, j int) bool {
		a, b := out.Hosts[i], out.Hosts[j]
		if a.IP != b.IP {
			return a.IP < b.IP
		}
		if a.Port != b.Port {
			return a.Port < b.Port
		}
		return a.ClusterName < b.ClusterName
	})
	return out, nil
}

// RegisterInstance registers (or replaces) an instance of service in group
// over HTTP. Ephemeral HTTP instances need a beat (SendBeat) every few
// seconds or the server drops them (rnacos: unhealthy after 15 s, removed
// after 30 s); a persistent one (Ephemeral false) stays until deregistered.
// Meant for tests and tools: Dubbo processes register through their SDKs.
func (c *Client) RegisterInstance(ctx context.Context, service, group string, inst Instance) error {
	p := c.instanceParams(service, group, inst)
	w := inst.Weight
	if w <= 0 {
		w = 1
	}
	p.Set("weight", strconv.FormatFloat(w, 'f', -1, 64))
	p.Set("enabled", strconv.FormatBool(inst.Enabled))
	p.Set("healthy", strconv.FormatBool(inst.Healthy))
	if len(inst.Metadata) > 0 {
		setMetadata(p, inst.Metadata)
	}
	return c.instanceCall(ctx, http.MethodPost, "register "+inst.Address()+" in "+service, p)
}

// UpdateInstance changes a registered instance (weight, enabled, metadata)
// in place, as Nacos's console does (PUT /nacos/v1/ns/instance): a zero
// weight and nil metadata leave the server's as they are.
func (c *Client) UpdateInstance(ctx context.Context, service, group string, inst Instance) error {
	p := c.instanceParams(service, group, inst)
	if inst.Weight > 0 {
		p.Set("weight", strconv.FormatFloat(inst.Weight, 'f', -1, 64))
	}
	p.Set("enabled", strconv.FormatBool(inst.Enabled))
	if inst.Metadata != nil {
		setMetadata(p, inst.Metadata)
	}
	return c.instanceCall(ctx, http.MethodPut, "update "+inst.Address()+" in "+service, p)
}

// DeregisterInstance removes an instance of service in group.
func (c *Client) DeregisterInstance(ctx context.Context, service, group string, inst Instance) error {
	return c.instanceCall(ctx, http.MethodDelete, "deregister "+inst.Address()+" from "+service, c.instanceParams(service, group, inst))
}

// instanceCall sends an instance request; op names it in the error.
func (c *Client) instanceCall(ctx context.Context, method, op string, p url.Values) error {
	if _, err := c.Call(ctx, Request{Method: method, Path: instancePath, Params: p}); err != nil {
		return fmt.Errorf("nacos: %s group %s: %w", op, p.Get("groupName"), err)
	}
	return nil
}

// instanceParams are the naming parameters that identify inst in service
// and group: its address, whether it is ephemeral, its cluster.
func (c *Client) instanceParams(service, group string, inst Instance) url.Values {
	p := c.namingParams(service, group)
	p.Set("ip", inst.IP)
	p.Set("port", strconv.Itoa(inst.Port))
	p.Set("ephemeral", strconv.FormatBool(inst.Ephemeral))
	if inst.ClusterName != "" {
		p.Set("clusterName", inst.ClusterName)
	}
	return p
}

// setMetadata sets the instance's metadata parameter (a JSON object; a
// map of strings always marshals).
func setMetadata(p url.Values, md map[string]string) {
	b, _ := json.Marshal(md)
	p.Set("metadata", string(b))
}

// ListServices lists the service names of group ("" for DEFAULT_GROUP) in
// the client's namespace (one page of at most pageSize names).
func (c *Client) ListServices(ctx context.Context, group string, pageNo, pageSize int) ([]string, int, error) {
	if group == "" {
		group = DefaultNamingGroup
	}
	p := url.Values{"groupName": {group}, "pageNo": {strconv.Itoa(pageNo)}, "pageSize": {strconv.Itoa(pageSize)}}
	if c.opts.namespace != "" {
		p.Set("namespaceId", c.opts.namespace)
	}
	resp, err := c.Call(ctx, Request{Method: http.MethodGet, Path: serviceListPath, Params: p})
	if err != nil {
		return nil, 0, fmt.Errorf("nacos: list services of group %s: %w", group, err)
	}
	var ans struct {
		Count int      `json:"count"`
		Doms  []string `json:"doms"`
	}
	if err := json.Unmarshal(resp.Body, &ans); err != nil {
		return nil, 0, fmt.Errorf("nacos: list services of group %s: answer %q: %w", group, cut(string(resp.Body), 200), err)
	}
	return ans.Doms, ans.Count, nil
}
