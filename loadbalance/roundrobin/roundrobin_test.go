package roundrobin

import (
	"fmt"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/loadbalance/weight"
)

func providers(ws ...string) []weight.Provider {
	ps := make([]weight.Provider, len(ws))
	for i, w := range ws {
		m := weight.Map{}
		if w != "" {
			m["weight"] = w
		}
		ps[i] = weight.Provider{Params: m, Address: fmt.Sprintf("10.0.0.%d:20880", i+1),
			Identity: fmt.Sprintf("dubbo://10.0.0.%d:20880/S", i+1), ServiceKey: "S"}
	}
	return ps
}

func seq(p *Plan, k int) string {
	var sb strings.Builder
	for i := 0; i < k; i++ {
		sb.WriteByte(byte('A' + p.Pick("m")))
	}
	return sb.String()
}

// The spec's vector RR.
func TestVectors(t *testing.T) {
	for _, c := range []struct {
		ws   []string
		want string
	}{
		{[]string{"5", "1", "1"}, "AABACAAAABACAA"},
		{[]string{"3", "2"}, "ABABAABABA"},
		{[]string{"1", "1", "1"}, "ABCABCABC"},
		{[]string{"100", "0"}, "AAAA"},
		{[]string{"0", "0"}, "AAAA"},
	} {
		b := New()
		clock := func() int64 { return 1000 }
		p := b.Plan(weight.NewSet(providers(c.ws...), clock))
		if got := seq(p, len(c.want)); got != c.want {
			t.Errorf("%v: %s, Java %s", c.ws, got, c.want)
		}
	}
}

// A rotation interrupted by another routed set continues as Java's walk
// would from the same state.
func TestRotationMaterialises(t *testing.T) {
	clock := func() int64 { return 1000 }
	all := providers("", "", "", "")
	for cut := 0; cut < 9; cut++ {
		b := New()
		full := b.Plan(weight.NewSet(all, clock))
		sub := b.Plan(weight.NewSet(all[1:3], clock))
		got := seq(full, cut) + seq(sub, 3) + seq(full, 6)
		// Reference: Java's walk on explicit currents.
		cur := map[int]int64{}
		var sb strings.Builder
		step := func(idx []int) {
			var total int64
			best, sel := int64(-1<<63), -1
			for _, i := range idx {
				cur[i] += 100
				total += 100
				if cur[i] > best {
					best, sel = cur[i], i
				}
			}
			cur[sel] -= total
			sb.WriteByte(byte('A' + sel))
		}
		for i := 0; i < cut; i++ {
			step([]int{0, 1, 2, 3})
		}
		for i := 0; i < 3; i++ {
			step([]int{1, 2})
		}
		for i := 0; i < 6; i++ {
			step([]int{0, 1, 2, 3})
		}
		// sub-plan picks are indexes into the sub list: map back.
		if want := sb.String(); mapSub(got, cut) != want {
			t.Errorf("cut %d: %s, Java %s", cut, mapSub(got, cut), want)
		}
	}
}

func mapSub(s string, cut int) string {
	b := []byte(s)
	for i := cut; i < cut+3; i++ {
		b[i]++ // sub list starts at provider 1
	}
	return string(b)
}

func TestPickAllocs(t *testing.T) {
	b := New()
	p := b.Plan(weight.NewSet(providers("", "", ""), nil))
	p.Pick("m")
	if n := testing.AllocsPerRun(1000, func() { p.Pick("m") }); n != 0 {
		t.Fatalf("rotation allocates %v", n)
	}
	q := b.Plan(weight.NewSet(providers("5", "1", "1"), nil))
	q.Pick("m")
	if n := testing.AllocsPerRun(1000, func() { q.Pick("m") }); n != 0 {
		t.Fatalf("walk allocates %v", n)
	}
}

// refRR is Java's RoundRobinLoadBalance, literally, over identities.
type refRR struct {
	cur  map[string]int64
	wt   map[string]int32
	last map[string]int64
}

func (r *refRR) pick(ps []weight.Provider, ws []int32, now int64) int {
	var total int64
	best, sel := int64(-1<<63), -1
	for i, p := range ps {
		id := p.Identity
		if _, ok := r.cur[id]; !ok {
			r.cur[id], r.wt[id] = 0, ws[i]
		}
		if r.wt[id] != ws[i] {
			r.wt[id], r.cur[id] = ws[i], 0
		}
		r.cur[id] += int64(ws[i])
		r.last[id] = now
		if r.cur[id] > best {
			best, sel = r.cur[id], i
		}
		total += int64(ws[i])
	}
	if len(ps) != len(r.cur) {
		for id, l := range r.last {
			if now-l > RecyclePeriod {
				delete(r.cur, id)
				delete(r.wt, id)
				delete(r.last, id)
			}
		}
	}
	r.cur[ps[sel].Identity] -= total
	return sel
}

// Random routed subsets, weights and clock jumps: the rotation and its
// materialisation give Java's walk, call for call.
func TestAgainstJavaWalk(t *testing.T) {
	rnd := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 300; trial++ {
		now := int64(1_000_000)
		clock := func() int64 { return now }
		b := New()
		ref := &refRR{cur: map[string]int64{}, wt: map[string]int32{}, last: map[string]int64{}}
		n := 1 + rnd.IntN(12)
		w := []string{"", "100", "3"}[rnd.IntN(3)]
		all := make([]string, n)
		for i := range all {
			all[i] = w
			if rnd.IntN(8) == 0 {
				all[i] = strconv.Itoa(rnd.IntN(5))
			}
		}
		ps := providers(all...)
		for phase := 0; phase < 6; phase++ {
			var sub []weight.Provider
			for _, p := range ps {
				if rnd.IntN(4) > 0 {
					sub = append(sub, p)
				}
			}
			if len(sub) == 0 {
				sub = ps
			}
			set := weight.NewSet(sub, clock)
			plan := b.Plan(set)
			for k := 0; k < rnd.IntN(3*len(sub)+3); k++ {
				if rnd.IntN(20) == 0 {
					now += 70_000
				}
				want := 0
				if len(sub) > 1 {
					want = ref.pick(sub, set.Table("m").Weights, now)
				}
				if got := plan.Pick("m"); got != want {
					t.Fatalf("trial %d phase %d call %d: %d, Java %d", trial, phase, k, got, want)
				}
			}
		}
	}
}
