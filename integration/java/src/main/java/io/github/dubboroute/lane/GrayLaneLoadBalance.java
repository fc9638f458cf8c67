package io.github.dubboroute.lane;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.cluster.loadbalance.AbstractLoadBalance;

/**
 * Load balancer {@code graylane}: seed 002's classic gray balancer (a user listed in the consumer parameter
 * {@code grayUserids} goes to the providers with parameter {@code status=gray}) that honours a full-link lane.
 *
 * <ul>
 *   <li>A call carrying a decision made upstream ({@code dubboroute.gray} = gray|normal) is classified so.</li>
 *   <li>Else a user (attachment {@code userId}) in {@code grayUserids} is gray.</li>
 *   <li>Else, with consumer parameter {@code grayPercent} (0..100), the user is gray when its sticky bucket
 *       (64-bit FNV-1a of the user id modulo 10,000, the same bucket as dubboroute's Go gray rules) is below
 *       {@code round(grayPercent * 100)}; that decision is written into the call ({@code dubboroute.gray}) so
 *       later hops do not decide again.</li>
 * </ul>
 * Within the chosen pool the pick is uniform; a gray request with no gray provider uses the normal ones.
 * Java consumers do not read dubboroute's gray rules: this is the Java side's equivalent of the two rules the
 * end-to-end lane tests use.
 */
public final class GrayLaneLoadBalance extends AbstractLoadBalance {
    /** The SPI name. */
    public static final String NAME = "graylane";

    @Override
    protected <T> Invoker<T> doSelect(List<Invoker<T>> invokers, URL url, Invocation invocation) {
        boolean gray;
        String carried = invocation.getAttachment(Lane.DECISION_KEY);
        if ("gray".equals(carried) || "normal".equals(carried)) {
            gray = "gray".equals(carried);
        } else {
            String user = invocation.getAttachment("userId");
            Set<String> users = new HashSet<>();
            for (String u : url.getParameter("grayUserids", "").split(",")) {
                if (!u.isBlank()) {
                    users.add(u.trim());
                }
            }
            double pct = url.getParameter("grayPercent", 0.0);
            if (user != null && users.contains(user)) {
                gray = true;
            } else if (user != null && pct > 0 && pct < 100) {
                gray = bucket(user) < Math.round(pct * 100);
                if (Lane.enabled()) {
                    invocation.setAttachment(Lane.DECISION_KEY, gray ? "gray" : "normal");
                }
            } else {
                gray = user != null && pct >= 100;
            }
        }
        List<Invoker<T>> grayPool = new ArrayList<>();
        List<Invoker<T>> normalPool = new ArrayList<>();
        for (Invoker<T> i : invokers) {
            ("gray".equals(i.getUrl().getParameter("status")) ? grayPool : normalPool).add(i);
        }
        List<Invoker<T>> pool = gray && !grayPool.isEmpty() ? grayPool : normalPool;
        if (pool.isEmpty()) {
            pool = invokers;
        }
        return pool.get(ThreadLocalRandom.current().nextInt(pool.size()));
    }

    /** The sticky bucket in [0, 10000): 64-bit FNV-1a of the UTF-8 bytes, modulo 10,000. */
    public static int bucket(String value) {
        long h = 0xcbf29ce484222325L;
        for (byte b : value.getBytes(StandardCharsets.UTF_8)) {
            h ^= (b & 0xffL);
            h *= 0x100000001b3L;
        }
        return (int) Long.remainderUnsigned(h, 10000);
    }
}
