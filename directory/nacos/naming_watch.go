package nacos

import (
	"context"
	"encoding/json"
	"fmt"
	"time"
)

// DefaultInstancePoll is how often WatchInstances reads a service's
// instance list when the caller gives no interval.
const DefaultInstancePoll = time.Second

// WatchInstances follows the instance list of service in group ("" for
// DEFAULT_GROUP) by reading it (ListInstances, healthyOnly false) every
// interval (DefaultInstancePoll if not positive). The first successful read
// is always delivered; after it, a list is delivered only when it differs
// from the last one delivered (an instance added, removed, or changed in
// weight, health, enabled or metadata). A read that fails delivers nothing:
// the last list stays in force while the server is down or unreachable,
// and the next successful read after it (a Nacos restart included) is
// compared with it as usual. The channel holds the latest list only: a
// reader that falls behind gets the newest state, never an older one after
// a newer. It closes when ctx ends or the client closes.
//
// Why polling: the 1.x OpenAPI pushes naming changes only over UDP to a
// registered clientIP/udpPort, and the 2.x push needs the gRPC stream;
// a bounded poll on loopback or in-cluster costs one small request per
// service and interval and never misses the end state.
func (c *Client) WatchInstances(ctx context.Context, service, group string, interval time.Duration) (<-chan Instances, error) {
	if c.isClosed() {
		return nil, ErrClosed
	}
	if service == "" {
		return nil, fmt.Errorf("nacos: watch instances: empty service name")
	}
	if interval <= 0 {
		interval = DefaultInstancePoll
	}
	out := make(chan Instances, 1)
	c.wg.Add(1)
	go func() {
		defer c.wg.Done()
		defer close(out)
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		stop := context.AfterFunc(c.ctx, cancel)
		defer stop()

		var last string
		delivered, failing := false, false
		t := time.NewTimer(0)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
			}
			list, err := c.ListInstances(ctx, service, group, false)
			switch {
			case err != nil && ctx.Err() != nil:
				return
			case err != nil:
				if !failing {
					c.log.Warn("nacos: instance list unavailable; keeping the last one", "service", service, "group", group, "err", err)
				}
				failing = true
			default:
				if failing {
					c.log.Info("nacos: instance list readable again", "service", service, "group", group)
				}
				failing = false
				fp := fingerprint(list)
				if !delivered || fp != last {
					delivered, last = true, fp
					latest(out, list)
				}
			}
			t.Reset(interval)
		}
	}()
	return out, nil
}

// latest puts v in ch (capacity 1), replacing a value not read yet.
func latest(ch chan Instances, v Instances) {
	for {
		select {
		case ch <- v:
			return
		default:
		}
		select {
		case <-ch:
		default:
		}
	}
}

// fingerprint identifies a sorted instance list's content.
func fingerprint(l Instances) string {
	b, _ := json.Marshal(l.Hosts) // map keys are sorted by encoding/json
	return string(b)
}
