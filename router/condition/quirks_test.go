package condition

import (
	"errors"
	"reflect"
	"testing"

	"github.com/dubboroute/dubboroute/router"
)

// §9 items 1-10: each quirk's routing effect and the lint finding it leaves.
func TestJavaQuirks(t *testing.T) {
	type tc struct {
		name, cond string
		force      bool
		call       router.Call
		want       string
		finding    string
	}
	cases := []tc{
		{"quirk1 consumer. removed inside values", "=> region = my-consumer.zone", false, router.Call{}, "p1 p2 p3 p4", FindPrefixRemoved},
		{"quirk1 provider. removed from keys", "=> provider.application = prov-b", false, router.Call{}, "p3 p4", FindPrefixRemoved},
		{"quirk2 whitespace starts a new key", "=> region = hangzhou application = prov-b", false, router.Call{}, "p4", FindWhitespaceSeparator},
		{"quirk2 doubled separator drops one", "=> region = = beijing", false, router.Call{}, "p2", FindSkippedSeparator},
		{"quirk3 only the last star is special", "=> region = *angz*", true, router.Call{}, "-", FindInnerStar},
		{"quirk3 $ref only in then-parts", "region = $region => region = beijing", false, router.Call{}, "p1 p2 p3 p4", FindRefInWhen},
		{"quirk4 missing value fails !=", "=> region != beijing", false, router.Call{}, "p1 p4", ""},
		{"quirk4 missing argument is a sentinel that != matches", "arguments[2] != x => region = beijing", false, router.Call{Args: []any{"a"}}, "p2", ""},
		{"quirk4 missing argument reads as 0 in a range", "arguments[2] = 0~0 => region = beijing", false, router.Call{}, "p2", ""},
		{"quirk5 a~ gives the default result", "attachments[n] = 5~ => region = beijing", false, router.Call{Attachments: router.AttachmentMap{"n": "9"}}, "p1 p2 p3 p4", FindBrokenRange},
		{"quirk5 non-numeric range bound counts as 0", "attachments[n] = x~3 => region = beijing", false, router.Call{Attachments: router.AttachmentMap{"n": "2"}}, "p2", FindRangeNonNumeric},
		{"quirk6 attachment key cut at first dot", "attachments[a.b] = 1 => region = beijing", false, router.Call{Attachments: router.AttachmentMap{"a.b": "1", "a": "1"}}, "p1 p2 p3 p4", FindAttachmentDot},
		{"quirk7 blacklist beats force=false", "=> false", false, router.Call{}, "-", FindBlacklist},
		{"quirk7 empty result falls back with force=false", "=> region = x", false, router.Call{}, "p1 p2 p3 p4", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r := mustCondition(t, c.cond, c.force, true)
			call := c.call
			if got, st := routeSpec(t, r, &call); got != c.want {
				t.Fatalf("got %s, want %s (%+v)", got, c.want, st)
			}
			if c.finding != "" && !hasFinding(r, c.finding) {
				t.Fatalf("no %s finding in %+v", c.finding, r.Findings())
			}
		})
	}

	t.Run("quirk8 conditions chain and rule order matters through fallback", func(t *testing.T) {
		u := router.NewUniverse(4)
		cons := router.MustParseURL(specConsumerText)
		svc := mustCondition(t, "=> region = hangzhou", false, true).Compile(u, cons, specProviders(), CompileOptions{})
		app := mustCondition(t, "=> region = beijing", false, true).Compile(u, cons, specProviders(), CompileOptions{})
		if got := ids(app.Route(svc.Route(u.All(), &router.Call{}, nil), &router.Call{}, nil), specNames); got != "p1 p4" {
			t.Fatalf("service then app: %s", got)
		}
		if got := ids(svc.Route(app.Route(u.All(), &router.Call{}, nil), &router.Call{}, nil), specNames); got != "p2" {
			t.Fatalf("app then service: %s", got)
		}
	})
	t.Run("quirk9 v3.1 empty to blocks, blank to is all, weight 0 is 100", func(t *testing.T) {
		r := mustRule(t, "configVersion: v3.1\nconditions:\n- from: {match: application=other}\n- to: [{match: '', weight: 0}]\n")
		if r.Conditions[1].Targets[0].Weight != 100 || r.Conditions[1].Targets[0].Then != nil {
			t.Fatalf("targets %+v", r.Conditions[1].Targets)
		}
		for _, code := range []string{FindTrafficDisabled, FindTargetAll, FindWeightDefaulted} {
			if !hasFinding(r, code) {
				t.Fatalf("no %s finding", code)
			}
		}
		if got, _ := routeSpec(t, r, &router.Call{}); got != "p1 p2 p3 p4" {
			t.Fatalf("got %s", got)
		}
	})
	t.Run("quirk10 a bad condition rejects the whole rule", func(t *testing.T) {
		r, err := ParseRule("conditions:\n- => region = beijing\n- => a==b\n")
		var pe *ParseError
		if r != nil || !errors.As(err, &pe) || pe.Index != 1 || pe.Line != 3 {
			t.Fatalf("rule %v err %v", r, err)
		}
	})
	t.Run("quirk10 an empty update keeps the previous conditions", func(t *testing.T) {
		if _, err := ParseRule("conditions: []\n"); !errors.Is(err, ErrRuleInvalid) {
			t.Fatalf("err %v, want ErrRuleInvalid", err)
		}
	})
}

// The explain record of one call, condition by condition.
func TestExplainRecordsEveryCondition(t *testing.T) {
	r := mustRule(t, "conditions:\n- method = a => region = hangzhou\n- => region = nowhere\n- => false\n")
	_, st := routeSpec(t, r, &router.Call{Method: "b"})
	want := []router.ConditionStep{
		{Index: 0, Text: "method = a => region = hangzhou", WhenMatched: false, In: 4, ThenKept: 0, Out: 4, Branch: router.BranchNotApplicable, Destination: -1},
		{Index: 1, Text: "=> region = nowhere", WhenMatched: true, In: 4, ThenKept: 0, Out: 4, Branch: router.BranchFallback, Destination: -1},
		{Index: 2, Text: "=> false", WhenMatched: true, In: 4, ThenKept: 0, Out: 0, Branch: router.BranchBlacklist, Destination: -1},
	}
	if len(st.Conditions) != len(want) {
		t.Fatalf("steps %+v", st.Conditions)
	}
	for i := range want {
		if !reflect.DeepEqual(st.Conditions[i], want[i]) {
			t.Fatalf("step %d = %+v, want %+v", i, st.Conditions[i], want[i])
		}
	}
	if st.Branch != router.BranchBlacklist {
		t.Fatalf("summary %s", st.Branch)
	}
}
