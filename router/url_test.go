package router

import "testing"

func TestParseURLToOriginalMap(t *testing.T) {
	u, err := ParseURL("dubbo://admin:pw@10.20.3.3:20880/com.foo.BarService?application=prov-a&region=hangzhou&flag")
	if err != nil {
		t.Fatal(err)
	}
	cases := map[string]string{
		"protocol": "dubbo", "username": "admin", "password": "pw", "host": "10.20.3.3",
		"port": "20880", "path": "com.foo.BarService", "address": "10.20.3.3:20880",
		"application": "prov-a", "region": "hangzhou", "flag": "flag",
	}
	for k, want := range cases {
		if got, ok := u.Get(k); !ok || got != want {
			t.Errorf("Get(%q) = %q,%v want %q", k, got, ok, want)
		}
	}
	if _, ok := u.Get("missing"); ok {
		t.Error("missing key found")
	}
}

func TestConsumerURLHasNoPortAndAddressIsHost(t *testing.T) {
	u := MustParseURL("consumer://127.0.0.1/com.foo.BarService?application=cons-app")
	if _, ok := u.Get("port"); ok {
		t.Error("port present for port 0")
	}
	if a, _ := u.Get("address"); a != "127.0.0.1" {
		t.Errorf("address = %q", a)
	}
	if p, _ := u.RawParameter("port"); p != "0" {
		t.Errorf("raw port = %q", p)
	}
	if k := u.ServiceKey(); k != "com.foo.BarService::" {
		t.Errorf("service key %q", k)
	}
}

func TestParseURLIPv6AndErrors(t *testing.T) {
	u := MustParseURL("tri://[::1]:50051/svc")
	if u.Host != "[::1]" || u.Port != 50051 {
		t.Fatalf("host %q port %d", u.Host, u.Port)
	}
	for _, bad := range []string{"", "dubbo://h:notaport/x", "dubbo://[::1/x", "://h:1/x", "dubbo://h:70000/x"} {
		if _, err := ParseURL(bad); err == nil {
			t.Errorf("ParseURL(%q) accepted", bad)
		}
	}
}

func TestParseEncodedURL(t *testing.T) {
	u, err := ParseEncodedURL("dubbo%3A%2F%2F10.0.0.1%3A20880%2Fcom.foo.Bar%3Fdubbo.tag%3Dgray")
	if err != nil || u.Params.Value("dubbo.tag") != "gray" || u.Port != 20880 {
		t.Fatalf("%v %+v", err, u)
	}
}

func TestRealMethodName(t *testing.T) {
	if m := RealMethodName("$invoke", []any{"queryAll", []string{}, []any{}}); m != "queryAll" {
		t.Fatal(m)
	}
	if m := RealMethodName("queryAll", nil); m != "queryAll" {
		t.Fatal(m)
	}
	if m := RealMethodName("$invoke", []any{3}); m != "$invoke" {
		t.Fatal(m)
	}
}

// TestIsAddress: IsAddress agrees with Address for matching and
// mismatching texts, with and without a port, and does not allocate.
func TestIsAddress(t *testing.T) {
	for _, c := range []struct {
		url  string
		s    string
		want bool
	}{
		{"dubbo://10.0.0.1:20880/x", "10.0.0.1:20880", true},
		{"dubbo://10.0.0.1:20880/x", "10.0.0.1:20881", false},
		{"dubbo://10.0.0.1:20880/x", "10.0.0.1:2088", false},
		{"dubbo://10.0.0.1:20880/x", "10.0.0.10:20880", false},
		{"dubbo://10.0.0.1:20880/x", "10.0.0.1", false},
		{"dubbo://10.0.0.1:20880/x", "10.0.0.1:20880,10.0.0.2:20880", false},
		{"dubbo://10.0.0.1/x", "10.0.0.1", true},
		{"dubbo://10.0.0.1/x", "10.0.0.1:0", false},
		{"dubbo://[::1]:20880/x", "[::1]:20880", true},
	} {
		u := MustParseURL(c.url)
		if got := u.IsAddress(c.s); got != c.want || got != (c.s == u.Address()) {
			t.Errorf("%s: IsAddress(%q) = %v, want %v (Address %q)", c.url, c.s, got, c.want, u.Address())
		}
	}
	u := MustParseURL("dubbo://10.0.0.1:20880/x")
	if n := testing.AllocsPerRun(100, func() { u.IsAddress("10.0.0.1:20880") }); n != 0 {
		t.Fatalf("IsAddress allocates %v times", n)
	}
}
