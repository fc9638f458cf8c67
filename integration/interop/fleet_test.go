package interop

import (
	"testing"

	"github.com/dubboroute/dubboroute/integration/harness"
	"github.com/dubboroute/dubboroute/integration/zk"
)

// fleet is where every interop process test starts: the Java interop jar
// (checked), the sample Go binaries (built once per test binary), a private
// ZooKeeper and a rules client on it. Java peers (javaProvider,
// javaConsumer) and Go peers (f.goProvider, harness.StartConsumer with
// f.reg) join it.
type fleet struct {
	bins  *harness.Binaries
	srv   *zk.Server
	rules *harness.Rules
	reg   string // the registry URL of srv: zookeeper://<addr>
}

// newFleet starts a fleet's ZooKeeper; t's cleanup stops it.
func newFleet(t *testing.T) *fleet {
	t.Helper()
	if _, err := Jar(); err != nil {
		t.Fatal(err)
	}
	bins := harness.SampleBinaries(t)
	srv := zk.Start(t)
	return &fleet{bins: bins, srv: srv, rules: harness.DialRules(t, srv.Addr()), reg: "zookeeper://" + srv.Addr()}
}

// goProvider starts a sample Go provider registered in the fleet's
// ZooKeeper (opts.Registry is filled in).
func (f *fleet) goProvider(t *testing.T, opts harness.ProviderOptions) *harness.Provider {
	t.Helper()
	opts.Registry = f.reg
	return harness.StartProvider(t, f.bins, opts)
}

// goConsumer starts the sample Go consumer (dubboroute) on the fleet's
// ZooKeeper (opts.Registry is filled in).
func (f *fleet) goConsumer(t *testing.T, opts harness.ConsumerOptions) *harness.Consumer {
	t.Helper()
	opts.Registry = f.reg
	return harness.StartConsumer(t, f.bins, opts)
}
