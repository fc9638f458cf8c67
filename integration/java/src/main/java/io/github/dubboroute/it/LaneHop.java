package io.github.dubboroute.it;

import com.google.gson.Gson;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonObject;
import com.sun.net.httpserver.HttpServer;
import io.github.dubboroute.lane.GrayLaneLoadBalance;
import io.github.dubboroute.lanes.HopB;
import io.github.dubboroute.lanes.HopC;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.function.Function;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ConfigCenterConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.RpcContext;

/**
 * One Java service of the full-link lane chains (integration/lanes): exports HopB or HopC once per
 * {@code --export name:port:kind} (several instances in one JVM, each in its own module on its own port; kind
 * {@code normal}, {@code tag}: tagged {@code dubbo.tag=gray}, or {@code rule}: parameter {@code status=gray}) and, while serving,
 * calls {@code --next} (HopB or HopC). With {@code --drive HopB|HopC} it is also a chain's entry: it serves HTTP
 * {@code POST /calls} (a JSON list of {"tag","user"} in, the list of traces out) on a free loopback port.
 *
 * <pre>
 * java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.LaneHop --zk 127.0.0.1:2181 --app lanes-b \
 *   --iface HopB --next HopC --export b-tag:20881:tag --export b-rule:20882:rule --export b-normal:20883:normal \
 *   [--group g] [--ref-param grayUserids=1,2] [--ref-param grayPercent=5] [--loadbalance graylane] [--drive HopB]
 * </pre>
 * Prints "READY &lt;name&gt; &lt;port&gt;" per export, or "READY &lt;name&gt; http &lt;host:port&gt;" with --drive.
 * The trace segment format is the Go hop's (integration/lanes/hop).
 */
public final class LaneHop {
    private LaneHop() {}

    private static Function<String, String> next;

    static String segment(String name, String cls, int port) {
        Invocation inv = RpcContext.getServiceContext().getInvocation();
        Map<String, Object> at = inv == null ? Map.of() : inv.getObjectAttachments();
        TreeSet<String> keys = new TreeSet<>(at.keySet());
        return "name=" + name + ";class=" + cls + ";port=" + port + ";tag=" + str(at, "dubbo.tag") + ";user="
                + str(at, "userId") + ";decision=" + str(at, "dubboroute.gray") + ";timeout=" + str(at, "timeout")
                + ";keys=" + String.join(",", keys);
    }

    private static String str(Map<String, Object> m, String k) {
        Object v = m.get(k);
        return v instanceof String s ? s : "";
    }

    static String hop(String name, String cls, int port, String in) {
        String seg = segment(name, cls, port);
        if (next == null) {
            return seg;
        }
        try {
            return seg + " > " + next.apply(in);
        } catch (RuntimeException e) {
            return seg + " > error=" + String.valueOf(e.getMessage()).replace('>', '}').replaceAll("\\s+", " ");
        }
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        Logs.init(args.get("log", "warning"));
        Loopback.pin("127.0.0.1");
        System.setProperty(RegisterHostCustomizer.PROPERTY, "127.0.0.1");
        System.setProperty("dubbo.application.service-discovery.migration", "FORCE_INTERFACE");
        String zk = Args.zkAddress(args.require("zk"));

        ApplicationConfig application = new ApplicationConfig(args.require("app"));
        application.setQosEnable(false);
        application.setRegisterMode("interface");
        RegistryConfig registry = new RegistryConfig(zk);
        registry.setUseAsConfigCenter(false);
        registry.setUseAsMetadataCenter(false);
        ConfigCenterConfig configCenter = new ConfigCenterConfig();
        configCenter.setAddress(zk);

        DubboBootstrap bootstrap = DubboBootstrap.getInstance().application(application).registry(registry)
                .configCenter(configCenter);

        ReferenceConfig<?> nextRef = args.has("next") ? reference(args, args.require("next")) : null;
        ReferenceConfig<?> driveRef = args.has("drive") ? reference(args, args.require("drive")) : null;
        for (ReferenceConfig<?> r : new ReferenceConfig<?>[] {nextRef, driveRef}) {
            if (r != null) {
                bootstrap.reference(r);
            }
        }

        List<String> ready = new ArrayList<>();
        if (args.has("iface")) {
            Class<?> type = hopClass(args.require("iface"));
            for (String spec : args.all("export")) {
                String[] p = spec.split(":");
                String name = p[0], kind = p[2];
                String cls = "normal".equals(kind) ? "normal" : "gray";
                int port = Integer.parseInt(p[1]);
                ProtocolConfig protocol = new ProtocolConfig("dubbo", port);
                protocol.setId("dubbo-" + port);
                protocol.setSerialization("hessian2");
                protocol.setPreferSerialization("hessian2");
                ServiceConfig<Object> service = new ServiceConfig<>();
                service.setInterface(type);
                service.setRef(type == HopB.class
                        ? (HopB) in -> hop(name, cls, port, in)
                        : (HopC) in -> hop(name, cls, port, in));
                service.setProtocol(protocol);
                if (args.has("group")) {
                    service.setGroup(args.require("group"));
                }
                if ("rule".equals(kind)) {
                    service.setParameters(Map.of("status", "gray"));
                } else if ("tag".equals(kind)) {
                    service.setTag("gray");
                }
                // One module per instance: a module holds one service config per interface.
                bootstrap.protocol(protocol);
                bootstrap.newModule().service(service).endModule();
                ready.add("READY " + name + " " + port);
            }
        }
        bootstrap.start();

        if (nextRef != null) {
            next = caller(nextRef.get());
        }
        for (String line : ready) {
            System.out.println(line);
        }
        if (driveRef != null) {
            drive(args.require("app"), caller(driveRef.get()));
        }
        System.out.flush();
        new CountDownLatch(1).await();
    }

    private static ReferenceConfig<Object> reference(Args args, String iface) {
        ReferenceConfig<Object> ref = new ReferenceConfig<>();
        ref.setInterface(hopClass(iface));
        ref.setCheck(false);
        ref.setRetries(0);
        ref.setTimeout(5000);
        ref.setLoadbalance(args.get("loadbalance", GrayLaneLoadBalance.NAME));
        if (args.has("group")) {
            ref.setGroup(args.require("group"));
        }
        Map<String, String> refParams = args.pairs("ref-param");
        if (!refParams.isEmpty()) {
            ref.setParameters(refParams);
        }
        return ref;
    }

    private static Function<String, String> caller(Object proxy) {
        return proxy instanceof HopB b ? b::hop : ((HopC) proxy)::hop;
    }

    private static Class<?> hopClass(String s) {
        return switch (s) {
            case "HopB", "io.github.dubboroute.lanes.HopB" -> HopB.class;
            case "HopC", "io.github.dubboroute.lanes.HopC" -> HopC.class;
            default -> throw new IllegalArgumentException("unknown hop interface " + s);
        };
    }

    private static void drive(String name, Function<String, String> call) throws Exception {
        Gson gson = new Gson();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/calls", ex -> {
            JsonArray reqs = gson.fromJson(new String(ex.getRequestBody().readAllBytes(), StandardCharsets.UTF_8),
                    JsonArray.class);
            JsonArray out = new JsonArray();
            for (JsonElement e : reqs) {
                JsonObject r = e.getAsJsonObject();
                // An application attachment that is not a lane key: it must not travel past the first hop.
                RpcContext.getClientAttachment().setAttachment("x-probe", "1");
                if (r.has("tag")) {
                    RpcContext.getClientAttachment().setAttachment("dubbo.tag", r.get("tag").getAsString());
                }
                if (r.has("user")) {
                    RpcContext.getClientAttachment().setAttachment("userId", r.get("user").getAsString());
                }
                if (r.has("cohort")) {
                    RpcContext.getClientAttachment().setAttachment("cohort", r.get("cohort").getAsString());
                }
                String trace;
                try {
                    trace = call.apply("x");
                } catch (RuntimeException t) {
                    trace = "error=" + String.valueOf(t.getMessage()).replaceAll("\\s+", " ");
                }
                out.add(trace);
            }
            byte[] body = gson.toJson(out).getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, body.length);
            try (OutputStream os = ex.getResponseBody()) {
                os.write(body);
            }
        });
        server.start();
        System.out.println("READY " + name + " http 127.0.0.1:" + server.getAddress().getPort());
        System.out.flush();
    }
}
