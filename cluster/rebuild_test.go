package cluster

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"unsafe"

	"dubbo.apache.org/dubbo-go/v3/common"
	"dubbo.apache.org/dubbo-go/v3/protocol/base"

	"github.com/dubboroute/dubboroute/router"
)

// TestRebuildCarryOverMatchesFresh: a chain carries what it read from the
// provider URLs (static tags, hosts, then-part key values) from snapshot to
// snapshot. Over random joins, leaves, reorders, duplicates and rule
// changes, every snapshot must route exactly as one compiled from scratch
// (NewSnapshot) over the same URLs and rules.
func TestRebuildCarryOverMatchesFresh(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	var pool []base.Invoker
	for i := 0; i < 80; i++ {
		params := fmt.Sprintf("region=r%d", i%4)
		if i%3 == 1 {
			params += "&dubbo.tag=gray"
		} else if i%7 == 2 {
			params += "&dubbo.tag=blue"
		}
		if i%11 == 5 {
			params = "dubbo.tag=gray" // no region
		}
		pool = append(pool, invoker(t, fmt.Sprintf("10.0.%d.%d:%d", i/50, i%50, 20880+i%2), params))
	}
	tagRules := []RuleRef{
		{},
		tagRule(t, "force: false\nenabled: true\nkey: demo-provider\ntags:\n  - name: gray\n    addresses: [\"10.0.0.3:20881\", \"10.0.0.4\", \"10.0.1.7:20881\"]\n"),
		tagRule(t, "force: true\nenabled: true\nkey: demo-provider\ntags:\n  - name: gray\n    addresses: [\"10.0.0.*\"]\n  - name: blue\n    addresses: [\"0.0.0.0:20880\"]\n"),
		tagRule(t, "force: false\nenabled: false\nkey: demo-provider\ntags:\n  - name: gray\n    addresses: [\"10.0.0.3\"]\n"),
	}
	condRules := []RuleRef{
		{},
		condRule(t, iface+"::.condition-router", "conditions:\n  - method=queryAll => region=r1,r2\n  - method=queryByName => port=20881&region!=r3\n"),
		condRule(t, iface+"::.condition-router", "conditions:\n  - method=queryAll => dubbo.tag=gray\n  - => host=10.0.0.*&address!=10.0.0.3:20881\n"),
		condRule(t, iface+"::.condition-router", "conditions:\n  - => region=r*&port=20880\n"),
	}
	appRules := []RuleRef{{}, condRule(t, "demo-consumer1.condition-router", "conditions:\n  - => region=r0,r1,r2\n")}
	calls := []router.Call{
		{Method: "queryAll"},
		{Method: "queryByName"},
		{Method: "other"},
		{Method: "queryAll", Attachments: router.AttachmentMap{"dubbo.tag": "gray"}},
		{Method: "queryByName", Attachments: router.AttachmentMap{"dubbo.tag": "blue", "dubbo.force.tag": "true"}},
		{Method: "other", Attachments: router.AttachmentMap{"dubbo.tag": "red"}},
	}
	consumer := consumerURL("demo-consumer1")
	c := New(consumer, Options{Name: iface})
	// Entries keep the low 32 bits of the generation: start close to their
	// wrap so that the steps cross it.
	c.gen = 1<<32 - 150
	cur := append([]base.Invoker(nil), pool[:40]...)
	for step := 0; step < 300; step++ {
		switch r.IntN(6) {
		case 0: // join
			cur = append(cur, pool[r.IntN(len(pool))])
		case 1: // leave
			if len(cur) > 0 {
				i := r.IntN(len(cur))
				cur = append(cur[:i:i], cur[i+1:]...)
			}
		case 2: // reorder
			cur = append([]base.Invoker(nil), cur...)
			r.Shuffle(len(cur), func(i, j int) { cur[i], cur[j] = cur[j], cur[i] })
		case 3: // new list, with a duplicate and a nil now and then
			cur = nil
			for _, i := range r.Perm(len(pool))[:r.IntN(len(pool))] {
				cur = append(cur, pool[i])
			}
			if len(cur) > 0 && r.IntN(2) == 0 {
				cur = append(cur, cur[0], nil)
			}
		case 4:
			c.SetRule(SlotTag, tagRules[r.IntN(len(tagRules))])
		case 5:
			c.SetRule(SlotService, condRules[r.IntN(len(condRules))])
			c.SetRule(SlotConsumerApp, appRules[r.IntN(len(appRules))])
		}
		c.SetInvokers(cur)
		got := c.Snapshot()
		want := NewSnapshot(consumer, got.URLs, got.Rules, Options{})
		for _, call := range calls {
			var t1, t2 router.Trace
			g, w := got.RouteSet(&call, &t1, nil), want.RouteSet(&call, &t2, nil)
			if !reflect.DeepEqual(members(g), members(w)) || !reflect.DeepEqual(t1, t2) {
				t.Fatalf("step %d, %s %v: chain %v, fresh %v\n%s\n%s", step, call.Method, call.Attachments, members(g), members(w), t1.String(), t2.String())
			}
		}
	}
	if c.urls.len() > 2*len(pool)+64 {
		t.Errorf("the URL cache holds %d entries for a pool of %d", c.urls.len(), len(pool))
	}
}

// TestEntrySize: what a chain keeps of each provider (its URL included)
// stays within one 128-byte size class.
func TestEntrySize(t *testing.T) {
	if s := unsafe.Sizeof(urlEntry{}); s > 128 {
		t.Fatalf("urlEntry is %d bytes", s)
	}
}

// TestJoinRebuildReadsOnlyTheNewProvider: a rebuild after one provider
// joins keeps every other provider's URL (same pointer, parameters not
// packed again), and ten times the providers cost far less than ten times
// the allocations (157 at 200, 204 at 2,000, 356 at 20,000 when written,
// as before parameters were packed): the per-provider state is carried
// over, not copied.
func TestJoinRebuildReadsOnlyTheNewProvider(t *testing.T) {
	allocs := map[int]float64{}
	for _, n := range []int{200, 2000} {
		ivks := manyInvokers(t, n+1)
		lists := [2][]base.Invoker{ivks[:n], ivks}
		c := New(consumerURL("demo-consumer1"), Options{Name: iface})
		c.Update(func(in *Input) {
			in.Invokers = lists[0]
			in.Rules[SlotService] = condRule(t, "svc", serviceRule)
			in.Rules[SlotConsumerApp] = condRule(t, "app", appRule)
		})
		before := c.Snapshot().URLs
		strings := c.packer.tab.Strings()
		c.SetInvokers(lists[1])
		after := c.Snapshot().URLs
		for i := range before {
			if after[i] != before[i] {
				t.Fatalf("n=%d: provider %d has a new URL after a join", n, i)
			}
		}
		if got := c.packer.tab.Strings(); got > strings+2 {
			t.Fatalf("n=%d: the join interned %d strings", n, got-strings)
		}
		i := 0
		allocs[n] = testing.AllocsPerRun(20, func() {
			i++
			c.SetInvokers(lists[i&1])
		})
	}
	if allocs[2000] > 2*allocs[200] {
		t.Fatalf("a join rebuild allocates %v times at 2,000 providers, %v at 200", allocs[2000], allocs[200])
	}
}

// innerInvoker and outerInvoker are two invoker types whose values can share
// an address (&o and &o.innerInvoker): the chain must still tell them apart.
type innerInvoker struct{ base.Invoker }

type outerInvoker struct {
	innerInvoker
	url *common.URL
}

func (o *outerInvoker) GetURL() *common.URL { return o.url }

// TestEntriesTellInvokersApart: invokers keyed by their pointer (the first
// pointer type seen) and by interface (any other type) are told apart even
// when two of them share an address, and a non-pointer invoker keeps its
// entry from rebuild to rebuild.
func TestEntriesTellInvokersApart(t *testing.T) {
	o := &outerInvoker{innerInvoker: innerInvoker{invoker(t, "10.0.0.1:20880", "")}, url: invoker(t, "10.0.0.2:20880", "").GetURL()}
	val := innerInvoker{invoker(t, "10.0.0.3:20880", "")} // not a pointer
	ivks := []base.Invoker{&o.innerInvoker, o, val}
	c := New(consumerURL("demo-consumer1"), Options{Name: iface})
	for round := 0; round < 2; round++ {
		c.SetInvokers(ivks)
		s := c.Snapshot()
		var hosts []string
		for _, u := range s.URLs {
			hosts = append(hosts, u.Host)
		}
		if want := []string{"10.0.0.1", "10.0.0.2", "10.0.0.3"}; !reflect.DeepEqual(hosts, want) {
			t.Fatalf("round %d: hosts %v, want %v", round, hosts, want)
		}
		if got := c.urls.len(); got != 3 {
			t.Fatalf("round %d: %d entries for 3 invokers", round, got)
		}
		if len(c.urls.byPtr) != 1 || len(c.urls.other) != 2 {
			t.Fatalf("round %d: %d entries keyed by pointer, %d by interface; want 1 and 2", round, len(c.urls.byPtr), len(c.urls.other))
		}
	}
}
