package io.github.dubboroute.it;

import com.muke.dubbocourse.common.api.Book;
import com.muke.dubbocourse.common.api.BookFacade;
import com.google.gson.Gson;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import org.apache.dubbo.config.ApplicationConfig;
import org.apache.dubbo.config.ConfigCenterConfig;
import org.apache.dubbo.config.ProtocolConfig;
import org.apache.dubbo.config.RegistryConfig;
import org.apache.dubbo.config.ServiceConfig;
import org.apache.dubbo.config.bootstrap.DubboBootstrap;

/**
 * Java BookFacade provider: plain Dubbo API, dubbo protocol (or triple, or both), hessian2, ZooKeeper or Nacos registry,
 * interface-level registration by default ({@code --register-mode instance|all} registers application-level too, with the
 * metadata in the registry). Every Book it returns has author "served-by-&lt;port&gt;".
 *
 * <pre>
 * java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.BookProvider \
 *   (--zk 127.0.0.1:2191 | --nacos 127.0.0.1:8848) --port 20880 [--app demo-provider] [--tag gray] [--param status=gray]... \
 *   [--host a.b.c.d (not 127.x)] [--register-host 127.0.0.1] [--version 1.0.0] [--group g] [--log warning]
 *   [--config-center]
 *   [--register-mode interface|instance|all] [--protocol dubbo|tri|dubbo,tri] [--tri-port 20881]
 * </pre>
 * {@code --protocol} (default dubbo) exports the service over Dubbo's dubbo protocol, triple ({@code tri}: the
 * interface is not an IDL one, so Java's triple sends hessian2 inside its protobuf wrapper), or both: then
 * {@code --port} is the dubbo port and {@code --tri-port} the triple one. Every Book is signed with {@code --port},
 * whichever protocol served it. {@code queryByName("attachments")} answers a Book whose name is the JSON object of
 * the string attachments the call arrived with (see {@link EchoAttachmentsFilter}).
 * {@code --register-host} registers that host instead of the bound one (see {@link RegisterHostCustomizer}):
 * the only way to make a Java provider register 127.0.0.1.
 * {@code --nacos} registers in Nacos instead of ZooKeeper: interface level as the Nacos service
 * {@code providers:<iface>:<version>:<group>}, application level as the service {@code <app>} with the metadata in
 * Nacos config (dataId {@code <app>}, group {@code <revision>}); registry group {@code --registry-group} (Nacos group,
 * default DEFAULT_GROUP) and {@code --namespace}.
 * Prints "READY &lt;port&gt;" on stdout once the service is exported and registered; runs until killed.
 */
public final class BookProvider {
    private BookProvider() {}

    static final class BookFacadeImpl implements BookFacade {
        private final String servedBy;

        BookFacadeImpl(int port) {
            this.servedBy = "served-by-" + port;
        }

        @Override
        public List<Book> queryAll() {
            // An ArrayList, as real services return: hessian2 writes List.of(...) with the JDK-internal class name
            // java.util.ImmutableCollections$ListN, which dubbo-go-hessian2 cannot decode.
            return new ArrayList<>(List.of(new Book("Dubbo in Action", servedBy), new Book("Go in Action", servedBy)));
        }

        @Override
        public Book queryByName(String name) {
            // "count:<token>:<rest>" appends a line to $DUBBOROUTE_CALLS_DIR/<token> (a test counts the attempts
            // consumers made across providers), then answers <rest>; "throw" throws a business exception.
            if (name != null && name.startsWith("count:")) {
                String rest = name.substring(6);
                int colon = rest.indexOf(':');
                String token = colon < 0 ? rest : rest.substring(0, colon);
                name = colon < 0 ? "" : rest.substring(colon + 1);
                countCall(token);
                if ("throw".equals(name)) {
                    throw new IllegalStateException("business failure " + servedBy);
                }
            }
            // "sleep-ms=N" answers after N ms (at most 5 s): a slow call for timeout tests.
            if (name != null && name.startsWith("sleep-ms=")) {
                try {
                    Thread.sleep(Math.min(5000, Long.parseLong(name.substring(9))));
                } catch (InterruptedException | NumberFormatException e) {
                    Thread.currentThread().interrupt();
                }
            }
            if ("attachments".equals(name)) {
                return new Book(new Gson().toJson(EchoAttachmentsFilter.serving()), servedBy);
            }
            return new Book(name, servedBy);
        }
    }

    static synchronized void countCall(String token) {
        String dir = System.getenv("DUBBOROUTE_CALLS_DIR");
        if (dir == null || dir.isEmpty() || token.isEmpty() || token.contains("/") || token.contains("\\") || token.startsWith(".")) {
            return;
        }
        try {
            java.nio.file.Files.write(java.nio.file.Paths.get(dir, token), "java\n".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                    java.nio.file.StandardOpenOption.CREATE, java.nio.file.StandardOpenOption.APPEND);
        } catch (java.io.IOException e) {
            // counting is best effort
        }
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, "config-center");
        Logs.init(args.get("log", "warning"));
        String zk = args.registryAddress();
        int port = args.getInt("port", 20880);
        String app = args.get("app", "demo-provider");
        // Java Dubbo never registers a 127.x address (NetUtils.isInvalidLocalHost; DUBBO_IP_TO_REGISTRY=127.0.0.1
        // is rejected too): without --host it binds 0.0.0.0 and registers the first non-loopback address.
        String host = args.get("host", null);
        if (args.has("register-host")) {
            System.setProperty(RegisterHostCustomizer.PROPERTY, args.require("register-host"));
        }
        Map<String, String> params = args.pairs("param");

        // interface: /dubbo/<iface>/providers only (Java 2.x's layout); instance: /services/<app> only; all: both
        // (Java 3's default).
        String registerMode = args.get("register-mode", "interface");
        ApplicationConfig application = new ApplicationConfig(app);
        application.setRegisterMode(registerMode);
        application.setQosEnable(false);
        boolean appLevel = !registerMode.equals("interface");
        if (appLevel) {
            // Metadata in the registry (remote), so consumers need no MetadataService port of this process.
            application.setMetadataType("remote");
        }

        RegistryConfig registry = new RegistryConfig(zk);
        Nacos.registryParams(args, registry);
        registry.setUseAsConfigCenter(false);
        registry.setUseAsMetadataCenter(appLevel);
        // --config-center: read dynamic configuration (<app>.configurators, <service>.configurators) from the
        // registry's ZooKeeper, so that side: provider items make this provider re-register (issue 13).
        ConfigCenterConfig configCenter = null;
        if (args.has("config-center")) {
            configCenter = new ConfigCenterConfig();
            configCenter.setAddress(zk);
        }

        List<ProtocolConfig> protocols = new ArrayList<>();
        for (String name : args.get("protocol", "dubbo").split(",")) {
            int p = port;
            if (name.equals("tri") && protocols.size() > 0) {
                p = Integer.parseInt(args.require("tri-port"));
            }
            if (!name.equals("dubbo") && !name.equals("tri")) {
                throw new IllegalArgumentException("--protocol: want dubbo, tri or dubbo,tri, got " + name);
            }
            ProtocolConfig protocol = new ProtocolConfig(name, p);
            protocol.setId(name);
            if (host != null) {
                protocol.setHost(host);
            }
            protocol.setSerialization("hessian2");
            protocol.setPreferSerialization("hessian2");
            protocols.add(protocol);
        }

        ServiceConfig<BookFacade> service = new ServiceConfig<>();
        service.setInterface(BookFacade.class);
        service.setRef(new BookFacadeImpl(port));
        service.setProtocols(protocols);
        service.setFilter("dubboroute-echo");
        if (args.has("tag")) {
            service.setTag(args.get("tag", null)); // registered as URL parameter dubbo.tag
        }
        if (args.has("version")) {
            service.setVersion(args.get("version", null));
        }
        if (args.has("group")) {
            service.setGroup(args.get("group", null));
        }
        if (!params.isEmpty()) {
            service.setParameters(params);
        }

        DubboBootstrap bootstrap = DubboBootstrap.getInstance()
                .application(application)
                .registry(registry)
                .protocols(protocols)
                .service(service);
        if (configCenter != null) {
            bootstrap.configCenter(configCenter);
        }
        bootstrap.start();

        System.out.println("READY " + port);
        System.out.flush();
        new CountDownLatch(1).await();
    }
}
