package io.github.dubboroute.it;

import java.util.Map;
import java.util.TreeMap;
import org.apache.dubbo.rpc.Filter;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcException;

/**
 * Provider filter of {@link BookProvider} (not activated by default; the provider names it on its service):
 * remembers the attachments of the invocation being served, as the protocol delivered them, so that
 * {@code queryByName("attachments")} can answer them. Java's {@code ContextFilter} keeps {@code dubbo.tag} out of
 * the server context; the invocation still has it.
 */
public final class EchoAttachmentsFilter implements Filter {
    private static final ThreadLocal<Map<String, String>> SERVING = new ThreadLocal<>();

    @Override
    public Result invoke(Invoker<?> invoker, Invocation invocation) throws RpcException {
        Map<String, String> atts = new TreeMap<>();
        for (Map.Entry<String, Object> e : invocation.getObjectAttachments().entrySet()) {
            if (e.getValue() instanceof String s) {
                atts.put(e.getKey(), s);
            }
        }
        Map<String, String> prev = SERVING.get();
        SERVING.set(atts);
        try {
            return invoker.invoke(invocation);
        } finally {
            SERVING.set(prev);
        }
    }

    /** The string attachments of the call this thread serves (empty outside a call), sorted by key. */
    static Map<String, String> serving() {
        Map<String, String> m = SERVING.get();
        return m == null ? Map.of() : m;
    }
}
