package io.github.dubboroute.it;

import com.google.gson.Gson;
import com.google.gson.GsonBuilder;
import com.google.gson.JsonArray;
import com.google.gson.JsonElement;
import com.google.gson.JsonNull;
import com.google.gson.JsonObject;
import com.google.gson.JsonParser;
import com.google.gson.JsonPrimitive;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.math.BigInteger;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.config.ConfigurationUtils;
import org.apache.dubbo.common.url.component.DubboServiceAddressURL;
import org.apache.dubbo.common.utils.Holder;
import org.apache.dubbo.registry.ProviderFirstParams;
import org.apache.dubbo.rpc.Invocation;
import org.apache.dubbo.rpc.Invoker;
import org.apache.dubbo.rpc.Result;
import org.apache.dubbo.rpc.RpcContext;
import org.apache.dubbo.rpc.RpcException;
import org.apache.dubbo.rpc.RpcInvocation;
import org.apache.dubbo.rpc.cluster.Constants;
import org.apache.dubbo.rpc.cluster.SingleRouterChain;
import org.apache.dubbo.rpc.cluster.router.RouterSnapshotNode;
import org.apache.dubbo.rpc.cluster.router.RouterSnapshotSwitcher;
import org.apache.dubbo.rpc.cluster.router.condition.ConditionStateRouter;
import org.apache.dubbo.rpc.cluster.router.condition.MultiDestConditionRouter;
import org.apache.dubbo.rpc.cluster.router.condition.config.ListenableStateRouter;
import org.apache.dubbo.rpc.cluster.router.AbstractRouterRule;
import org.apache.dubbo.rpc.cluster.router.condition.config.model.ConditionRouterRule;
import org.apache.dubbo.rpc.cluster.router.condition.config.model.ConditionRuleParser;
import org.apache.dubbo.rpc.cluster.router.condition.config.model.ConditionSubSet;
import org.apache.dubbo.rpc.cluster.router.condition.config.model.DestinationSet;
import org.apache.dubbo.rpc.cluster.router.condition.config.model.MultiDestCondition;
import org.apache.dubbo.rpc.cluster.router.condition.config.model.MultiDestConditionRouterRule;
import org.apache.dubbo.rpc.cluster.router.affinity.AffinityStateRouter;
import org.apache.dubbo.rpc.cluster.router.affinity.config.AffinityServiceStateRouter;
import org.apache.dubbo.rpc.cluster.router.affinity.config.model.AffinityRouterRule;
import org.apache.dubbo.rpc.cluster.router.affinity.config.model.AffinityRuleParser;
import org.apache.dubbo.rpc.cluster.router.mesh.route.MeshRuleCache;
import org.apache.dubbo.rpc.cluster.router.mesh.route.MeshRuleManager;
import org.apache.dubbo.rpc.cluster.router.mesh.route.StandardMeshRuleRouter;
import org.apache.dubbo.rpc.cluster.router.mesh.rule.VsDestinationGroup;
import org.apache.dubbo.rpc.cluster.router.mesh.rule.destination.DestinationRule;
import org.apache.dubbo.rpc.cluster.router.mesh.rule.virtualservice.VirtualServiceRule;
import org.apache.dubbo.common.utils.PojoUtils;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import org.yaml.snakeyaml.representer.Representer;
import org.apache.dubbo.rpc.cluster.router.mock.MockInvokersSelector;
import org.apache.dubbo.rpc.cluster.router.script.ScriptStateRouter;
import org.apache.dubbo.rpc.cluster.router.script.config.model.ScriptRule;
import org.apache.dubbo.rpc.cluster.router.state.AbstractStateRouter;
import org.apache.dubbo.rpc.cluster.router.state.BitList;
import org.apache.dubbo.rpc.cluster.router.state.StateRouter;
import org.apache.dubbo.rpc.cluster.router.state.StateRouterFactory;
import org.apache.dubbo.rpc.cluster.router.state.TailStateRouter;
import org.apache.dubbo.rpc.cluster.router.tag.TagStateRouter;
import org.apache.dubbo.rpc.cluster.router.tag.model.TagRouterRule;
import org.apache.dubbo.rpc.cluster.router.tag.model.TagRuleParser;
import org.apache.dubbo.rpc.model.ApplicationModel;
import org.apache.dubbo.rpc.model.FrameworkModel;
import org.apache.dubbo.rpc.model.ModuleModel;

/**
 * The routing oracle: Java Dubbo itself (the {@code org.apache.dubbo:dubbo} jar, see pom.xml for the version)
 * evaluating the JSON cases of {@code dubboroute route} (issue 9). Nothing here re-implements a routing rule:
 * rules go through Dubbo's parsers and routers, and the chain is Dubbo's {@link SingleRouterChain} built from
 * the {@code StateRouterFactory} extensions Dubbo activates for the consumer URL (mock, mesh, tag, affinity,
 * service, provider-app, app, script), in Dubbo's order, with Dubbo's fail-fast.
 *
 * <p>Usage: {@code java -cp target/dubboroute-java-it.jar io.github.dubboroute.it.Oracle [--samples N]
 * [--destinations] [--client-attachments] [--log off|severe|warning|info] < cases.jsonl > results.jsonl}
 *
 * <p>Script rules ({@code <provider-app>.script-router}) go through Dubbo's own AppScriptStateRouter with standalone
 * Nashorn 15.4 (+ ASM 7.3.1) on the class path (pom.xml), so they run as on a Java 8/11 consumer.
 * {@code --client-attachments} makes the case's attachments the client attachments too (the script's
 * {@code context} binding), as ConsumerContextFilter leaves them in a consumer.
 *
 * <p>Input, one JSON object per line:
 * {@code {"id","rules":[R...],"consumer_url","invocation":{"method","arguments","attachments"},"providers":[{"id","url"}]}}
 * with R one of {@code {"key","content"}} (a config-center rule; the same key given again later is a
 * MODIFIED event, {@code "content": null} a DELETED event), {@code {"condition","force","enabled"}} or
 * {@code {"url":"condition://...?rule=..."}}. Optional per-case {@code "samples": N} and
 * {@code "destinations": true} override the command-line modes.
 *
 * <p>Output, one line per case: {@code {"id","result":[ids],"rejected":[{"rule":i,"error"}]}} plus
 * {@code "unread":[{"rule":i,"key"}]} for config keys no Java router subscribed to (e.g. a service key for
 * another interface, an app key that is neither the consumer's nor the first provider's application, a
 * {@code .gray-router} key: Java has no gray router). With samples: {@code "outcomes":[{"result","count"}]}.
 * With destinations: {@code "destinations":[{"result","p","prob","weight","picks"}]}, see {@link Dfs}.
 *
 * <p>How cases are fed in, and where this differs from a live consumer:
 * <ul>
 *   <li>Config-center rules: an in-memory {@link MemoryDynamicConfiguration} is installed as the module's
 *       dynamic configuration, so the routers read it exactly as from ZooKeeper (at construction for the
 *       service/app keys, at the first address notification for the provider-application keys).</li>
 *   <li>Single conditions and registry URLs become {@link ConditionStateRouter}s, inserted right after the
 *       tag router, in the order given. (Java 3.x ignores registry router URLs altogether, spec §2.5; the
 *       contract treats them as one condition each.)</li>
 *   <li>Provider URLs are {@link DubboServiceAddressURL}s built as {@code CacheableFailbackRegistry} builds
 *       them for interface-level ZooKeeper discovery: {@code timestamp} and {@code pid} removed from the
 *       provider, the "provider-first" keys (release, dubbo, methods, timestamp, dubbo.tag) removed from
 *       the consumer URL they wrap. So {@code toOriginalMap()} is the provider's own parameters, and
 *       {@code getParameter(k)} prefers the consumer's value for the other keys (as in Java).
 *       Not emulated: the registry's interface/group/version/category matching (every provider given is
 *       treated as subscribed), and configurator (override) rules.</li>
 * </ul>
 */
public final class Oracle {
    private static final Gson GSON = new GsonBuilder().disableHtmlEscaping().serializeNulls().create();
    private static final String CONDITION_SUFFIX = ".condition-router";
    private static final String TAG_SUFFIX = ".tag-router";
    private static final String MESH_SUFFIX = ".MESHAPPRULE";
    private static final String AFFINITY_SUFFIX = ".affinity-router";
    private static final String SCRIPT_SUFFIX = ".script-router";
    private static final int MAX_LEAVES = 4096;

    private final ApplicationModel app;
    private final ModuleModel module;
    private final RouterSnapshotSwitcher switcher;
    private final int defaultSamples;
    private final boolean defaultDestinations;
    /** --client-attachments: the case's attachments are also the client attachments (the script oracle). */
    private boolean clientAttachments;

    private Oracle(int samples, boolean destinations) {
        FrameworkModel framework = new FrameworkModel();
        this.app = framework.newApplication();
        // Only so that Dubbo's internal look-ups of "the application" do not throw per case; routing uses the
        // consumer URL's application parameter, never this name.
        app.getApplicationConfigManager().setApplication(new org.apache.dubbo.config.ApplicationConfig("dubboroute-oracle"));
        this.module = app.newModule();
        this.switcher = framework.getBeanFactory().getBean(RouterSnapshotSwitcher.class);
        this.defaultSamples = samples;
        this.defaultDestinations = destinations;
    }

    public static void main(String[] argv) throws Exception {
        Args args = new Args(argv, "destinations", "client-attachments");
        Logs.init(args.get("log", "off"));
        boolean destinations = args.has("destinations");
        if (destinations) {
            RandomControl.selfTest();
            RandomControl.selfTestInt();
        }
        Oracle oracle = new Oracle(args.getInt("samples", 0), destinations);
        oracle.clientAttachments = args.has("client-attachments");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintWriter out = new PrintWriter(new java.io.OutputStreamWriter(System.out, StandardCharsets.UTF_8), false);
        String line;
        int n = 0;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) {
                continue;
            }
            n++;
            JsonObject result;
            JsonElement id = JsonNull.INSTANCE;
            try {
                JsonObject c = JsonParser.parseString(line).getAsJsonObject();
                id = c.has("id") ? c.get("id") : JsonNull.INSTANCE;
                result = oracle.evaluate(c);
            } catch (Throwable t) {
                result = new JsonObject();
                result.add("id", id);
                result.addProperty("error", oneLine(t));
            }
            out.println(GSON.toJson(result));
            out.flush();
        }
        out.flush();
        if (args.has("stats")) {
            System.err.println("oracle: " + n + " cases");
        }
        System.exit(0);
    }

    // ------------------------------------------------------------------------------------------------

    /** One provider for the router chain. Only getUrl() matters to routers. */
    static final class CaseInvoker implements Invoker<Object> {
        final String id;
        final int index;
        final URL url;

        CaseInvoker(String id, int index, URL url) {
            this.id = id;
            this.index = index;
            this.url = url;
        }

        @Override
        public Class<Object> getInterface() {
            return Object.class;
        }

        @Override
        public Result invoke(Invocation invocation) throws RpcException {
            throw new RpcException("oracle invokers are not callable");
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

        @Override
        public String toString() {
            return id + "=" + url.getAddress();
        }
    }

    private static final class KeyedRule {
        final int index;
        final String key;
        final String content;

        KeyedRule(int index, String key, String content) {
            this.index = index;
            this.key = key;
            this.content = content;
        }
    }

    private JsonObject evaluate(JsonObject c) throws Exception {
        JsonObject out = new JsonObject();
        out.add("id", c.has("id") ? c.get("id") : JsonNull.INSTANCE);

        URL consumer = URL.valueOf(str(c, "consumer_url")).setScopeModel(module);

        MemoryDynamicConfiguration config = new MemoryDynamicConfiguration();
        module.modelEnvironment().setDynamicConfiguration(config);

        // Providers, as interface-level registry discovery hands them to the directory.
        URL consumerForProviders = removeProviderFirstParams(consumer);
        List<Invoker<Object>> invokerList = new ArrayList<>();
        JsonArray providers = c.has("providers") ? c.getAsJsonArray("providers") : new JsonArray();
        for (int i = 0; i < providers.size(); i++) {
            JsonObject p = providers.get(i).getAsJsonObject();
            URL raw = URL.valueOf(str(p, "url")).removeParameters("timestamp", "pid");
            URL url = new DubboServiceAddressURL(raw.getUrlAddress(), raw.getUrlParam(), consumerForProviders, null);
            invokerList.add(new CaseInvoker(str(p, "id"), i, url));
        }
        BitList<Invoker<Object>> invokers = new BitList<>(invokerList);

        JsonArray rejected = new JsonArray();
        List<KeyedRule> keyed = new ArrayList<>();
        List<StateRouter<Object>> single = new ArrayList<>();
        JsonArray rules = c.has("rules") && c.get("rules").isJsonArray() ? c.getAsJsonArray("rules") : new JsonArray();
        for (int i = 0; i < rules.size(); i++) {
            JsonObject r = rules.get(i).getAsJsonObject();
            try {
                if (r.has("key")) {
                    String key = r.get("key").getAsString();
                    String content = r.has("content") && !r.get("content").isJsonNull()
                            ? r.get("content").getAsString()
                            : null;
                    // Routers skip an empty initial value without parsing it (StringUtils.isNotEmpty checks).
                    boolean first = keyed.stream().noneMatch(k -> k.key.equals(key));
                    String err = content == null || (first && content.isEmpty())
                            ? null
                            : validateKeyed(key, content, consumer, invokers);
                    if (err != null) {
                        rejected.add(rejection(i, err));
                    }
                    keyed.add(new KeyedRule(i, key, content));
                } else if (r.has("condition")) {
                    boolean force = r.has("force") && r.get("force").getAsBoolean();
                    boolean enabled = !r.has("enabled") || r.get("enabled").getAsBoolean();
                    String cond = r.get("condition").isJsonNull() ? null : r.get("condition").getAsString();
                    single.add(new ConditionStateRouter<>(consumer, cond, force, enabled));
                } else if (r.has("url")) {
                    URL routerUrl = URL.valueOf(r.get("url").getAsString()).setScopeModel(module);
                    single.add(new ConditionStateRouter<>(routerUrl));
                } else {
                    rejected.add(rejection(i, "unknown rule shape (want key/content, condition or url)"));
                }
            } catch (Throwable t) {
                rejected.add(rejection(i, oneLine(t)));
            }
        }

        // The first version of every key is in the config center before the chain is built; later versions
        // of the same key are delivered afterwards as change events, in input order.
        List<KeyedRule> updates = new ArrayList<>();
        Set<String> seen = new java.util.HashSet<>();
        for (KeyedRule k : keyed) {
            if (seen.add(k.key)) {
                if (k.content != null) {
                    config.put(k.key, k.content);
                }
            } else {
                updates.add(k);
            }
        }


        // Dynamic configuration (issue 13): Dubbo's listeners read the initial values now; the invoker list and
        // the consumer URL the chain routes with are the configured ones.
        boolean hasConfigurators = keyed.stream().anyMatch(k -> k.key.endsWith(Configurators.SUFFIX))
                || c.has("registry_configurators");
        Configurators.setLocalHost(consumer.getHost());
        Configurators cfg = new Configurators(module, consumer);
        if (c.has("registry_configurators")) { // the registry's first notification carries them
            List<String> raw = new ArrayList<>();
            for (JsonElement e : c.getAsJsonArray("registry_configurators")) {
                raw.add(e.getAsString());
            }
            cfg.notifyRegistry(consumer, raw);
        }
        List<Invoker<Object>> rawInvokers = invokerList;
        JsonArray disabled = new JsonArray();
        invokers = configuredInvokers(cfg, rawInvokers, disabled);
        URL routeConsumer = cfg.configureConsumer(consumer);

        RpcInvocation invocation = buildInvocation(c.has("invocation") ? c.getAsJsonObject("invocation") : null, consumer);
        if (clientAttachments) {
            // The script router's "context" binding is RpcContext.getClientAttachment(): in a consumer the
            // application's attachments, which ConsumerContextFilter (a cluster filter, before routing) has also
            // copied into the invocation. So both hold the case's attachments.
            RpcContext.getClientAttachment().setObjectAttachments(new java.util.HashMap<>(invocation.getObjectAttachments()));
        }

        // The chain: Dubbo's activated state routers for this consumer URL, in Dubbo's order.
        List<StateRouter<Object>> routers = buildStateRouters(consumer);
        // Dubbo's mesh router, with a hook for exact probabilities (MeshProbe; plain StandardMeshRuleRouter otherwise).
        for (int i = 0; i < routers.size(); i++) {
            if (routers.get(i) instanceof StandardMeshRuleRouter) {
                routers.set(i, new MeshProbe<>(consumer));
            }
        }
        int insertAt = 0;
        for (int i = 0; i < routers.size(); i++) {
            if (routers.get(i) instanceof TagStateRouter || routers.get(i) instanceof MockInvokersSelector) {
                insertAt = i + 1;
            }
        }
        // Java 3.3.6 compiles the affinity routers in but does not register their factories; a case that asks
        // for it gets the service-level one (order 130: after tag, before the condition routers), as an
        // application that registers AffinityServiceStateRouterFactory would.
        if (c.has("affinity") && c.get("affinity").getAsBoolean()) {
            routers.add(insertAt, new AffinityServiceStateRouter<>(consumer));
            insertAt++;
        }
        routers.addAll(insertAt, single);
        boolean failFast = Boolean.parseBoolean(
                ConfigurationUtils.getProperty(module, Constants.SHOULD_FAIL_FAST_KEY, "true"));
        SingleRouterChain<Object> chain =
                new SingleRouterChain<>(Collections.emptyList(), new ArrayList<>(routers), failFast, switcher);
        try {
            chain.setInvokers(invokers); // address notification: tag/provider-app routers load their rules
            for (KeyedRule u : updates) {
                try {
                    config.update(u.key, u.content);
                } catch (RuntimeException e) {
                    // A listener that throws (e.g. Dubbo's mesh router on a DestinationRule without subsets): the
                    // config center's notifying thread logs it; the routers keep what they had.
                }
            }
            if (cfg.notified()) { // RegistryDirectory.refreshOverrideAndInvoker
                disabled = new JsonArray();
                invokers = configuredInvokers(cfg, rawInvokers, disabled);
                routeConsumer = cfg.configureConsumer(consumer);
                chain.setInvokers(invokers);
            }
            JsonArray unread = new JsonArray();
            for (KeyedRule k : keyed) {
                if (!config.wasTouched(k.key)) {
                    JsonObject o = new JsonObject();
                    o.addProperty("rule", k.index);
                    o.addProperty("key", k.key);
                    unread.add(o);
                }
            }

            int samples = c.has("samples") ? c.get("samples").getAsInt() : defaultSamples;
            boolean destinations = c.has("destinations") ? c.get("destinations").getAsBoolean() : defaultDestinations;
            if (destinations) {
                out.add("destinations", enumerate(chain, routers, routeConsumer, invokers, invocation));
            } else if (samples > 0) {
                Map<String, int[]> counts = new LinkedHashMap<>();
                Map<String, JsonArray> sets = new LinkedHashMap<>();
                for (int s = 0; s < samples; s++) {
                    JsonArray res = ids(route(chain, routeConsumer, invokers, invocation));
                    String k = res.toString();
                    sets.putIfAbsent(k, res);
                    counts.computeIfAbsent(k, x -> new int[1])[0]++;
                }
                JsonArray outcomes = new JsonArray();
                for (Map.Entry<String, JsonArray> e : sets.entrySet()) {
                    JsonObject o = new JsonObject();
                    o.add("result", e.getValue());
                    o.addProperty("count", counts.get(e.getKey())[0]);
                    outcomes.add(o);
                }
                out.add("outcomes", outcomes);
            } else {
                out.add("result", ids(route(chain, routeConsumer, invokers, invocation)));
            }
            if (hasConfigurators) {
                JsonObject weights = new JsonObject();
                for (Invoker<Object> i : invokers) {
                    String w = i.getUrl().getMethodParameter(org.apache.dubbo.rpc.support.RpcUtils.getMethodName(invocation), "weight");
                    weights.addProperty(((CaseInvoker) i).id, w == null || w.isEmpty() ? "100" : w);
                }
                out.add("weights", weights);
                if (disabled.size() > 0) {
                    out.add("disabled", disabled);
                }
            }
            out.add("rejected", rejected);
            if (unread.size() > 0) {
                out.add("unread", unread);
            }
        } finally {
            for (StateRouter<Object> r : routers) {
                try {
                    r.stop();
                } catch (Throwable ignored) {
                    // best effort: the config center is thrown away anyway
                }
            }
            module.modelEnvironment().setDynamicConfiguration(null);
            if (clientAttachments) {
                RpcContext.removeClientAttachment();
            }
            // MeshRuleManager is module-wide: a router whose registration threw (a rule failing while loading) never
            // unregisters, and its app's listener would serve the next case. Start every case without any.
            module.getBeanFactory().getBean(MeshRuleManager.class).getAppRuleListeners().clear();
        }
        return out;
    }

    /**
     * One call through the chain. A router that throws makes Dubbo's DynamicDirectory.doList log "Failed to execute
     * router" and return an empty list, so the call fails with "No provider available": the result is empty.
     */
    private static List<Invoker<Object>> route(
            SingleRouterChain<Object> chain, URL consumer, BitList<Invoker<Object>> invokers, Invocation invocation) {
        try {
            return chain.route(consumer, invokers, invocation);
        } catch (RuntimeException e) {
            return Collections.emptyList();
        }
    }

    /**
     * Parse-checks a config-center rule the way the router that will receive it does, to report a rule Java
     * logs and ignores ("will not take effect"). Only the report comes from here; the routing itself uses the
     * routers' own processing of the same text (which ignores the rule in the same way).
     */
    private String validateKeyed(String key, String content, URL consumer, BitList<Invoker<Object>> invokers) {
        if (key.endsWith(Configurators.SUFFIX)) {
            return Configurators.validate(content);
        }
        try {
            if (key.endsWith(CONDITION_SUFFIX)) {
                // ListenableStateRouter.process: parse, then generateConditions builds one router per condition.
                AbstractRouterRule rule = ConditionRuleParser.parse(content);
                if (rule == null) {
                    // configVersion newer than v3.1: ConditionRuleParser logs a warning ("Ignore this
                    // configuration") and returns null, generateConditions keeps the routers it had: ignored, not an
                    // error (as for no conditions below).
                    return null;
                }
                if (!rule.isValid()) {
                    return null; // no conditions: Java keeps whatever was there before, without an error
                }
                if (rule instanceof ConditionRouterRule) {
                    for (String cond : ((ConditionRouterRule) rule).getConditions()) {
                        new ConditionStateRouter<>(consumer, cond, rule.isForce(), rule.isEnabled());
                    }
                } else if (rule instanceof MultiDestConditionRouterRule) {
                    for (MultiDestCondition cond : ((MultiDestConditionRouterRule) rule).getConditions()) {
                        new MultiDestConditionRouter<>(consumer, cond, rule.isForce(), rule.isEnabled());
                    }
                }
            } else if (key.endsWith(AFFINITY_SUFFIX)) {
                // AffinityListenableStateRouter.process: parse, then generateConditions builds the router for a
                // valid rule (its constructor throws for a blank key when enabled).
                AffinityRouterRule rule = AffinityRuleParser.parse(content);
                if (rule != null && rule.isValid()) {
                    new AffinityStateRouter<>(consumer, rule.getAffinityKey(), rule.getRatio(), rule.isEnabled());
                }
            } else if (key.endsWith(SCRIPT_SUFFIX)) {
                // AppScriptStateRouter.process: ScriptRule.parse, then a ScriptStateRouter for the rule's type and
                // script; an exception in either is logged (2-11) and the update does not take effect. A script
                // that does not compile is not an exception there (2-14, a router that passes everything through).
                ScriptRule rule = ScriptRule.parse(content);
                URL scriptUrl = consumer.addParameter("type", rule.getType() == null || rule.getType().isEmpty() ? "javascript" : rule.getType())
                        .addParameterAndEncoded("rule", rule.getScript());
                new ScriptStateRouter<>(scriptUrl);
            } else if (key.endsWith(MESH_SUFFIX)) {
                return validateMesh(key.substring(0, key.length() - MESH_SUFFIX.length()), content, consumer, invokers);
            } else if (key.endsWith(TAG_SUFFIX)) {
                // TagStateRouter.process parses the rule and runs rule.init(router) with the router's current
                // invokers; an exception in either is logged and the rule does not take effect. init can throw:
                // a v3.0 rule with a tag that has neither addresses nor match fails with a NullPointerException.
                TagRouterRule rule = TagRuleParser.parse(content);
                TagStateRouter<Object> probe = new TagStateRouter<>(consumer);
                Field f = TagStateRouter.class.getDeclaredField("invokers");
                f.setAccessible(true);
                f.set(probe, invokers);
                rule.init(probe);
            }
            return null;
        } catch (Throwable t) {
            return oneLine(t);
        }
    }

    /**
     * What Dubbo's standard mesh router makes of a MESHAPPRULE value, for the report only: MeshAppRuleListener's
     * YAML loading (same loader options) and rule-type computation (metadata.name), then onRuleChange's binding
     * (PojoUtils.mapToPojo per kind) and the subset computation (MeshRuleCache.build) with the case's providers.
     * An exception in any step is a rejection (Dubbo logs it; the rules in force stay). A value without standard
     * documents (a clear) and a group without a VirtualService or a DestinationRule (kept silently) are not.
     */
    @SuppressWarnings("unchecked")
    private static String validateMesh(String app, String content, URL consumer, BitList<Invoker<Object>> invokers) {
        try {
            Representer representer = new Representer(new DumperOptions());
            representer.getPropertyUtils().setSkipMissingProperties(true);
            Yaml yaml = new Yaml(new SafeConstructor(new LoaderOptions()), representer);
            List<Map<String, Object>> standard = new ArrayList<>();
            for (Object obj : yaml.loadAll(content)) {
                if (!(obj instanceof Map)) {
                    continue;
                }
                Map<String, Object> doc = (Map<String, Object>) obj;
                Object md = doc.get("metadata");
                if (md instanceof Map && !((Map<?, ?>) md).isEmpty()) {
                    String name = (String) ((Map<String, Object>) md).get("name");
                    if (!name.contains(".")) {
                        standard.add(doc);
                    }
                }
            }
            if (standard.isEmpty()) {
                return null;
            }
            VsDestinationGroup group = new VsDestinationGroup();
            group.setAppName(app);
            for (Map<String, Object> doc : standard) {
                if ("DestinationRule".equals(doc.get("kind"))) {
                    group.getDestinationRuleList().add(PojoUtils.mapToPojo(doc, DestinationRule.class));
                } else if ("VirtualService".equals(doc.get("kind"))) {
                    group.getVirtualServiceRuleList().add(PojoUtils.mapToPojo(doc, VirtualServiceRule.class));
                }
            }
            if (!group.isValid()) {
                return null;
            }
            Map<String, VsDestinationGroup> groups = new java.util.HashMap<>();
            groups.put(app, group);
            // The router builds its cache whenever the app has providers (it reads the key only then); one
            // provider of the app stands for them, so a value is reported the same whether or not the case has any.
            URL one = URL.valueOf("dubbo://192.0.2.1:20880/x?remote.application=" + app);
            List<Invoker<Object>> probe = new ArrayList<>();
            probe.add(new CaseInvoker("probe", 0, one));
            MeshRuleCache.build(consumer.getProtocolServiceKey(), new BitList<>(probe), groups);
            return null;
        } catch (Throwable t) {
            return oneLine(t);
        }
    }

    /**
     * Dubbo's activated state routers for this consumer URL, freshly constructed. The factories cache their
     * routers (CacheableStateRouterFactory per service key, AppStateRouterFactory one per module), which would
     * carry rules over from one case to the next, so each factory's own createRouter method is called instead.
     */
    @SuppressWarnings({"unchecked", "rawtypes"})
    private List<StateRouter<Object>> buildStateRouters(URL consumer) throws Exception {
        List<StateRouterFactory> factories =
                module.getExtensionLoader(StateRouterFactory.class).getActivateExtension(consumer, "router");
        List<StateRouter<Object>> routers = new ArrayList<>();
        for (StateRouterFactory f : factories) {
            Method m = findCreateRouter(f.getClass());
            if (m == null) {
                routers.add((StateRouter) f.getRouter(Object.class, consumer));
            } else {
                m.setAccessible(true);
                Object r = m.getParameterCount() == 2 ? m.invoke(f, Object.class, consumer) : m.invoke(f, consumer);
                routers.add((StateRouter<Object>) r);
            }
        }
        return routers;
    }

    private static Method findCreateRouter(Class<?> c) {
        for (Class<?> k = c; k != null && k != Object.class; k = k.getSuperclass()) {
            for (Method m : k.getDeclaredMethods()) {
                if (!m.getName().equals("createRouter") || java.lang.reflect.Modifier.isAbstract(m.getModifiers())) {
                    continue;
                }
                Class<?>[] p = m.getParameterTypes();
                if ((p.length == 2 && p[0] == Class.class && p[1] == URL.class) || (p.length == 1 && p[0] == URL.class)) {
                    return m;
                }
            }
        }
        return null;
    }

    /** RegistryDirectory.toInvokers after the configurators: configured URLs, disabled providers left out. */
    private static BitList<Invoker<Object>> configuredInvokers(
            Configurators cfg, List<Invoker<Object>> raw, JsonArray disabled) {
        List<Invoker<Object>> out = new ArrayList<>();
        for (Invoker<Object> i : raw) {
            CaseInvoker ci = (CaseInvoker) i;
            Configurators.Result r = cfg.configureProvider(ci.url);
            if (!Configurators.enabled(r.url)) {
                JsonObject d = new JsonObject();
                d.addProperty("id", ci.id);
                if (r.disabledBy != null) {
                    d.addProperty("key", r.disabledBy);
                }
                disabled.add(d);
                continue;
            }
            out.add(new CaseInvoker(ci.id, ci.index, r.url));
        }
        return new BitList<>(out);
    }

    /** FailbackRegistry.removeParamsFromConsumer: the consumer URL wrapped into each provider URL. */
    private URL removeProviderFirstParams(URL consumer) {
        Set<ProviderFirstParams> firsts =
                app.getExtensionLoader(ProviderFirstParams.class).getSupportedExtensionInstances();
        for (ProviderFirstParams p : firsts) {
            consumer = consumer.removeParameters(p.params());
        }
        return consumer;
    }

    private RpcInvocation buildInvocation(JsonObject inv, URL consumer) {
        String method = inv != null && inv.has("method") && !inv.get("method").isJsonNull()
                ? inv.get("method").getAsString()
                : "";
        JsonArray jargs = inv != null && inv.has("arguments") && inv.get("arguments").isJsonArray()
                ? inv.getAsJsonArray("arguments")
                : new JsonArray();
        Object[] args = new Object[jargs.size()];
        Class<?>[] types = new Class<?>[jargs.size()];
        boolean generic = ("$invoke".equals(method) || "$invokeAsync".equals(method)) && jargs.size() == 3;
        for (int i = 0; i < jargs.size(); i++) {
            JsonElement e = jargs.get(i);
            if (generic && i == 1 && e.isJsonArray()) { // $invoke(String method, String[] types, Object[] args)
                JsonArray a = e.getAsJsonArray();
                String[] ts = new String[a.size()];
                for (int j = 0; j < a.size(); j++) {
                    ts[j] = a.get(j).isJsonNull() ? null : a.get(j).getAsString();
                }
                args[i] = ts;
                types[i] = String[].class;
            } else if (generic && i == 2 && e.isJsonArray()) {
                args[i] = toJava(e);
                types[i] = Object[].class;
            } else {
                args[i] = toJava(e);
                types[i] = typeOf(args[i]);
            }
        }
        RpcInvocation invocation = new RpcInvocation(
                null, method, consumer.getServiceInterface(), consumer.getServiceKey(), types, args);
        if (inv != null && inv.has("attachments") && inv.get("attachments").isJsonObject()) {
            for (Map.Entry<String, JsonElement> a : inv.getAsJsonObject("attachments").entrySet()) {
                JsonElement v = a.getValue();
                if (v.isJsonNull()) {
                    continue;
                }
                invocation.setAttachment(a.getKey(), v.isJsonPrimitive() ? v.getAsString() : v.toString());
            }
        }
        return invocation;
    }

    private static Class<?> typeOf(Object v) {
        if (v instanceof String) {
            return String.class;
        } else if (v instanceof Integer) {
            return int.class;
        } else if (v instanceof Long) {
            return long.class;
        } else if (v instanceof Double) {
            return double.class;
        } else if (v instanceof Boolean) {
            return boolean.class;
        } else if (v instanceof Object[]) {
            return Object[].class;
        }
        return Object.class;
    }

    /** JSON to the Java values a Dubbo consumer would pass: String, Integer/Long, Double, Boolean, null, Object[], Map. */
    private static Object toJava(JsonElement e) {
        if (e == null || e.isJsonNull()) {
            return null;
        }
        if (e.isJsonPrimitive()) {
            JsonPrimitive p = e.getAsJsonPrimitive();
            if (p.isBoolean()) {
                return p.getAsBoolean();
            }
            if (p.isNumber()) {
                String s = p.getAsString();
                if (s.matches("-?\\d+")) {
                    try {
                        long l = Long.parseLong(s);
                        return (l >= Integer.MIN_VALUE && l <= Integer.MAX_VALUE) ? (Object) (int) l : (Object) l;
                    } catch (NumberFormatException ex) {
                        return new java.math.BigInteger(s);
                    }
                }
                return p.getAsDouble();
            }
            return p.getAsString();
        }
        if (e.isJsonArray()) {
            JsonArray a = e.getAsJsonArray();
            Object[] arr = new Object[a.size()];
            for (int i = 0; i < a.size(); i++) {
                arr[i] = toJava(a.get(i));
            }
            return arr;
        }
        Map<String, Object> m = new LinkedHashMap<>();
        for (Map.Entry<String, JsonElement> en : e.getAsJsonObject().entrySet()) {
            m.put(en.getKey(), toJava(en.getValue()));
        }
        return m;
    }

    private static JsonArray ids(List<Invoker<Object>> result) {
        List<CaseInvoker> l = new ArrayList<>();
        for (Invoker<Object> i : result) {
            l.add((CaseInvoker) i);
        }
        l.sort((a, b) -> Integer.compare(a.index, b.index));
        JsonArray a = new JsonArray();
        for (CaseInvoker i : l) {
            a.add(i.id);
        }
        return a;
    }

    // ------------------------------------------------------------------------------------------------
    // Deterministic enumeration of v3.1 weighted picks.

    /**
     * Exact outcome distribution of a chain containing v3.1 (MultiDestConditionRouter) rules.
     *
     * <p>Every MultiDestConditionRouter inside the ListenableStateRouters is wrapped by a {@link Pinned}
     * router (the rest of the chain, and ListenableStateRouter's loop over its conditions, stay Dubbo's).
     * When the chain reaches one, the wrapper asks the real router, through its public setters, what each
     * destination would yield for the current input: {@code setThenCondition([only destination i])} with
     * {@code setForce(true)} returns that destination's subset, or empty when no provider matches (so Java
     * would not add it). If fewer than two destinations are non-empty, or the from-part does not match
     * (probe with an empty to-list returns the input instead of the blacklist's empty list), there is no
     * random draw, and the real router runs unmodified. Otherwise there is a draw: the probability of each
     * candidate is measured on Dubbo's own {@link DestinationSet#randDestination()} with
     * {@link RandomControl} forcing each draw value r in [0, W) (binary search over r for the boundaries),
     * which reproduces Java's off-by-one (first destination (w1+1)/W, last (wn-1)/W). The wrapper then
     * returns one candidate, and a depth-first search runs the chain once per combination of picks.
     *
     * <p>Each leaf: {@code result}, exact probability {@code p} ("num/den") and {@code prob}, {@code weight}
     * = the configured weight of the destination picked at the last draw (null when no draw), and
     * {@code picks}: per draw the candidate weights, Java's per-candidate counts out of W and the pick.
     * Leaves are not merged: identical results from different branches appear separately so that the
     * destination structure stays visible (sum the p of equal results for the distribution).
     */
    private JsonArray enumerate(
            SingleRouterChain<Object> chain,
            List<StateRouter<Object>> routers,
            URL consumer,
            BitList<Invoker<Object>> invokers,
            Invocation invocation)
            throws Exception {
        Dfs dfs = new Dfs();
        Field f = ListenableStateRouter.class.getDeclaredField("multiDestConditionRouters");
        f.setAccessible(true);
        for (StateRouter<Object> r : routers) {
            if (r instanceof ListenableStateRouter) {
                @SuppressWarnings("unchecked")
                List<MultiDestConditionRouter<Object>> real = (List<MultiDestConditionRouter<Object>>) f.get(r);
                List<Object> wrapped = new ArrayList<>();
                for (MultiDestConditionRouter<Object> m : real) {
                    wrapped.add(new Pinned(consumer, m, dfs));
                }
                f.set(r, wrapped); // erased generics: ListenableStateRouter.doRoute iterates AbstractStateRouters
            }
        }
        for (StateRouter<Object> r : routers) {
            if (r instanceof MeshProbe) {
                ((MeshProbe<Object>) r).dfs = dfs;
            }
        }
        JsonArray leaves = new JsonArray();
        do {
            dfs.start();
            JsonArray res = ids(route(chain, consumer, invokers, invocation));
            leaves.add(dfs.leaf(res));
            if (leaves.size() >= MAX_LEAVES) {
                throw new IllegalStateException("more than " + MAX_LEAVES + " weighted outcomes");
            }
        } while (dfs.advance());
        return leaves;
    }

    /** Depth-first enumeration over the sequence of weighted draws of one chain evaluation. */
    static final class Dfs {
        private final List<Integer> plan = new ArrayList<>();
        private final List<int[]> weights = new ArrayList<>();
        private final List<long[]> counts = new ArrayList<>();
        private int pos;

        void start() {
            pos = 0;
        }

        int choose(int[] w, long[] cnt) {
            if (pos < plan.size()) {
                return plan.get(pos++);
            }
            int first = 0;
            while (cnt[first] == 0) {
                first++;
            }
            plan.add(first);
            weights.add(w);
            counts.add(cnt);
            pos++;
            return first;
        }

        boolean advance() {
            while (plan.size() > pos) { // a shorter path than planned (cannot happen for a fixed prefix)
                int last = plan.size() - 1;
                plan.remove(last);
                weights.remove(last);
                counts.remove(last);
            }
            for (int p = plan.size() - 1; p >= 0; p--) {
                long[] cnt = counts.get(p);
                int next = plan.get(p) + 1;
                while (next < cnt.length && cnt[next] == 0) {
                    next++;
                }
                if (next < cnt.length) {
                    plan.set(p, next);
                    while (plan.size() > p + 1) {
                        int last = plan.size() - 1;
                        plan.remove(last);
                        weights.remove(last);
                        counts.remove(last);
                    }
                    return true;
                }
            }
            return false;
        }

        JsonObject leaf(JsonArray result) {
            BigInteger num = BigInteger.ONE;
            BigInteger den = BigInteger.ONE;
            JsonArray picks = new JsonArray();
            Integer lastWeight = null;
            for (int p = 0; p < pos; p++) {
                int choice = plan.get(p);
                long[] cnt = counts.get(p);
                long total = 0;
                for (long x : cnt) {
                    total += x;
                }
                num = num.multiply(BigInteger.valueOf(cnt[choice]));
                den = den.multiply(BigInteger.valueOf(total));
                JsonObject pick = new JsonObject();
                pick.add("weights", GSON.toJsonTree(weights.get(p)));
                pick.add("counts", GSON.toJsonTree(cnt));
                pick.addProperty("pick", choice);
                picks.add(pick);
                lastWeight = weights.get(p)[choice];
            }
            BigInteger g = num.gcd(den);
            num = num.divide(g);
            den = den.divide(g);
            JsonObject o = new JsonObject();
            o.add("result", result);
            o.addProperty("p", num + "/" + den);
            o.addProperty("prob", new java.math.BigDecimal(num)
                    .divide(new java.math.BigDecimal(den), java.math.MathContext.DECIMAL64)
                    .doubleValue());
            if (lastWeight == null) {
                o.add("weight", JsonNull.INSTANCE);
            } else {
                o.addProperty("weight", lastWeight);
            }
            o.add("picks", picks);
            return o;
        }
    }

    /** Wraps one real MultiDestConditionRouter; see {@link #enumerate}. */
    static final class Pinned extends AbstractStateRouter<Object> {
        private final MultiDestConditionRouter<Object> real;
        private final Dfs dfs;

        Pinned(URL url, MultiDestConditionRouter<Object> real, Dfs dfs) {
            super(url);
            this.real = real;
            this.dfs = dfs;
            setNextRouter(TailStateRouter.getInstance());
        }

        private BitList<Invoker<Object>> runReal(BitList<Invoker<Object>> in, URL url, Invocation inv) {
            return real.route(in.clone(), url, inv, false, null);
        }

        @Override
        protected BitList<Invoker<Object>> doRoute(
                BitList<Invoker<Object>> invokers,
                URL url,
                Invocation invocation,
                boolean needToPrintMessage,
                Holder<RouterSnapshotNode<Object>> nodeHolder,
                Holder<String> messageHolder) {
            List<ConditionSubSet> then = real.getThenCondition();
            if (invokers.isEmpty() || then == null || then.size() < 2) {
                return runReal(invokers, url, invocation);
            }
            boolean force = real.isForce();
            List<Integer> weights = new ArrayList<>();
            List<BitList<Invoker<Object>>> subsets = new ArrayList<>();
            try {
                real.setThenCondition(new ArrayList<>());
                if (!runReal(invokers, url, invocation).isEmpty()) {
                    return runReal(invokers, url, invocation); // disabled, or from-part does not match: no draw
                }
                real.setForce(true);
                for (ConditionSubSet d : then) {
                    real.setThenCondition(List.of(d));
                    BitList<Invoker<Object>> sub = runReal(invokers, url, invocation);
                    if (!sub.isEmpty()) {
                        weights.add(d.getSubSetWeight());
                        subsets.add(sub);
                    }
                }
            } finally {
                real.setThenCondition(then);
                real.setForce(force);
            }
            if (subsets.size() < 2) {
                return runReal(invokers, url, invocation); // zero or one destination: deterministic
            }
            int[] w = weights.stream().mapToInt(Integer::intValue).toArray();
            long[] cnt = drawCounts(w, subsets);
            int k = dfs.choose(w, cnt);
            return subsets.get(k);
        }

        /** For each candidate, how many of the W draw values Dubbo's DestinationSet maps to it. */
        private static long[] drawCounts(int[] w, List<BitList<Invoker<Object>>> subsets) {
            DestinationSet<Object> set = new DestinationSet<>();
            IdentityHashMap<Object, Integer> index = new IdentityHashMap<>();
            for (int i = 0; i < w.length; i++) {
                BitList<Invoker<Object>> marker = subsets.get(i).clone();
                index.put(marker, i);
                set.addDestination(w[i], marker);
            }
            long total = set.getWeightSum();
            long[] lo = new long[w.length + 1];
            for (int k = 0; k < w.length; k++) { // lo[k] = smallest r whose pick index is >= k
                long a = 0;
                long b = total;
                while (a < b) {
                    long mid = (a + b) >>> 1;
                    if (pickAt(set, index, mid, total) >= k) {
                        b = mid;
                    } else {
                        a = mid + 1;
                    }
                }
                lo[k] = a;
            }
            lo[w.length] = total;
            long[] cnt = new long[w.length];
            for (int k = 0; k < w.length; k++) {
                cnt[k] = Math.max(0, lo[k + 1] - lo[k]);
            }
            return cnt;
        }

        private static int pickAt(DestinationSet<Object> set, IdentityHashMap<Object, Integer> index, long r, long total) {
            RandomControl.forceNextBounded(r, total);
            Object got = set.randDestination();
            Integer i = index.get(got);
            return i == null ? Integer.MAX_VALUE : i;
        }
    }

    // ------------------------------------------------------------------------------------------------

    private static JsonObject rejection(int i, String error) {
        JsonObject o = new JsonObject();
        o.addProperty("rule", i);
        o.addProperty("error", error);
        return o;
    }

    private static String str(JsonObject o, String key) {
        if (!o.has(key) || o.get(key).isJsonNull()) {
            throw new IllegalArgumentException("missing field \"" + key + "\"");
        }
        return o.get(key).getAsString();
    }

    static String oneLine(Throwable t) {
        Throwable root = t;
        while (root.getCause() != null && root.getCause() != root
                && (root instanceof java.lang.reflect.InvocationTargetException || root.getMessage() == null)) {
            root = root.getCause();
        }
        String msg = root.getClass().getSimpleName() + ": " + root.getMessage();
        return msg.replaceAll("\\s+", " ").trim();
    }
}
