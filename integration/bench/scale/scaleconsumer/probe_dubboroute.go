//go:build dubboroute

package main

import (
	"strconv"

	"dubbo.apache.org/dubbo-go/v3/common/constant"
	"dubbo.apache.org/dubbo-go/v3/protocol/invocation"
	"github.com/prometheus/client_golang/prometheus"

	"github.com/dubboroute/dubboroute/extension"
	"github.com/dubboroute/dubboroute/samples/bookfacade/api"
)

// impl names the routing implementation of this build.
const impl = "dubboroute"

var promRegistry = prometheus.NewRegistry()

func init() { promRegistry.MustRegister(extension.Collectors()...) }

// probe returns the generation of the newest binding's snapshot and the
// ports it routes call kind k (0: queryAll, 1: queryByName+gray) to.
func probe(app string) (uint64, func(k int) map[int]bool, bool) {
	b := extension.BindingFor(api.Interface, app)
	if b == nil {
		return 0, nil, false
	}
	snap := b.Chain().Snapshot()
	return snap.Generation, func(k int) map[int]bool {
		method, args, atts := callShape(k)
		out := map[int]bool{}
		for _, ivk := range snap.Route(invocation.NewRPCInvocation(method, args, atts), nil, nil) {
			if p, err := strconv.Atoi(ivk.GetURL().Port); err == nil {
				out[p] = true
			}
		}
		return out
	}, true
}

// callShape is call kind k: 0 queryAll untagged, 1 queryByName("Go") gray.
func callShape(k int) (string, []any, map[string]any) {
	if k == 0 {
		return api.MethodQueryAll, []any{}, map[string]any{}
	}
	return api.MethodQueryByName, []any{"Go"}, map[string]any{constant.Tagkey: "gray"}
}

// rebuildStats reads dubboroute's rebuild counter and histogram for the
// interface.
func rebuildStats() Stats {
	var st Stats
	mfs, err := promRegistry.Gather()
	if err != nil {
		st.Error = err.Error()
		return st
	}
	for _, mf := range mfs {
		for _, m := range mf.GetMetric() {
			svc := ""
			for _, l := range m.GetLabel() {
				if l.GetName() == "service" {
					svc = l.GetValue()
				}
			}
			if svc != api.Interface {
				continue
			}
			switch mf.GetName() {
			case "dubboroute_snapshot_rebuilds_total":
				st.Rebuilds += uint64(m.GetCounter().GetValue())
			case "dubboroute_snapshot_rebuild_seconds":
				h := m.GetHistogram()
				st.SecondsSum += h.GetSampleSum()
				st.Count += h.GetSampleCount()
				for _, b := range h.GetBucket() {
					st.Buckets = append(st.Buckets, Bucket{Le: b.GetUpperBound(), Count: b.GetCumulativeCount()})
				}
			}
		}
	}
	bs := extension.Bindings(api.Interface)
	st.Bindings = len(bs)
	if len(bs) > 0 {
		st.Providers = len(bs[len(bs)-1].Chain().Snapshot().Invokers)
	}
	return st
}

// routedOnly reports, for each of the application's bindings of the
// interface (in creation order), whether its current snapshot routes
// queryAll to providers on port only (and to at least one).
func routedOnly(app string, port int) ([]bool, bool) {
	var out []bool
	method, args, atts := callShape(0)
	inv := invocation.NewRPCInvocation(method, args, atts)
	for _, b := range extension.Bindings(api.Interface) {
		if b.ConsumerApp() != app {
			continue
		}
		routed := b.Chain().Snapshot().Route(inv, nil, nil)
		ok := len(routed) > 0
		for _, ivk := range routed {
			if ivk.GetURL().Port != strconv.Itoa(port) {
				ok = false
				break
			}
		}
		out = append(out, ok)
	}
	return out, true
}
