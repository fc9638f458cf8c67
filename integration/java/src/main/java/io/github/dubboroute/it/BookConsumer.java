package io.github.dubboroute.it;

import com.google.gson.JsonObject;
import com.muke.dubbocourse.common.api.Book;
import com.muke.dubbocourse.common.api.BookFacade;
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
 * center, so Java's own tag/condition routers read rules from /dubbo/config/dubbo/&lt;key&gt;.
 *
 * <pre>
 * java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.BookConsumer \
 *   --zk 127.0.0.1:2191 [--app demo-consumer1] [--calls 10] [--method queryAll|queryByName] [--arg name] \
 *   [--attach dubbo.tag=gray] [--attach dubbo.force.tag=true] [--attach userId=42] \
 *   [--ref-param k=v]... [--wait-ms 3000] [--retries 0] [--timeout 3000] [--log warning] [--local-host 127.0.0.1]
 *   [--migration FORCE_INTERFACE|APPLICATION_FIRST|FORCE_APPLICATION]
 * </pre>
 * {@code --migration} (default FORCE_INTERFACE) is Dubbo 3's service-discovery migration step; APPLICATION_FIRST
 * is Java 3's default (application-level instances, metadata read from the registry, interface-level fallback).
 * {@code --local-host} (default 127.0.0.1; "auto" keeps Dubbo's choice) pins Dubbo's local host to a loopback
 * address, so providers registered as 127.x are dialed there and not at the machine's other address
 * (see {@link Loopback}).
 * Prints one JSON line per call: {"call":i,"ok":true,"served_by":"20880"} or {"call":i,"ok":false,"error":"..."}.
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
        String zk = Args.zkAddress(args.require("zk"));
        String app = args.get("app", "demo-consumer1");
        int calls = args.getInt("calls", 10);
        String method = args.get("method", "queryAll");
        String arg = args.get("arg", "Dubbo in Action");
        Map<String, String> attachments = args.pairs("attach");

        ApplicationConfig application = new ApplicationConfig(app);
        application.setQosEnable(false);
        application.setRegisterMode("interface");

        RegistryConfig registry = new RegistryConfig(zk);
        if (!"FORCE_INTERFACE".equals(migration)) {
            registry.setUseAsMetadataCenter(true); // application-level providers keep their metadata there
        }
        ConfigCenterConfig configCenter = new ConfigCenterConfig();
        configCenter.setAddress(zk); // rules at /dubbo/config/dubbo/<key> (namespace dubbo, group dubbo)

        ReferenceConfig<BookFacade> reference = new ReferenceConfig<>();
        reference.setInterface(BookFacade.class);
        reference.setCheck(false);
        reference.setRetries(args.getInt("retries", 0));
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

        for (int i = 0; i < calls; i++) {
            JsonObject line = new JsonObject();
            line.addProperty("call", i);
            try {
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
                        "served_by",
                        author != null && author.startsWith("served-by-") ? author.substring(10) : author);
            } catch (Throwable t) {
                line.addProperty("ok", false);
                String msg = t.getClass().getSimpleName() + ": " + t.getMessage();
                msg = msg.replaceAll("\\s+", " ");
                line.addProperty("error", msg.length() > 600 ? msg.substring(0, 600) + "..." : msg);
            }
            System.out.println(line);
            System.out.flush();
        }
        bootstrap.stop();
        System.exit(0);
    }
}
