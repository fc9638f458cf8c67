package lane

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
)

// FuzzRestoreTripleKeys: the tri-header-convert header comes from whoever
// calls a provider. No header panics; the header is always removed; no
// attachment appears that was not there (a key only changes its case,
// back to a spelling the header names), no value is made up, and only
// keys with the header's lowercase names are touched.
func FuzzRestoreTripleKeys(f *testing.F) {
	for _, s := range []string{javaConvert, "%7B%22dubbo.tag%22%3A%22Dubbo.Tag%22%7D", "%zz", "not json", "{}", "null",
		url.QueryEscape(`{"userid":"userId","x":"X","dubbo.tag":"DUBBO.TAG","a":"b"}`), url.QueryEscape(`{"userid":["x"]}`),
		url.QueryEscape(`{"userid":"USERID","USERID":"userid"}`)} {
		f.Add(s, "userid", "dubbo.tag", "x", true)
	}
	f.Fuzz(func(t *testing.T, header, k1, k2, k3 string, asSlice bool) {
		atts := map[string]any{}
		for i, k := range []string{k1, k2, k3} {
			if asSlice {
				atts[k] = []string{"v" + string(rune('0'+i))}
			} else {
				atts[k] = "v" + string(rune('0'+i))
			}
		}
		before := map[string]any{}
		for k, v := range atts {
			before[k] = v
		}
		if asSlice {
			atts[TripleHeaderConvert] = []string{header}
		} else {
			atts[TripleHeaderConvert] = header
		}
		restoreTripleKeys(invocation.NewRPCInvocation("m", nil, atts))
		if _, ok := atts[TripleHeaderConvert]; ok && before[TripleHeaderConvert] == nil {
			t.Fatalf("header kept: %v", atts)
		}
		delete(before, TripleHeaderConvert)
		if len(atts) > len(before) {
			t.Fatalf("attachments grew: %v from %v", atts, before)
		}
		for k, v := range atts {
			if old, ok := before[k]; ok {
				if !same(old, v) {
					t.Fatalf("%s changed from %v to %v", k, old, v)
				}
				continue
			}
			src, ok := before[strings.ToLower(k)]
			if !ok || !same(src, v) {
				t.Fatalf("new key %q=%v not a renamed %q (%v)", k, v, strings.ToLower(k), before)
			}
		}
		var names map[string]string
		_ = json.Unmarshal([]byte(mustUnescape(header)), &names)
		for k := range before {
			if _, ok := atts[k]; !ok {
				if orig, named := names[k]; !named || strings.ToLower(orig) != k {
					t.Fatalf("%q removed though the header does not rename it (%v)", k, names)
				}
			}
		}
	})
}

func same(a, b any) bool {
	as, aok := a.([]string)
	bs, bok := b.([]string)
	if aok || bok {
		return aok && bok && strings.Join(as, "\x00") == strings.Join(bs, "\x00")
	}
	return a == b
}

func mustUnescape(s string) string {
	d, err := url.QueryUnescape(s)
	if err != nil {
		return s
	}
	return d
}
