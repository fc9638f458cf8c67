package io.github.dubboroute.it;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.reflect.Field;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.RpcInvocation;
import org.apache.dubbo.rpc.RpcStatus;
import org.apache.dubbo.rpc.cluster.LoadBalance;
import org.apache.dubbo.rpc.cluster.loadbalance.AbstractLoadBalance;
import org.apache.dubbo.rpc.cluster.loadbalance.AdaptiveLoadBalance;
import org.apache.dubbo.rpc.cluster.loadbalance.ConsistentHashLoadBalance;
import org.apache.dubbo.rpc.cluster.loadbalance.LeastActiveLoadBalance;
import org.apache.dubbo.rpc.cluster.loadbalance.RandomLoadBalance;
import org.apache.dubbo.rpc.cluster.loadbalance.RoundRobinLoadBalance;
import org.apache.dubbo.rpc.cluster.loadbalance.ShortestResponseLoadBalance;
import org.apache.dubbo.rpc.model.ApplicationModel;
import sun.misc.Unsafe;

/**
 * The load-balancer oracle (issue 24): Java Dubbo 3.3.6's own {@code LoadBalance} implementations evaluating JSON
 * cases, one per stdin line, one JSON answer per stdout line. Nothing here re-implements a balancer.
 *
 * <p>Randomness: {@link ThreadLocalRandom}'s per-thread seed is set to the case's {@code seed} before the first pick
 * (the first line out reports the per-draw seed increment, which the Go side needs to replay the same draws).
 *
 * <p>Kinds: {@code weight} (AbstractLoadBalance.getWeight of every provider; the uptime is given, the timestamp is
 * set from the JVM clock and the weight re-read until the clock did not tick during the read), {@code random},
 * {@code roundrobin} (a fresh balancer; {@code phases} of sub-lists and step counts), {@code leastactive} and
 * {@code shortestresponse} (RpcStatus counters set from the case), {@code consistenthash}, {@code adaptive}. Picks
 * are indexes into the list the balancer was given.
 */
public final class LoadBalanceOracle {
    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();
    private static final Unsafe U;
    private static final long SEED;

    static {
        try {
            Field f = Unsafe.class.getDeclaredField("theUnsafe");
            f.setAccessible(true);
            U = (Unsafe) f.get(null);
            SEED = U.objectFieldOffset(Thread.class.getDeclaredField("threadLocalRandomSeed"));
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private LoadBalanceOracle() {}

    static long increment() {
        ThreadLocalRandom rnd = ThreadLocalRandom.current();
        Thread t = Thread.currentThread();
        long saved = U.getLong(t, SEED);
        U.putLong(t, SEED, 0L);
        rnd.nextInt();
        long inc = U.getLong(t, SEED);
        U.putLong(t, SEED, saved);
        return inc;
    }

    static void seed(long s) {
        ThreadLocalRandom.current();
        U.putLong(Thread.currentThread(), SEED, s);
    }

    /** Exposes the protected getWeight. */
    static final class Probe extends AbstractLoadBalance {
        int weight(Invoker<?> invoker, Invocation invocation) {
            return getWeight(invoker, invocation);
        }

        @Override
        protected <T> Invoker<T> doSelect(List<Invoker<T>> invokers, URL url, Invocation invocation) {
            return invokers.get(0);
        }
    }

    static final class CaseInvoker implements Invoker<Object> {
        final URL url;

        CaseInvoker(URL url) {
            this.url = url;
        }

        @Override
        public Class<Object> getInterface() {
            return Object.class;
        }

        @Override
        public Result invoke(Invocation invocation) throws RpcException {
            throw new UnsupportedOperationException();
        }

        @Override
        public URL getUrl() {
            return url;
        }

        @Override
        public boolean isAvailable() {
            return true;
        }

        @Override
        public void destroy() {}
    }

    static Object arg(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return null;
        }
        JsonObject o = e.getAsJsonObject();
        String t = o.get("t").getAsString();
        JsonElement v = o.get("v");
        switch (t) {
            case "null":
                return null;
            case "string":
                return v.getAsString();
            case "int":
                return v.getAsInt();
            case "long":
                return Long.parseLong(v.getAsString());
            case "double":
                return Double.longBitsToDouble(Long.parseUnsignedLong(v.getAsString(), 16));
            case "float":
                return Float.intBitsToFloat((int) Long.parseLong(v.getAsString(), 16));
            case "bool":
                return v.getAsBoolean();
            case "bigint":
                return new BigInteger(v.getAsString());
            case "list": {
                List<Object> l = new ArrayList<>();
                for (JsonElement x : v.getAsJsonArray()) {
                    l.add(arg(x));
                }
                return l;
            }
            case "map": {
                // hessian's MapDeserializer: new HashMap(), entries put in wire order (here: as given).
                Map<Object, Object> m = new HashMap<>();
                for (JsonElement x : v.getAsJsonArray()) {
                    JsonArray kv = x.getAsJsonArray();
                    m.put(arg(kv.get(0)), arg(kv.get(1)));
                }
                return m;
            }
            default:
                throw new IllegalArgumentException("unknown argument type " + t);
        }
    }

    static String providerURL(JsonObject p, Long timestamp) {
        StringBuilder sb = new StringBuilder("dubbo://");
        sb.append(p.get("host").getAsString()).append(':').append(p.get("port").getAsInt());
        sb.append('/').append(p.has("path") ? p.get("path").getAsString() : "com.foo.DemoService");
        sb.append("?interface=").append(p.has("path") ? p.get("path").getAsString() : "com.foo.DemoService");
        if (p.has("params")) {
            for (Map.Entry<String, JsonElement> e : p.getAsJsonObject("params").entrySet()) {
                sb.append('&').append(e.getKey()).append('=').append(e.getValue().getAsString());
            }
        }
        if (timestamp != null) {
            sb.append("&timestamp=").append(timestamp);
        }
        return sb.toString();
    }

    static Long timestampFor(JsonObject p, long now) {
        if (!p.has("uptime") || p.get("uptime").isJsonNull()) {
            return null;
        }
        return now - p.get("uptime").getAsLong();
    }

    static List<Invoker<Object>> invokers(JsonArray ps, long now) {
        List<Invoker<Object>> out = new ArrayList<>();
        for (JsonElement e : ps) {
            JsonObject p = e.getAsJsonObject();
            out.add(new CaseInvoker(URL.valueOf(providerURL(p, timestampFor(p, now)))));
        }
        return out;
    }

    static RpcInvocation invocation(JsonObject c) {
        String method = c.get("method").getAsString();
        Object[] args = new Object[0];
        if (c.has("args")) {
            JsonArray a = c.getAsJsonArray("args");
            args = new Object[a.size()];
            for (int i = 0; i < a.size(); i++) {
                args[i] = arg(a.get(i));
            }
        }
        Class<?>[] types = new Class<?>[args.length];
        for (int i = 0; i < args.length; i++) {
            types[i] = args[i] == null ? Object.class : args[i].getClass();
        }
        if (c.has("generic") && c.get("generic").getAsBoolean()) {
            String[] names = new String[args.length];
            for (int i = 0; i < args.length; i++) {
                names[i] = types[i].getName();
            }
            return new RpcInvocation(
                    "$invoke",
                    "com.foo.DemoService",
                    "",
                    new Class<?>[] {String.class, String[].class, Object[].class},
                    new Object[] {method, names, args});
        }
        return new RpcInvocation(method, "com.foo.DemoService", "", types, args);
    }

    static JsonObject evaluate(JsonObject c) {
        String kind = c.get("kind").getAsString();
        JsonObject out = new JsonObject();
        out.add("id", c.get("id"));
        JsonArray ps = c.getAsJsonArray("providers");
        RpcInvocation inv = invocation(c);
        JsonArray picks = new JsonArray();
        switch (kind) {
            case "weight": {
                Probe probe = new Probe();
                JsonArray ws = new JsonArray();
                for (JsonElement e : ps) {
                    JsonObject p = e.getAsJsonObject();
                    int w;
                    while (true) {
                        long t0 = System.currentTimeMillis();
                        Invoker<Object> ivk = new CaseInvoker(URL.valueOf(providerURL(p, timestampFor(p, t0))));
                        w = probe.weight(ivk, inv);
                        if (System.currentTimeMillis() == t0) {
                            break;
                        }
                    }
                    ws.add(w);
                }
                out.add("weights", ws);
                return out;
            }
            case "roundrobin": {
                RoundRobinLoadBalance lb = new RoundRobinLoadBalance();
                List<Invoker<Object>> all = invokers(ps, System.currentTimeMillis());
                for (JsonElement ph : c.getAsJsonArray("phases")) {
                    JsonObject phase = ph.getAsJsonObject();
                    List<Invoker<Object>> use = new ArrayList<>();
                    for (JsonElement i : phase.getAsJsonArray("use")) {
                        use.add(all.get(i.getAsInt()));
                    }
                    for (int s = 0; s < phase.get("steps").getAsInt(); s++) {
                        picks.add(use.indexOf(lb.select(use, null, inv)));
                    }
                }
                out.add("picks", picks);
                return out;
            }
            default:
                break;
        }
        List<Invoker<Object>> list = invokers(ps, System.currentTimeMillis());
        LoadBalance lb;
        switch (kind) {
            case "random":
                lb = new RandomLoadBalance();
                break;
            case "consistenthash":
                lb = new ConsistentHashLoadBalance();
                break;
            case "leastactive":
                lb = new LeastActiveLoadBalance();
                break;
            case "shortestresponse":
                lb = new ShortestResponseLoadBalance();
                break;
            case "adaptive":
                lb = new AdaptiveLoadBalance(ApplicationModel.defaultModel());
                break;
            default:
                throw new IllegalArgumentException("unknown kind " + kind);
        }
        String method = c.get("method").getAsString();
        if (c.has("actives")) {
            JsonArray act = c.getAsJsonArray("actives");
            for (int i = 0; i < list.size(); i++) {
                URL u = list.get(i).getUrl();
                RpcStatus.removeStatus(u, method);
                RpcStatus.removeStatus(u);
                if (c.has("succeeded")) {
                    long succ = c.getAsJsonArray("succeeded").get(i).getAsLong();
                    long el = c.getAsJsonArray("elapsed").get(i).getAsLong();
                    for (long k = 0; k < succ; k++) {
                        RpcStatus.beginCount(u, method);
                        RpcStatus.endCount(u, method, k == 0 ? el : 0, true);
                    }
                }
                for (int k = 0; k < act.get(i).getAsInt(); k++) {
                    RpcStatus.beginCount(u, method);
                }
            }
        }
        seed(c.get("seed").getAsLong());
        int steps = c.has("steps") ? c.get("steps").getAsInt() : 1;
        for (int s = 0; s < steps; s++) {
            picks.add(list.indexOf(lb.select(list, null, inv)));
        }
        if (c.has("actives")) {
            for (Invoker<Object> ivk : list) {
                RpcStatus.removeStatus(ivk.getUrl(), method);
                RpcStatus.removeStatus(ivk.getUrl());
            }
        }
        out.add("picks", picks);
        if (kind.equals("consistenthash")) {
            JsonArray forms = new JsonArray();
            Object[] real = org.apache.dubbo.rpc.support.RpcUtils.getArguments(inv);
            if (real != null) {
                for (Object a : real) {
                    forms.add(String.valueOf(a));
                }
            }
            out.add("forms", forms);
        }
        return out;
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        Logs.init(args.get("log", "off"));
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), false);
        JsonObject hello = new JsonObject();
        hello.addProperty("increment", Long.toString(increment()));
        out.println(GSON.toJson(hello));
        out.flush();
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            JsonObject result;
            JsonElement id = null;
            try {
                JsonObject c = JsonParser.parseString(line).getAsJsonObject();
                id = c.get("id");
                result = evaluate(c);
            } catch (Throwable t) {
                result = new JsonObject();
                result.add("id", id);
                result.addProperty("error", String.valueOf(t));
            }
            out.println(GSON.toJson(result));
            out.flush();
        }
        out.flush();
        System.exit(0);
    }
}
