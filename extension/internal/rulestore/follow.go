package rulestore

import (
	"context"
	"time"

	"dubbo.apache.org/dubbo-go/v3/common"
	"github.com/dubbogo/gost/log/logger"

	"github.com/dubboroute/dubboroute/extension/source"
	"github.com/dubboroute/dubboroute/rules"
)

// readTimeout bounds the initial read of a key through a rule source.
const readTimeout = 10 * time.Second

// sourceWatch reads a rule key once and then follows it with the rule
// source registered for the config center's protocol (package
// extension/source; extension/zookeeper registers ZooKeeper's); false if
// there is none (or it cannot connect), and dubbo-go's listener is to be
// used.
func (ks *keyState) sourceWatch(cu *common.URL) bool {
	src := source.RuleSourceFor(cu)
	if src == nil {
		return false
	}
	c, err := src.Open(cu)
	if err != nil {
		logger.Warnf("[dubboroute] config center %s: %v; using dubbo-go's listener", cu.Location, err)
		return false
	}
	from := cu.Protocol + " " + cu.Location
	if l, ok := c.(source.RuleLocator); ok {
		from = l.Where(ks.key)
	}
	ks.mu.Lock()
	ks.from = from
	ks.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), readTimeout)
	ev, err := c.Read(ctx, ks.key)
	cancel()
	if err == nil {
		ks.applyRevision(ev, false)
	} else {
		logger.Warnf("[dubboroute] read rule key=%s: %v", ks.key, err)
	}
	wctx, stop := context.WithCancel(context.Background())
	ch, err := c.Watch(wctx, ks.key)
	if err != nil {
		stop()
		logger.Warnf("[dubboroute] watch rule key=%s: %v; using dubbo-go's listener", ks.key, err)
		return false
	}
	ks.mu.Lock()
	ks.watchGen++
	gen := ks.watchGen
	ks.stopWatch = stop
	ks.mu.Unlock()
	go func() {
		for ev := range ch {
			ks.mu.Lock()
			current := ks.watchGen == gen
			ks.mu.Unlock()
			if !current {
				continue // a stopped watch's last events; drain them
			}
			ks.applyRevision(ev, true)
		}
	}()
	return true
}

// applyRevision applies a rule state reported by a rule source once per
// revision: the watch re-reports the state the initial read already
// applied, and re-reads after every reconnection.
func (ks *keyState) applyRevision(ev source.RuleEvent, event bool) {
	ks.mu.Lock()
	if ks.srcRead && ev.Revision != nil && sameRevision(ks.srcRev, ev.Revision) {
		ks.mu.Unlock()
		return
	}
	first := !ks.srcRead
	ks.srcRead, ks.srcRev = true, ev.Revision
	ks.mu.Unlock()
	if ev.Deleted && first {
		return // no rule to begin with
	}
	if ks.kind == rules.KindConfigurators && first && ev.Content == "" {
		// Java's listener skips an empty node at the initial read (later,
		// empty content is content that fails to parse).
		return
	}
	ks.applyEvent(ev, event)
}

// sameRevision compares two revisions with ==, false (apply) for a
// source that broke the contract with an incomparable one.
func sameRevision(a, b any) (same bool) {
	defer func() {
		if recover() != nil {
			same = false
		}
	}()
	return a == b
}
