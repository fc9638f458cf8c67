package addrs

import (
	"slices"
	"testing"
)

func TestNormalize(t *testing.T) {
	for _, c := range []struct {
		in      []string
		want    []string
		wantErr bool
	}{
		{[]string{"zookeeper://127.0.0.1:2181,127.0.0.2"}, []string{"127.0.0.1:2181", "127.0.0.2:2181"}, false},
		{[]string{" a:1 ", "b/dubbo?x=1", "[::1]", "[::1]:3"}, []string{"a:1", "b:2181", "[::1]:2181", "[::1]:3"}, false},
		{[]string{"http://n:8848"}, []string{"n:8848"}, false},
		{[]string{"a:0"}, nil, true},
		{[]string{"a:x"}, nil, true},
		{[]string{"a:65536"}, nil, true},
		{[]string{" , "}, nil, true},
		{nil, nil, true},
	} {
		got, err := Normalize(c.in, "ZooKeeper", "2181", "zookeeper://", "http://")
		if (err != nil) != c.wantErr || !slices.Equal(got, c.want) {
			t.Errorf("Normalize(%q) = %q, %v; want %q (error %v)", c.in, got, err, c.want, c.wantErr)
		}
	}
	if _, err := Normalize(nil, "Nacos", "8848"); err == nil || err.Error() != "no Nacos address given" {
		t.Errorf("empty list error %v", err)
	}
}
