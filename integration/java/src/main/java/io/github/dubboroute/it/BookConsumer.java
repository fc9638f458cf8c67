package io.github.dubboroute.it;

import com.google.gson.JsonObject;
import com.muke.dubbocourse.common.api.Book;
import com.muke.dubbocourse.common.api.BookFacade;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ConfigCenterConfig;
import org.apache.dubbo.config.ReferenceConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;
import org.apache.dubbo.rpc.RpcContext;

/**
 * Java BookFacade consumer. Uses ZooKeeper as registry (interface-level discovery forced) and as config
 * center, so Java's own tag/condition routers read rules from /dubbo/config/dubbo/&lt;key&gt;; with {@code --nacos}
 * the same on Nacos (providers from the Nacos naming service, rules from Nacos config: dataId = the rule key, group
 * {@code dubbo}, as Dubbo Admin writes them).
 *
 * <pre>
 * java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.BookConsumer \
 *   (--zk 127.0.0.1:2191 | --nacos 127.0.0.1:8848 [--namespace N] [--registry-group G]) [--app demo-consumer1] [--calls 10] [--method queryAll|queryByName] [--arg name] \
 *   [--attach dubbo.tag=gray] [--attach dubbo.force.tag=true] [--attach userId=42] \
 *   [--ref-param k=v]... [--wait-ms 3000] [--pause-ms 0] [--retries 0] [--timeout 3000] [--log warning] [--local-host 127.0.0.1]
 *   [--migration FORCE_INTERFACE|APPLICATION_FIRST|FORCE_APPLICATION] [--protocol dubbo|tri]
 *   [--scenario "queryAll dubbo.tag=gray dubbo.force.tag=true"]... [--rules-zk 127.0.0.1:2191]
 *   [--zk-auth-env DUBBOROUTE_ZK_DIGEST]
 * </pre>
 * {@code --zk-auth-env} names an environment variable holding ZooKeeper digest credentials {@code user:password}
 * for the registry and the config center (Dubbo's Curator client then authenticates with them and creates its nodes
 * CREATOR_ALL_ACL). TLS to ZooKeeper is ZooKeeper's own system properties ({@code zookeeper.client.secure},
 * {@code zookeeper.clientCnxnSocket=org.apache.zookeeper.ClientCnxnSocketNetty}, {@code zookeeper.ssl.trustStore.*}).
 * {@code --rules-zk} reads the rules from that ZooKeeper whatever the registry (e.g. providers from Nacos).
 * {@code --protocol} is the reference's protocol: only providers of that protocol are used (unset: any).
 * {@code --pause-ms} sleeps that long after each call (0: calls back to back), to bound the load a long run puts
 * on its providers.
 * {@code --scenario} (repeatable) runs several call shapes in this one JVM, {@code --calls} calls each, in order:
 * the method, then the call's attachments (replacing {@code --method} and {@code --attach}); queryByName gets
 * {@code --arg}. One JVM for many scenarios: a JVM and Dubbo start cost seconds, a call a millisecond.
 * {@code --migration} (default FORCE_INTERFACE) is Dubbo 3's service-discovery migration step; APPLICATION_FIRST
 * is Java 3's default (application-level instances, metadata read from the registry, interface-level fallback).
 * {@code --local-host} (default 127.0.0.1; "auto" keeps Dubbo's choice) pins Dubbo's local host to a loopback
 * address, so providers registered as 127.x are dialed there and not at the machine's other address
 * (see {@link Loopback}).
 * Prints one JSON line per call: {"scenario":s,"call":i,"ok":true,"served_by":"20880","name":"..."} or
 * {"scenario":s,"call":i,"ok":false,"error":"..."} (name: the returned Book's name; scenario: the index of the
 * {@code --scenario}, 0 without any).
 */
public final class BookConsumer {
    private BookConsumer() {}

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv);
        Logs.init(args.get("log", "warning"));
        String localHost = args.get("local-host", "127.0.0.1");
        if (!"auto".equals(localHost)) {
            Loopback.pin(localHost);
        }
        // Interface-level discovery only by default (the registry layout the Java providers and our Go peers use).
        String migration = args.get("migration", "FORCE_INTERFACE");
        System.setProperty("dubbo.application.service-discovery.migration", migration);
        String zk = args.registryAddress();
        String app = args.get("app", "demo-consumer1");
        int calls = args.getInt("calls", 10);
        String method = args.get("method", "queryAll");
        String arg = args.get("arg", "Dubbo in Action");
        List<String> methods = new ArrayList<>();
        List<Map<String, String>> attachmentSets = new ArrayList<>();
        if (args.has("scenario")) {
            for (String sc : args.all("scenario")) {
                String[] words = sc.trim().split("\\s+");
                Map<String, String> atts = new LinkedHashMap<>();
                for (int w = 1; w < words.length; w++) {
                    int eq = words[w].indexOf('=');
                    if (eq <= 0) {
                        throw new IllegalArgumentException("--scenario: attachments are k=v, got " + words[w]);
                    }
                    atts.put(words[w].substring(0, eq), words[w].substring(eq + 1));
                }
                methods.add(words[0]);
                attachmentSets.add(atts);
            }
        } else {
            methods.add(method);
            attachmentSets.add(args.pairs("attach"));
        }

        ApplicationConfig application = new ApplicationConfig(app);
        application.setQosEnable(false);
        application.setRegisterMode("interface");

        RegistryConfig registry = new RegistryConfig(zk);
        Nacos.registryParams(args, registry);
        if (!"FORCE_INTERFACE".equals(migration)) {
            registry.setUseAsMetadataCenter(true); // application-level providers keep their metadata there
        }
        ConfigCenterConfig configCenter = new ConfigCenterConfig();
        // --rules-zk: rules from that ZooKeeper whatever the registry (a Nacos registry with ZooKeeper rules).
        String rules = args.has("rules-zk") ? Args.zkAddress(args.require("rules-zk")) : zk;
        configCenter.setAddress(rules); // rules at /dubbo/config/dubbo/<key> (namespace dubbo, group dubbo)
        if (!args.has("rules-zk")) {
            Nacos.configCenterParams(args, configCenter);
        }
        if (args.has("zk-auth-env")) {
            String creds = System.getenv(args.get("zk-auth-env", ""));
            int colon = creds == null ? -1 : creds.indexOf(':');
            if (colon <= 0) {
                throw new IllegalArgumentException("--zk-auth-env: $" + args.get("zk-auth-env", "") + " is not user:password");
            }
            registry.setUsername(creds.substring(0, colon));
            registry.setPassword(creds.substring(colon + 1));
            configCenter.setUsername(creds.substring(0, colon));
            configCenter.setPassword(creds.substring(colon + 1));
        }

        ReferenceConfig<BookFacade> reference = new ReferenceConfig<>();
        reference.setInterface(BookFacade.class);
        reference.setCheck(false);
        reference.setRetries(args.getInt("retries", 0));
        if (args.has("protocol")) {
            reference.setProtocol(args.get("protocol", null));
        }
        reference.setTimeout(args.getInt("timeout", 3000));
        if (args.has("version")) {
            reference.setVersion(args.get("version", null));
        }
        if (args.has("group")) {
            reference.setGroup(args.get("group", null));
        }
        Map<String, String> refParams = args.pairs("ref-param");
        if (!refParams.isEmpty()) {
            reference.setParameters(refParams);
        }

        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(application)
                .registry(registry)
                .configCenter(configCenter)
                .reference(reference);
        bootstrap.start();
        BookFacade facade = reference.get();

        // Give the registry notification and the rule reads a moment to land before the first call.
        Thread.sleep(args.getInt("wait-ms", 1500));

        int pauseMs = args.getInt("pause-ms", 0);
        for (int s = 0; s < methods.size(); s++) {
            for (int i = 0; i < calls; i++) {
                System.out.println(call(facade, s, i, methods.get(s), arg, attachmentSets.get(s)));
                System.out.flush();
                if (pauseMs > 0) {
                    Thread.sleep(pauseMs);
                }
            }
        }
        bootstrap.stop();
        System.exit(0);
    }

    /** One call with these attachments, as its JSON output line. */
    private static JsonObject call(
            BookFacade facade, int scenario, int i, String method, String arg, Map<String, String> attachments) {
        JsonObject line = new JsonObject();
        line.addProperty("scenario", scenario);
        line.addProperty("call", i);
        try {
            RpcContext.getClientAttachment().clearAttachments();
            for (Map.Entry<String, String> e : attachments.entrySet()) {
                RpcContext.getClientAttachment().setAttachment(e.getKey(), e.getValue());
            }
            Book book;
            if ("queryByName".equals(method)) {
                book = facade.queryByName(arg);
            } else {
                List<Book> all = facade.queryAll();
                book = all == null || all.isEmpty() ? null : all.get(0);
            }
            String author = book == null ? null : book.getAuthor();
            line.addProperty("ok", true);
            line.addProperty(
                    "served_by", author != null && author.startsWith("served-by-") ? author.substring(10) : author);
            if (book != null) {
                line.addProperty("name", book.getName());
            }
        } catch (Throwable t) {
            line.addProperty("ok", false);
            String msg = t.getClass().getSimpleName() + ": " + t.getMessage();
            msg = msg.replaceAll("\\s+", " ");
            line.addProperty("error", msg.length() > 600 ? msg.substring(0, 600) + "..." : msg);
        }
        return line;
    }
}
