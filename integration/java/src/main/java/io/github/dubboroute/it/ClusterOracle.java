package io.github.dubboroute.it;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.reflect.Method;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.rpc.AsyncRpcResult;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.RpcInvocation;
import org.apache.dubbo.rpc.cluster.Directory;
import org.apache.dubbo.rpc.cluster.SingleRouterChain;
import org.apache.dubbo.rpc.cluster.directory.StaticDirectory;
import org.apache.dubbo.rpc.cluster.router.state.BitList;
import org.apache.dubbo.rpc.cluster.support.AbstractClusterInvoker;
import org.apache.dubbo.rpc.cluster.support.AvailableClusterInvoker;
import org.apache.dubbo.rpc.cluster.support.BroadcastClusterInvoker;
import org.apache.dubbo.rpc.cluster.support.FailbackClusterInvoker;
import org.apache.dubbo.rpc.cluster.support.FailfastClusterInvoker;
import org.apache.dubbo.rpc.cluster.support.FailoverClusterInvoker;
import org.apache.dubbo.rpc.cluster.support.FailsafeClusterInvoker;
import org.apache.dubbo.rpc.cluster.support.ForkingClusterInvoker;
import org.apache.dubbo.rpc.cluster.support.wrapper.MockClusterInvoker;

/**
 * Cluster oracle (issue 24): drives Java Dubbo 3.3.6's own cluster invokers (failover, failfast, failsafe, failback,
 * forking, broadcast, available) wrapped in its MockClusterInvoker, over scripted provider invokers that succeed,
 * return business exceptions or RpcExceptions in the Result, or throw, with the "oracle" load balancer
 * (ScriptedLoadBalance) drawing scripted picks. One case per JSON line on stdin, one answer per line on stdout:
 * per call the providers invoked (in order), the forks selected, and the outcome (kind, code, the provider the
 * result came from, the value as JSON, the exception class).
 *
 * <p>Usage: {@code java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.ClusterOracle < cases > answers}
 */
public final class ClusterOracle {
    private static final Gson GSON = new GsonBuilder().serializeNulls().disableHtmlEscaping().create();
    private static final Pattern FROM = Pattern.compile(" p(\\d+)$");

    private ClusterOracle() {}

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        Logs.init(args.get("log", "off"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), false);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonObject result;
            JsonElement id = JsonNull.INSTANCE;
            try {
                JsonObject c = JsonParser.parseString(line).getAsJsonObject();
                id = c.has("id") ? c.get("id") : JsonNull.INSTANCE;
                result = evaluate(c);
            } catch (Throwable t) {
                result = new JsonObject();
                result.addProperty("error", String.valueOf(t));
            }
            result.add("id", id);
            out.println(GSON.toJson(result));
            out.flush();
        }
        out.flush();
        System.exit(0);
    }

    /** A provider that follows its script, one outcome per call (the last repeats). */
    static final class Scripted<T> implements Invoker<T> {
        final int index;
        final URL url;
        final Class<T> type;
        final boolean available;
        final List<String> script;
        final List<Integer> log;
        int calls;

        Scripted(int index, URL url, Class<T> type, boolean available, List<String> script, List<Integer> log) {
            this.index = index;
            this.url = url;
            this.type = type;
            this.available = available;
            this.script = script;
            this.log = log;
        }

        public Class<T> getInterface() {
            return type;
        }

        public Result invoke(Invocation inv) throws RpcException {
            String step = script.isEmpty() ? "ok" : script.get(Math.min(calls, script.size() - 1));
            calls++;
            synchronized (log) {
                log.add(index);
            }
            String tag = " p" + index;
            switch (step) {
                case "ok":
                    return AsyncRpcResult.newDefaultAsyncResult("p" + index, inv);
                case "biz":
                    return AsyncRpcResult.newDefaultAsyncResult(new IllegalArgumentException("biz" + tag), inv);
                case "rpcres":
                    return AsyncRpcResult.newDefaultAsyncResult(new RpcException(RpcException.NETWORK_EXCEPTION, "status" + tag), inv);
                case "fail":
                    throw new RpcException(RpcException.NETWORK_EXCEPTION, "fail" + tag);
                case "timeout":
                    throw new RpcException(RpcException.TIMEOUT_EXCEPTION, "timeout" + tag);
                case "bizthrow":
                    throw new RpcException(RpcException.BIZ_EXCEPTION, "bizthrow" + tag);
                case "npe":
                    throw new IllegalStateException("npe" + tag);
                default:
                    throw new IllegalArgumentException("unknown script step " + step);
            }
        }

        public URL getUrl() {
            return url;
        }

        public boolean isAvailable() {
            return available;
        }

        public void destroy() {}

        public String toString() {
            return "p" + index;
        }
    }

    /** A static directory that can also route to nothing, and knows its interface without invokers. */
    static final class OracleDirectory<T> extends StaticDirectory<T> {
        final Class<T> type;
        final boolean none;

        OracleDirectory(URL url, List<Invoker<T>> invokers, Class<T> type, boolean none) {
            super(url, invokers);
            this.type = type;
            this.none = none;
        }

        public Class<T> getInterface() {
            return type;
        }

        protected List<Invoker<T>> doList(SingleRouterChain<T> chain, BitList<Invoker<T>> invokers, Invocation inv) {
            // As the registry directory's MockInvokersSelector: mock calls see only mock:// providers (none here).
            if (none || "true".equals(String.valueOf(inv.getObjectAttachment("invocation.need.mock")))) {
                return BitList.emptyList();
            }
            return super.doList(chain, invokers, inv);
        }
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    static JsonObject evaluate(JsonObject c) throws Exception {
        Class type = "bare".equals(str(c, "iface", "svc")) ? ClusterOracleBare.class : ClusterOracleService.class;
        String method = str(c, "method", "str");
        Map<String, String> params = map(c, "params");
        Map<String, String> provParams = map(c, "providerParams");
        URL consumer = new URL("consumer", "127.0.0.1", 0, type.getName(), params)
                .addParameter("interface", type.getName());
        List<Integer> log = new ArrayList<>();
        List<Invoker> invokers = new ArrayList<>();
        JsonArray provs = c.getAsJsonArray("providers");
        for (int i = 0; i < provs.size(); i++) {
            JsonObject p = provs.get(i).getAsJsonObject();
            List<String> script = new ArrayList<>();
            if (p.has("script")) {
                for (JsonElement e : p.getAsJsonArray("script")) {
                    script.add(e.getAsString());
                }
            }
            Map<String, String> pp = new HashMap<>(provParams);
            pp.put("loadbalance", "oracle");
            URL u = new URL("dubbo", "10.0.0." + (i + 1), 20880, type.getName(), pp);
            invokers.add(new Scripted(i, u, type, !p.has("avail") || p.get("avail").getAsBoolean(), script, log));
        }
        boolean none = c.has("noProvider") && c.get("noProvider").getAsBoolean();
        if (invokers.isEmpty()) {
            // StaticDirectory wants one invoker; route it away.
            invokers.add(new Scripted(99, new URL("dubbo", "10.0.0.99", 20880, type.getName()), type, true, new ArrayList<>(), log));
            none = true;
        }
        Directory dir = new OracleDirectory(consumer, invokers, type, none);
        String strategy = str(c, "strategy", "failover");
        AbstractClusterInvoker inner;
        switch (strategy) {
            case "failover":
                inner = new FailoverClusterInvoker(dir);
                break;
            case "failfast":
                inner = new FailfastClusterInvoker(dir);
                break;
            case "failsafe":
                inner = new FailsafeClusterInvoker(dir);
                break;
            case "failback":
                inner = new FailbackClusterInvoker(dir);
                break;
            case "forking":
                inner = new ForkingClusterInvoker(dir);
                break;
            case "broadcast":
                inner = new BroadcastClusterInvoker(dir);
                break;
            case "available":
                inner = new AvailableClusterInvoker(dir);
                break;
            default:
                throw new IllegalArgumentException("unknown strategy " + strategy);
        }
        Invoker top = new MockClusterInvoker(dir, inner);
        int[] picks = ints(c, "picks");
        int calls = c.has("calls") ? c.get("calls").getAsInt() : 1;
        Method m = type.getMethod(method);
        JsonArray answers = new JsonArray();
        try {
            for (int k = 0; k < calls; k++) {
                ScriptedLoadBalance.script(picks);
                synchronized (log) {
                    log.clear();
                }
                RpcContext.removeServiceContext();
                RpcContext.removeClientAttachment();
                if (c.has("retriesAttachment") && !c.get("retriesAttachment").isJsonNull()) {
                    JsonElement r = c.get("retriesAttachment");
                    if (r.getAsJsonPrimitive().isNumber()) {
                        RpcContext.getClientAttachment().setObjectAttachment("retries", r.getAsInt());
                    } else {
                        RpcContext.getClientAttachment().setObjectAttachment("retries", r.getAsString());
                    }
                }
                RpcInvocation inv = new RpcInvocation(m, type.getName(), type.getName(), new Object[0]);
                JsonObject a = new JsonObject();
                try {
                    Result r = top.invoke(inv);
                    if (r.hasException()) {
                        Throwable t = r.getException();
                        if (t instanceof RpcException) {
                            a.addProperty("kind", ((RpcException) t).isBiz() ? "result-rpc-biz" : "result-rpc");
                            a.addProperty("code", ((RpcException) t).getCode());
                        } else {
                            a.addProperty("kind", "business");
                        }
                        a.addProperty("exClass", t.getClass().getName());
                        a.addProperty("from", from(t.getMessage()));
                    } else {
                        a.addProperty("kind", "ok");
                        Object v = r.getValue();
                        a.add("value", GSON.toJsonTree(v));
                        a.addProperty("from", v instanceof String ? from(" " + v) : -1);
                    }
                } catch (RpcException e) {
                    a.addProperty("kind", e.isBiz() ? "thrown-biz" : "thrown");
                    a.addProperty("code", e.getCode());
                    a.addProperty("mockError", String.valueOf(e.getMessage()).startsWith("mock error"));
                } catch (Throwable t) {
                    a.addProperty("kind", "thrown-other");
                    a.addProperty("exClass", t.getClass().getName());
                }
                JsonArray inv2 = new JsonArray();
                synchronized (log) {
                    for (int x : log) {
                        inv2.add(x);
                    }
                }
                a.add("invoked", inv2);
                if ("forking".equals(strategy)) {
                    JsonArray sel = new JsonArray();
                    List<Invoker<?>> chosen = RpcContext.getServiceContext().getInvokers();
                    if (chosen != null) {
                        for (Invoker<?> x : chosen) {
                            sel.add(((Scripted) x).index);
                        }
                    }
                    a.add("selected", sel);
                }
                answers.add(a);
            }
        } finally {
            inner.destroy();
        }
        JsonObject res = new JsonObject();
        res.add("calls", answers);
        return res;
    }

    static int from(String msg) {
        if (msg == null) {
            return -1;
        }
        Matcher mt = FROM.matcher(msg);
        return mt.find() ? Integer.parseInt(mt.group(1)) : -1;
    }

    static String str(JsonObject c, String k, String def) {
        return c.has(k) && !c.get(k).isJsonNull() ? c.get(k).getAsString() : def;
    }

    static Map<String, String> map(JsonObject c, String k) {
        Map<String, String> m = new HashMap<>();
        if (c.has(k) && c.get(k).isJsonObject()) {
            for (Map.Entry<String, JsonElement> e : c.getAsJsonObject(k).entrySet()) {
                m.put(e.getKey(), e.getValue().getAsString());
            }
        }
        return m;
    }

    static int[] ints(JsonObject c, String k) {
        if (!c.has(k)) {
            return new int[0];
        }
        JsonArray a = c.getAsJsonArray(k);
        int[] r = new int[a.size()];
        for (int i = 0; i < r.length; i++) {
            r[i] = a.get(i).getAsInt();
        }
        return r;
    }
}
