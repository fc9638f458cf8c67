package io.github.dubboroute.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.cluster.router.mesh.route.MeshRuleCache;
import org.apache.dubbo.rpc.cluster.router.mesh.route.StandardMeshRuleRouter;
import org.apache.dubbo.rpc.cluster.router.mesh.rule.virtualservice.destination.DubboRouteDestination;
import org.apache.dubbo.rpc.cluster.router.state.BitList;

/**
 * Dubbo's own {@link StandardMeshRuleRouter}, with one hook for the oracle's exact-probability mode: its weighted
 * pick ({@code randomSelectDestination}, which draws {@code ThreadLocalRandom.nextInt(totalWeight)}) is run by
 * Dubbo's code once per draw value r in [0, W), with {@link RandomControl} forcing r, and the draw values are grouped
 * by the subset Dubbo returns (or the exception it throws). The {@link Oracle.Dfs} then picks one group per leaf, with
 * its count out of W as the probability. Outside that mode (dfs null) it is the plain router.
 */
final class MeshProbe<T> extends StandardMeshRuleRouter<T> {
    /** Set by the oracle while it enumerates outcomes; null otherwise. */
    Oracle.Dfs dfs;

    MeshProbe(URL url) {
        super(url);
    }

    @Override
    protected String randomSelectDestination(
            MeshRuleCache<T> cache, String app, List<DubboRouteDestination> route, BitList<Invoker<T>> available)
            throws RpcException {
        if (dfs == null || route.size() < 2) {
            return super.randomSelectDestination(cache, app, route, available);
        }
        int total = 0;
        for (DubboRouteDestination d : route) {
            if (d == null) {
                return super.randomSelectDestination(cache, app, route, available); // throws as Dubbo does
            }
            total += Math.max(d.getWeight(), 1);
        }
        if (total <= 0 || total > 1_000_000) {
            return super.randomSelectDestination(cache, app, route, available);
        }
        Map<String, long[]> counts = new LinkedHashMap<>();
        Map<String, Object> outcome = new LinkedHashMap<>();
        for (int r = 0; r < total; r++) {
            RandomControl.forceNextInt(r, total);
            String key;
            Object value;
            try {
                String s = super.randomSelectDestination(cache, app, route, available);
                key = "s:" + s;
                value = s;
            } catch (RuntimeException e) {
                key = "x:" + e.getClass().getName();
                value = e;
            }
            counts.computeIfAbsent(key, k -> new long[1])[0]++;
            outcome.putIfAbsent(key, value);
        }
        List<String> keys = new ArrayList<>(counts.keySet());
        long[] cnt = new long[keys.size()];
        int[] w = new int[keys.size()];
        for (int i = 0; i < cnt.length; i++) {
            cnt[i] = counts.get(keys.get(i))[0];
            w[i] = (int) cnt[i];
        }
        int k = keys.size() == 1 ? 0 : dfs.choose(w, cnt);
        Object v = outcome.get(keys.get(k));
        if (v instanceof RuntimeException) {
            throw (RuntimeException) v;
        }
        return (String) v;
    }
}
