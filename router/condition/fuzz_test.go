package condition

import (
	"errors"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// fuzzRoute compiles an accepted rule over the §11 fixture and routes a few
// calls, checking that results stay within the input.
func fuzzRoute(t *testing.T, r *Rule) {
	u := router.NewUniverse(4)
	c := r.Compile(u, router.MustParseURL(specConsumerText), specProviders(), CompileOptions{Rand: fixedRand(7)})
	calls := []*router.Call{nil, {}, {Method: "getFoo", Args: []any{"a", 1, nil}, Attachments: router.AttachmentMap{"user": "5"}}}
	for _, in := range []*router.Set{u.All(), u.Of(1, 3), u.None()} {
		for _, call := range calls {
			st := &router.Step{}
			out := c.Route(in, call, st)
			if u.And(out, in) != out {
				t.Fatalf("result not a subset of the input")
			}
			_ = c.Destinations(in, call)
		}
	}
	_ = r.Findings()
}

func FuzzParseCondition(f *testing.F) {
	for _, s := range []string{
		"host = 127.0.0.1 => host = 1.2.3.4", "=> address = *:20880", "=>", "a = = b", "a,b=c", "a==b", "&a=1",
		"arguments[0] = 1~10 => region = $region", "attachments[foo.bar] != x =>", "consumer.host=provider.x => false",
		"method = getFoo,sayHello & region != beijing => application = prov-*", "a ! b", "~", "=> port = ~20881",
		"attachments[" + "\u2028" + "] = x", "true => False",
	} {
		f.Add(s, false, true)
		f.Add(s, true, false)
	}
	f.Fuzz(func(t *testing.T, text string, force, enabled bool) {
		r, err := ParseCondition(text, force, enabled)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParseError: %v", err)
			}
			return
		}
		fuzzRoute(t, r)
	})
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"conditions:\n  - method = sayHello => region = hangzhou\n",
		"scope: service\nkey: a\nforce: true\nenabled: true\npriority: 3\nconditions: ['=> false', 'a=1 => b!=2']\n",
		"configVersion: v3.1\nconditions:\n- from: {match: env=gray}\n  to:\n  - {match: env!=gray, weight: 100}\n  - {match: env=gray, weight: 900}\n",
		"configVersion: v3.1\nconditions:\n- from: {match: a=b}\n",
		"configVersion: v3.2\nconditions: [a=>b]\n",
		"configVersion: 3.1\n", "priority: x\nconditions: [a]\n", "conditions: []\n", "- a\n", "", "x: &a [*a]\n",
		"conditions: [{a: b}, [1, 2], ~, 1e7, yes]\n", "a: !!binary aGVsbG8=\nconditions: [x]\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, content string) {
		r, err := ParseRule(content)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParseError: %v", err)
			}
			if r != nil {
				t.Fatal("rule and error both returned")
			}
			return
		}
		if len(r.Conditions) == 0 {
			t.Fatal("accepted rule without conditions")
		}
		fuzzRoute(t, r)
	})
}

// FuzzParseRouterURL: router URLs are registry nodes (routers/ category).
// No input panics; an error is a *ParseError; an accepted rule routes
// within its input, and the fully encoded node name parses the same.
func FuzzParseRouterURL(f *testing.F) {
	for _, s := range []string{
		"condition://0.0.0.0/com.foo.BarService?category=routers&dynamic=false&rule=" + "host%20%3D%2010.20.153.10%20%3D%3E%20host%20%3D%2010.20.153.11",
		"route://0.0.0.0/a.B?category=routers&router=condition&rule=method%3Dx%3D%3Eport%3D1&force=TRUE&priority=2",
		"route://0.0.0.0/a.B?router=condition&rule=%3D%3E&enabled=false&priority=x",
		"condition%3A%2F%2F0.0.0.0%2Fa.B%3Fcategory%3Drouters%26rule%3D%253D%253E%2520false",
		"condition://0.0.0.0/a?category=providers&rule=x", "script://0.0.0.0/a?rule=x", "condition://0.0.0.0/a?rule=%zz", "", "://",
		"condition://0.0.0.0/a?rule=+%3D%3E+host+%3D+1.2.3.4&runtime=true",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		r, err := ParseRouterURL(raw)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error is not a *ParseError: %v", err)
			}
			if r != nil {
				t.Fatal("rule and error both returned")
			}
			return
		}
		fuzzRoute(t, r)
	})
}
