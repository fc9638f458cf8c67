package condition

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/dubboroute/dubboroute/router"
)

// naiveThen is the provider-by-provider evaluation the index replaces:
// matchValues over URL.Get for every term, nil and missing providers
// matching nothing.
func naiveThen(u *router.Universe, terms []thenTerm, providers []*router.URL) *router.Set {
	return u.Build(func(i int) bool {
		if i >= len(providers) || providers[i] == nil {
			return false
		}
		for _, t := range terms {
			v, ok := NotFoundValue, true
			switch t.kind {
			case keyArgument, keyAttachment, keySentinel:
			default:
				v, ok = providers[i].Get(t.key)
			}
			if !matchValues(v, ok, t.match, t.mismatch, false) {
				return false
			}
		}
		return true
	})
}

// TestThenIndexAgreesWithScan compares the indexed then-part sets with the
// provider-by-provider evaluation on random terms over a fleet with repeated
// and missing values, nil providers, synthetic keys (port, address, host,
// protocol, path) and universes larger and smaller than the provider list.
// Each Compile-sized index is reused across many parts, so the memoised
// pattern and part sets are exercised too, and it is trimmed (ProviderIndex.
// Trim) every few parts.
func TestThenIndexAgreesWithScan(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	hosts := []string{"10.0.0.1", "10.0.0.2", "10.0.1.1", "127.0.0.1", "[fe80::1]"}
	regions := []string{"hangzhou", "beijing", "", "20880", "7"}
	var provs []*router.URL
	for i := 0; i < 300; i++ {
		if i%37 == 5 {
			provs = append(provs, nil)
			continue
		}
		q := "application=prov-" + fmt.Sprint(i%3)
		if reg := regions[i%len(regions)]; i%4 != 0 {
			q += "&region=" + reg
		}
		if i%11 == 0 {
			q += "&port=8080" // only seen when the URL has no port
		}
		port := fmt.Sprintf(":%d", 20880+i%3)
		if i%13 == 0 {
			port = ""
		}
		proto := "dubbo"
		if i%17 == 0 {
			proto = "tri"
		}
		provs = append(provs, router.MustParseURL(fmt.Sprintf("%s://%s%s/com.foo.S%d?%s", proto, hosts[i%len(hosts)], port, i%2, q)))
	}
	consumer := router.MustParseURL("consumer://10.0.0.1/com.foo.S0?application=cons&region=beijing&empty=")
	keys := []string{"region", "port", "address", "host", "protocol", "path", "application", "method", "nokey",
		"arguments[0]", "attachments[a]", "arguments"}
	values := []string{"hangzhou", "beijing", "", "*", "hang*", "*jing", "h*u", "10.0.0.*", "*:20880", "20880", "20881",
		"20880~20881", "~20880", "7~", "~", "1~x", "$region", "$host", "$port", "$missing", "$empty", "dubbo", "tri",
		"com.foo.S*", "prov-1", NotFoundValue, "nope", "8080", "10.0.0.1:20882", "[fe80::1]:20881"}
	pats := func() []pattern {
		n := r.IntN(4)
		if n == 0 {
			return nil
		}
		vs := make([]string, n)
		for i := range vs {
			vs[i] = values[r.IntN(len(values))]
		}
		return compilePatterns(vs, consumer)
	}
	for _, size := range []int{0, 1, 64, 250, 300, 333} {
		u := router.NewUniverse(size)
		x := &thenIndex{ProviderIndex: NewProviderIndex(u, provs)}
		for c := 0; c < 400; c++ {
			terms := make([]thenTerm, 1+r.IntN(3))
			for i := range terms {
				k := keys[r.IntN(len(keys))]
				kind, _, _ := classifyKey(k)
				terms[i] = thenTerm{kind: kind, key: k, match: pats(), mismatch: pats()}
			}
			if c%5 == 4 {
				// A trimmed key is regrouped from what it kept; the part
				// memo is cleared so the part is computed again.
				x.Trim()
				x.parts = nil
			}
			got, want := x.part(terms), naiveThen(u, terms, provs)
			if got != want {
				t.Fatalf("size %d, terms %+v: index gives %v, scan %v", size, terms, got.AppendMembers(nil), want.AppendMembers(nil))
			}
		}
	}
}

// TestCompileManyConditionsReadsEachKeyOnce: a rule with many conditions
// over the same keys builds one index per key and one set per distinct
// then-part.
func TestCompileManyConditionsReadsEachKeyOnce(t *testing.T) {
	provs := benchProviders(500)
	u := router.NewUniverse(len(provs))
	x := &thenIndex{ProviderIndex: NewProviderIndex(u, provs)}
	p := &Part{Terms: []Term{{Key: "region", Match: []string{"hangzhou", "bei*"}}, {Key: "env", Mismatch: []string{"gray"}}}}
	first := thenSet(x, p, false, nil)
	for i := 0; i < 50; i++ {
		if s := thenSet(x, p, false, nil); s != first {
			t.Fatal("the same then-part gave a different set")
		}
	}
	if len(x.keys) != 2 || len(x.parts) != 1 || len(x.scanned) != 1 {
		t.Fatalf("%d key indexes, %d part sets, %d scanned patterns; want 2, 1, 1", len(x.keys), len(x.parts), len(x.scanned))
	}
	if first.Empty() {
		t.Fatal("fixture selects nobody; the test would prove nothing")
	}
}

// TestSharedProviderIndex: rules compiled with a shared index, for different
// consumers ($x patterns resolve per Compile), give the same sets as rules
// compiled alone, and an index made for another snapshot is not used.
func TestSharedProviderIndex(t *testing.T) {
	rule, err := ParseRule(`scope: service
key: com.foo.BarService
conditions:
  - => region = $region
  - method = a => region != $region & env = gray,$env
  - method = b => address = *:20880 & application = $application
`)
	if err != nil {
		t.Fatal(err)
	}
	provs := benchProviders(300)
	u := router.NewUniverse(len(provs))
	shared := NewProviderIndex(u, provs)
	other := NewProviderIndex(u, benchProviders(300)) // same contents, another slice
	other.key("region")
	for _, cons := range []string{specConsumerText, "consumer://10.0.0.1/x?region=beijing&env=prod&application=prov",
		"consumer://10.0.0.1/x"} {
		c := router.MustParseURL(cons)
		alone := rule.Compile(u, c, provs, CompileOptions{})
		withShared := rule.Compile(u, c, provs, CompileOptions{Index: shared})
		withOther := rule.Compile(u, c, provs, CompileOptions{Index: other})
		for i := range alone.conds {
			if a, s, o := alone.conds[i].then, withShared.conds[i].then, withOther.conds[i].then; a != s || a != o {
				t.Fatalf("consumer %s, condition %d: alone %d members, shared %d, other snapshot's index %d", cons, i, a.Len(), s.Len(), o.Len())
			}
		}
	}
	if len(shared.keys) != 4 {
		t.Fatalf("shared index holds %d keys, want region, env, address, application", len(shared.keys))
	}
	if len(other.keys) != 1 {
		t.Fatalf("an index made for another provider slice was filled (%d keys)", len(other.keys))
	}
}

// TestUseAddresses: an index offered the providers' address texts keeps
// those strings (no copy) for the ones that are right, reads the URL for a
// wrong or missing one, and compiles the same sets as without them.
func TestUseAddresses(t *testing.T) {
	rule, err := ParseRule(`scope: service
key: com.foo.BarService
conditions:
  - => address = *:20880
  - method = b => address != 10.0.0.3:20880
`)
	if err != nil {
		t.Fatal(err)
	}
	provs := benchProviders(50)
	u := router.NewUniverse(len(provs))
	addrs := make([]string, len(provs))
	for i, p := range provs {
		addrs[i] = p.Address()
	}
	addrs[1] = "10.9.9.9:20880" // wrong: must not be used
	addrs[2] = ""
	x := NewProviderIndex(u, provs)
	x.UseAddresses(func(i int) string { return addrs[i] })
	c := router.MustParseURL(specConsumerText)
	got := rule.Compile(u, c, provs, CompileOptions{Index: x})
	want := rule.Compile(u, c, provs, CompileOptions{})
	for i := range want.conds {
		if got.conds[i].then != want.conds[i].then {
			t.Fatalf("condition %d: %d members with the addresses offered, %d without", i, got.conds[i].then.Len(), want.conds[i].then.Len())
		}
	}
	ki := x.keys["address"]
	for i, p := range provs {
		v := ki.values[ki.ids[i]]
		if v != p.Address() {
			t.Fatalf("provider %d: address %q, want %q", i, v, p.Address())
		}
		shared := unsafe.StringData(v) == unsafe.StringData(addrs[i])
		if want := i != 1 && i != 2; shared != want {
			t.Fatalf("provider %d: value shares the offered text: %v, want %v", i, shared, want)
		}
	}
}
