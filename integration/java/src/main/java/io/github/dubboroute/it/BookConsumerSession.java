package io.github.dubboroute.it;

import com.google.gson.JsonArray;
import com.google.gson.JsonObject;
import com.muke.dubbocourse.common.api.Book;
import com.muke.dubbocourse.common.api.BookFacade;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ConfigCenterConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.registry.client.migration.MigrationInvoker;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.cluster.ClusterInvoker;

/**
 * A long-lived Java BookFacade consumer driven over stdin, so that a test that changes dynamic configuration
 * between batches of calls starts one JVM instead of one per batch. Set up as {@link BookConsumer} sets up its
 * reference (interface-level ZooKeeper registry, ZooKeeper config center, retries 0, timeout 3000, loopback pin).
 *
 * <pre>
 * java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.BookConsumerSession --zk 127.0.0.1:2191 [--app demo-consumer1]
 * </pre>
 * Commands, one per line:
 * <ul>
 *   <li>{@code state}: one JSON line {"invokers":[{"port","params":{k:v}}]}: the invokers of the reference's
 *       directory as they are now (after the configurators; disabled providers are not invokers), with the
 *       parameters the balancers and the cluster read from their URLs (weight, warmup, loadbalance, timeout,
 *       retries, disabled).</li>
 *   <li>{@code calls N METHOD ARG}: N calls, one JSON line each as {@link BookConsumer} prints them, then
 *       {"end":true}.</li>
 *   <li>{@code quit}.</li>
 * </ul>
 * Prints {"ready":true} once the reference is built.
 */
public final class BookConsumerSession {
    private static final String[] STATE_KEYS = {"weight", "warmup", "loadbalance", "timeout", "retries", "disabled"};

    private BookConsumerSession() {}

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        Logs.init(args.get("log", "warning"));
        Loopback.pin(args.get("local-host", "127.0.0.1"));
        System.setProperty("dubbo.application.service-discovery.migration", "FORCE_INTERFACE");
        String zk = args.registryAddress();

        ApplicationConfig application = new ApplicationConfig(args.get("app", "demo-consumer1"));
        application.setQosEnable(false);
        application.setRegisterMode("interface");
        ConfigCenterConfig configCenter = new ConfigCenterConfig();
        configCenter.setAddress(zk);
        Nacos.configCenterParams(args, configCenter);
        RegistryConfig registry = new RegistryConfig(zk);
        Nacos.registryParams(args, registry);
        ReferenceConfig<BookFacade> reference = new ReferenceConfig<>();
        reference.setInterface(BookFacade.class);
        reference.setCheck(false);
        reference.setRetries(args.getInt("retries", 0));
        reference.setTimeout(args.getInt("timeout", 3000));
        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(application)
                .registry(registry)
                .configCenter(configCenter)
                .reference(reference);
        bootstrap.start();
        BookFacade facade = reference.get();
        System.out.println("{\"ready\":true}");
        System.out.flush();

        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.trim().split(" ", 4);
            if ("quit".equals(f[0])) {
                break;
            } else if ("state".equals(f[0])) {
                System.out.println(state(reference));
            } else if ("calls".equals(f[0]) && f.length == 4) {
                int n = Integer.parseInt(f[1]);
                for (int i = 0; i < n; i++) {
                    System.out.println(call(facade, i, f[2], f[3]));
                }
                System.out.println("{\"end\":true}");
            } else {
                System.out.println("{\"error\":\"unknown command\"}");
            }
            System.out.flush();
        }
        bootstrap.stop();
        System.exit(0);
    }

    private static JsonObject state(ReferenceConfig<BookFacade> reference) {
        JsonArray invokers = new JsonArray();
        Invoker<?> invoker = reference.getInvoker();
        ClusterInvoker<?> cluster = invoker instanceof MigrationInvoker
                ? ((MigrationInvoker<?>) invoker).getCurrentAvailableInvoker()
                : (ClusterInvoker<?>) invoker;
        if (cluster != null) {
            for (Invoker<?> i : cluster.getDirectory().getAllInvokers()) {
                JsonObject o = new JsonObject();
                o.addProperty("port", String.valueOf(i.getUrl().getPort()));
                JsonObject params = new JsonObject();
                for (String k : STATE_KEYS) {
                    String v = i.getUrl().getParameter(k);
                    if (v != null && !v.isEmpty()) {
                        params.addProperty(k, v);
                    }
                }
                o.add("params", params);
                invokers.add(o);
            }
        }
        JsonObject out = new JsonObject();
        out.add("invokers", invokers);
        return out;
    }

    private static JsonObject call(BookFacade facade, int i, String method, String arg) {
        JsonObject line = new JsonObject();
        line.addProperty("call", i);
        try {
            Book book;
            if ("queryByName".equals(method)) {
                book = facade.queryByName(arg);
            } else {
                List<Book> all = facade.queryAll();
                book = all == null || all.isEmpty() ? null : all.get(0);
            }
            String author = book == null ? null : book.getAuthor();
            line.addProperty("ok", true);
            line.addProperty("served_by", author != null && author.startsWith("served-by-") ? author.substring(10) : author);
        } catch (Throwable t) {
            line.addProperty("ok", false);
            String msg = (t.getClass().getSimpleName() + ": " + t.getMessage()).replaceAll("\\s+", " ");
            line.addProperty("error", msg.length() > 600 ? msg.substring(0, 600) + "..." : msg);
        }
        return line;
    }
}
