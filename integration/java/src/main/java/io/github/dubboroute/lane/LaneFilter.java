package io.github.dubboroute.lane;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.dubbo.common.constants.CommonConstants;
import org.apache.dubbo.common.extension.Activate;
import org.apache.dubbo.rpc.Filter;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcException;

/**
 * Provider side of the full-link lane: remembers the lane attachments of the call being served (see
 * {@link Lane}) for the serving thread. Java's {@code ContextFilter} removes {@code dubbo.tag} and
 * {@code dubbo.force.tag} from what a provider passes on; this filter reads them from the invocation itself.
 * Activated by default on providers; {@code filter="-dubboroute-lane"} switches it off for a service.
 */
@Activate(group = CommonConstants.PROVIDER, order = -20000)
public final class LaneFilter implements Filter {
    @Override
    public Result invoke(Invoker<?> invoker, Invocation invocation) throws RpcException {
        if (!Lane.enabled()) {
            return invoker.invoke(invocation);
        }
        Map<String, String> lane = new LinkedHashMap<>();
        for (String k : Lane.keys()) {
            Object v = invocation.getObjectAttachment(k);
            if (v instanceof String s && !s.isEmpty()) {
                lane.put(k, s);
            }
        }
        Map<String, String> prev = Lane.swap(Collections.unmodifiableMap(lane));
        try {
            return invoker.invoke(invocation);
        } finally {
            Lane.restore(prev);
        }
    }
}
