package io.github.dubboroute.it;

import java.util.List;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.cluster.loadbalance.AbstractLoadBalance;

/**
 * The cluster oracle's load balancer ("oracle"): picks {@code invokers[picks[k] % size]} for its k-th draw, so
 * Java's cluster invokers and dubboroute's strategies see the same choices. Extends AbstractLoadBalance, so a
 * single invoker is returned without a draw, as every Java balancer does.
 */
public class ScriptedLoadBalance extends AbstractLoadBalance {
    static final ThreadLocal<int[]> PICKS = new ThreadLocal<>();
    static final ThreadLocal<int[]> POS = ThreadLocal.withInitial(() -> new int[1]);

    static void script(int[] picks) {
        PICKS.set(picks);
        POS.get()[0] = 0;
    }

    @Override
    protected <T> Invoker<T> doSelect(List<Invoker<T>> invokers, URL url, Invocation invocation) {
        int[] picks = PICKS.get();
        int[] pos = POS.get();
        int p = picks == null || picks.length == 0 ? 0 : picks[pos[0]++ % picks.length];
        return invokers.get(p % invokers.size());
    }
}
