package cli

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

var explainFiles = []string{"explain", "--rules", "testdata/explain/rules", "--providers", "testdata/explain/providers.txt",
	"--service", bookFacade, "--app", "demo-consumer", "--seed", "1", "--now", "2025-01-01T00:00:00Z"}

func TestExplainGolden(t *testing.T) {
	cases := []struct {
		name string
		args []string
	}{
		{"gray-user-queryAll", []string{"--method", "queryAll", "--attach", "userId=2"}},
		{"normal-user-queryAll", []string{"--method", "queryAll", "--attach", "userId=9"}},
		{"tag-gray-queryByName-no-provider", []string{"--method", "queryByName", "--arg", "Dubbo", "--attach", "dubbo.tag=gray"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, errOut, code := run(t, "", append(append([]string{}, explainFiles...), tc.args...)...)
			if errOut != "" {
				t.Errorf("stderr: %s", errOut)
			}
			golden(t, "testdata/explain/"+tc.name+".golden", fmt.Sprintf("%sexit %d\n", out, code))
		})
	}
}

func TestExplainJSON(t *testing.T) {
	out, _, code := run(t, "", append(append([]string{}, explainFiles...), "--json", "--method", "queryAll", "--attach", "userId=2")...)
	if code != ExitOK {
		t.Fatalf("exit %d", code)
	}
	var ex Explanation
	if err := json.Unmarshal([]byte(out), &ex); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, out)
	}
	if !reflect.DeepEqual(ex.Eligible, []string{"127.0.0.1:20880", "127.0.0.2:20880"}) {
		t.Fatalf("eligible %v", ex.Eligible)
	}
	if ex.Gray == nil || !ex.Gray.Decision.Gray || ex.Gray.Picked != "127.0.0.2:20880" || ex.Gray.Pools["gray"] != 1 {
		t.Fatalf("gray %+v", ex.Gray)
	}
	var routers []string
	for _, s := range ex.Trace {
		routers = append(routers, s.Router)
	}
	if !reflect.DeepEqual(routers, []string{"mock", "tag", "service", "provider-app", "app"}) {
		t.Fatalf("trace routers %v", routers)
	}
}

func TestExplainBadInput(t *testing.T) {
	for _, tc := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"explain", "--providers", "testdata/explain/providers.txt", "--service", bookFacade, "--app", "a"}, ExitUsage, "--method is required"},
		{[]string{"explain", "--method", "m", "--providers", "testdata/explain/providers.txt"}, ExitUsage, "give --consumer, or --service and --app"},
		{[]string{"explain", "--method", "m", "--service", "s", "--app", "a"}, ExitUsage, "give --providers FILE"},
		{[]string{"explain", "--method", "m", "--service", "s", "--app", "a", "--providers", "testdata/nope.txt"}, ExitFail, "nope.txt"},
		{[]string{"explain", "--method", "m", "--service", "s", "--app", "a", "--providers", "testdata/explain/providers.txt", "--attach", "novalue"}, ExitUsage, "want key=value"},
		{[]string{"explain", "--method", "m", "--consumer", "consumer://h:x/s", "--providers", "testdata/explain/providers.txt"}, ExitFail, "consumer_url"},
	} {
		_, errOut, code := run(t, "", tc.args...)
		if code != tc.code || !strings.Contains(errOut, tc.msg) || strings.Count(errOut, "\n") != 1 {
			t.Errorf("%v: exit %d, stderr %q; want exit %d and %q", tc.args, code, errOut, tc.code, tc.msg)
		}
	}
}
