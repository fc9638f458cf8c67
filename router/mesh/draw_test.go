package mesh

import (
	"reflect"
	"strings"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// drawRule is a VirtualService with one route detail whose route list is
// routes (YAML list items, indented under route:), over subsets a, b, c and
// gone (no provider).
func drawRule(routes string) string {
	return `kind: DestinationRule
metadata: {name: d}
spec:
  subsets:
    - {name: a, labels: {ver: a}}
    - {name: b, labels: {ver: b}}
    - {name: c, labels: {ver: c}}
    - {name: gone, labels: {ver: z}}
---
kind: VirtualService
metadata: {name: d}
spec:
  dubbo:
    - services: [{exact: com.foo.BarService}]
      routedetail:
        - name: all
          route:
` + routes
}

// TestWeightedDrawEveryValue routes every draw value r in [0, W) and counts
// the subsets taken, against Java's MeshRuleRouter.randomSelectDestination:
// target = nextInt(W); target -= max(w, 1) per destination; the first with
// target <= 0 is tried, then every later one, then all from the first.
func TestWeightedDrawEveryValue(t *testing.T) {
	cases := []struct {
		name, routes string
		w            uint64
		want         map[string]int // subset ver label -> draw values
		drawn        []int          // draw values per drawn destination (the trace's candidate)
	}{
		{"100/0: a weight-0 last destination is never drawn",
			"            - {weight: 100, destination: {subset: a}}\n            - {weight: 0, destination: {subset: b}}\n",
			101, map[string]int{"a": 101}, []int{101, 0}},
		{"1/1/1: 2/3, 1/3, 0",
			"            - {weight: 1, destination: {subset: a}}\n            - {weight: 1, destination: {subset: b}}\n            - {weight: 1, destination: {subset: c}}\n",
			3, map[string]int{"a": 2, "b": 1}, []int{2, 1, 0}},
		{"two unweighted destinations: always the first",
			"            - destination: {subset: a}\n            - destination: {subset: b}\n",
			2, map[string]int{"a": 2}, []int{2, 0}},
		{"30/70",
			"            - {weight: 30, destination: {subset: a}}\n            - {weight: 70, destination: {subset: b}}\n",
			100, map[string]int{"a": 31, "b": 69}, []int{31, 69}},
		{"an empty middle subset falls through to the next",
			"            - {weight: 2, destination: {subset: a}}\n            - {weight: 3, destination: {subset: gone}}\n            - {weight: 5, destination: {subset: c}}\n",
			10, map[string]int{"a": 3, "c": 7}, []int{3, 3, 4}},
		{"an empty last subset wraps to the first",
			"            - {weight: 2, destination: {subset: a}}\n            - {weight: 3, destination: {subset: b}}\n            - {weight: 5, destination: {subset: gone}}\n",
			10, map[string]int{"a": 7, "b": 3}, []int{3, 3, 4}},
	}
	urls := []*router.URL{
		router.MustParseURL("dubbo://10.0.0.1:20880/com.foo.BarService?application=prov&ver=a"),
		router.MustParseURL("dubbo://10.0.0.2:20880/com.foo.BarService?application=prov&ver=b"),
		router.MustParseURL("dubbo://10.0.0.3:20880/com.foo.BarService?application=prov&ver=c"),
	}
	vers := []string{"a", "b", "c"}
	consumer := router.MustParseURL("consumer://10.0.0.9/com.foo.BarService?application=c&interface=com.foo.BarService&side=consumer")
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseRule(drawRule(tc.routes))
			if err != nil {
				t.Fatal(err)
			}
			u := router.NewUniverse(len(urls))
			got := map[string]int{}
			drawn := make([]int, len(tc.drawn))
			for v := uint64(0); v < tc.w; v++ {
				c := Compile(u, consumer, urls, []AppRule{{App: "prov", Key: "prov.MESHAPPRULE", Rule: r}}, func(n uint64) uint64 {
					if n != tc.w {
						t.Fatalf("draw bound %d, want %d", n, tc.w)
					}
					return v
				})
				out := c.Route(u.All(), &router.Call{Method: "m"}, nil)
				var names []string
				out.ForEach(func(i int) { names = append(names, vers[i]) })
				got[strings.Join(names, " ")]++
				st := &router.Step{}
				if traced := c.Route(u.All(), &router.Call{Method: "m"}, st); traced != out {
					t.Fatalf("r=%d: traced route differs", v)
				}
				if len(st.Conditions) != 1 {
					t.Fatalf("r=%d: steps %+v", v, st.Conditions)
				}
				cs := st.Conditions[0]
				var sum int64
				for _, w := range cs.Weights {
					sum += w
				}
				if cs.Branch != router.BranchWeighted || uint64(sum) != tc.w || len(cs.Weights) != len(tc.drawn) || cs.Candidate != cs.Destination {
					t.Fatalf("r=%d: step %+v", v, cs)
				}
				drawn[cs.Candidate]++
			}
			if !reflect.DeepEqual(got, tc.want) || !reflect.DeepEqual(drawn, tc.drawn) {
				t.Fatalf("subsets %v drawn %v, want %v and %v", got, drawn, tc.want, tc.drawn)
			}
		})
	}
}

// TestWeightsFindingExplainsJavaDraw: the weights finding states the
// draw-value counts Java gives each destination.
func TestWeightsFindingExplainsJavaDraw(t *testing.T) {
	cases := []struct{ routes, want string }{
		{"            - {weight: 100, destination: {subset: a}}\n            - {weight: 900, destination: {subset: b}}\n", "the first gets 101/1000, the last 899/1000"},
		{"            - {weight: 100, destination: {subset: a}}\n            - {weight: 0, destination: {subset: b}}\n", "never"},
		{"            - destination: {subset: a}\n            - destination: {subset: b}\n", "always picks the first"},
		{"            - {weight: 1, destination: {subset: a}}\n            - {weight: 1, destination: {subset: b}}\n            - {weight: 1, destination: {subset: c}}\n", "2/3, 1/3, 0/3"},
	}
	for _, tc := range cases {
		r, err := ParseRule(drawRule(tc.routes))
		if err != nil {
			t.Fatal(err)
		}
		var msgs []string
		for _, f := range r.Findings {
			if f.Code == FindWeights {
				msgs = append(msgs, f.Message)
			}
		}
		if len(msgs) != 1 || !strings.Contains(msgs[0], tc.want) {
			t.Errorf("%s: weights findings %q, want one containing %q", tc.routes, msgs, tc.want)
		}
	}
}
