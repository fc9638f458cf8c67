package source

import (
	"context"
)

// Layered is a RuleClient over two places of one config center where a
// rule key may live: Admin's (Primary: where Java Dubbo reads and Dubbo
// Admin writes, group "dubbo") and dubbo-go's own (Secondary: Nacos's
// config-center.group, DEFAULT_GROUP by default; ZooKeeper's
// config-center.namespace), where dubbo-go's documentation and samples tell
// Go users to put rules. A key's state is the primary's when the key
// exists there, else the secondary's: Admin's wins when both hold it, and
// a rule in dubbo-go's place alone routes as it did with dubbo-go alone.
type Layered struct {
	Primary, Secondary         RuleClient
	PrimaryName, SecondaryName string // where each is, for Where
}

// layeredRev is the revision of a combined state: which place is in force
// and that place's revision (the other place's state does not matter while
// the first one holds the key).
type layeredRev struct {
	from int // 1 primary, 2 secondary, 0 neither
	rev  any
}

// combine is the state of a key from the states of its two places.
func combine(p, s RuleEvent) RuleEvent {
	switch {
	case !p.Deleted:
		return RuleEvent{Content: p.Content, Revision: layeredRev{1, p.Revision}}
	case !s.Deleted:
		return RuleEvent{Content: s.Content, Revision: layeredRev{2, s.Revision}}
	}
	return RuleEvent{Deleted: true, Revision: layeredRev{0, [2]any{p.Revision, s.Revision}}}
}

// Read implements RuleClient: both places, combined. A failure to read
// the secondary place counts as the key not being there (the primary, which
// Java reads, decides alone).
func (l Layered) Read(ctx context.Context, key string) (RuleEvent, error) {
	p, err := l.Primary.Read(ctx, key)
	if err != nil {
		return RuleEvent{}, err
	}
	s, err := l.Secondary.Read(ctx, key)
	if err != nil {
		s = RuleEvent{Deleted: true}
	}
	return combine(p, s), nil
}

// Watch implements RuleClient: both places are watched from their state
// now (read once: a watch need not report a state before it changes), and
// the combined state is reported on every report of either.
func (l Layered) Watch(ctx context.Context, key string) (<-chan RuleEvent, error) {
	pc, err := l.Primary.Watch(ctx, key)
	if err != nil {
		return nil, err
	}
	sc, err := l.Secondary.Watch(ctx, key)
	if err != nil {
		return nil, err
	}
	p, perr := l.Primary.Read(ctx, key)
	s, serr := l.Secondary.Read(ctx, key)
	haveP, haveS := perr == nil, serr == nil
	if !haveS {
		s, haveS = RuleEvent{Deleted: true}, true // as Read: the primary decides alone
	}
	out := make(chan RuleEvent)
	go func() {
		defer close(out)
		for {
			select {
			case ev, ok := <-pc:
				if !ok {
					return
				}
				p, haveP = ev, true
			case ev, ok := <-sc:
				if !ok {
					return
				}
				s, haveS = ev, true
			case <-ctx.Done():
				return
			}
			if !haveP || !haveS {
				continue
			}
			select {
			case out <- combine(p, s):
			case <-ctx.Done():
				return
			}
		}
	}()
	return out, nil
}

// Where implements RuleLocator: both places, Admin's first.
func (l Layered) Where(key string) string {
	return where(l.Primary, key, l.PrimaryName) + " (Admin's and Java's; wins) or " + where(l.Secondary, key, l.SecondaryName) + " (dubbo-go's)"
}

func where(c RuleClient, key, name string) string {
	if loc, ok := c.(RuleLocator); ok {
		return loc.Where(key)
	}
	return name
}
