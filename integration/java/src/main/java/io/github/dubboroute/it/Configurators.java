package io.github.dubboroute.it;

import java.lang.reflect.Field;
import java.util.ArrayList;
import java.util.List;
import org.apache.dubbo.common.URL;
import org.apache.dubbo.common.URLBuilder;
import org.apache.dubbo.common.URLStrParser;
import org.apache.dubbo.common.utils.StringUtils;
import org.apache.dubbo.common.utils.UrlUtils;
import org.apache.dubbo.common.config.configcenter.DynamicConfiguration;
import org.apache.dubbo.common.url.component.DubboServiceAddressURL;
import org.apache.dubbo.common.url.component.ServiceConfigURL;
import org.apache.dubbo.common.utils.CollectionUtils;
import org.apache.dubbo.common.utils.NetUtils;
import org.apache.dubbo.registry.integration.AbstractConfiguratorListener;
import org.apache.dubbo.rpc.cluster.Configurator;
import org.apache.dubbo.rpc.cluster.configurator.parser.ConfigParser;
import org.apache.dubbo.rpc.model.ModuleModel;

import static org.apache.dubbo.common.constants.CommonConstants.APPLICATION_KEY;
import static org.apache.dubbo.common.constants.CommonConstants.PROTOCOL_SEPARATOR_ENCODED;
import static org.apache.dubbo.common.constants.RegistryConstants.APP_DYNAMIC_CONFIGURATORS_CATEGORY;
import static org.apache.dubbo.common.constants.RegistryConstants.CATEGORY_KEY;
import static org.apache.dubbo.common.constants.RegistryConstants.CONFIGURATORS_CATEGORY;
import static org.apache.dubbo.common.constants.RegistryConstants.DEFAULT_CATEGORY;
import static org.apache.dubbo.common.constants.RegistryConstants.DYNAMIC_CONFIGURATORS_CATEGORY;
import static org.apache.dubbo.common.constants.RegistryConstants.EMPTY_PROTOCOL;
import static org.apache.dubbo.common.constants.RegistryConstants.PROVIDERS_CATEGORY;
import static org.apache.dubbo.common.constants.RegistryConstants.ROUTE_PROTOCOL;
import static org.apache.dubbo.common.constants.RegistryConstants.ROUTERS_CATEGORY;
import static org.apache.dubbo.common.constants.RegistryConstants.COMPATIBLE_CONFIG_KEY;
import static org.apache.dubbo.common.constants.CommonConstants.DISABLED_KEY;
import static org.apache.dubbo.common.constants.CommonConstants.ENABLED_KEY;
import static org.apache.dubbo.common.constants.CommonConstants.GROUP_KEY;
import static org.apache.dubbo.common.constants.CommonConstants.SIDE_KEY;
import static org.apache.dubbo.common.constants.CommonConstants.VERSION_KEY;

/**
 * The consumer's dynamic configuration for one oracle case, with Dubbo's own classes: the config-center
 * listeners are Dubbo's {@link AbstractConfiguratorListener} (initial read, MODIFIED/DELETED handling,
 * {@link ConfigParser}, security keys, {@link Configurator#toConfigurators} with the {@code ConfiguratorFactory}
 * extensions), one for {@code <consumerApp>.configurators} and one for {@code <interface>:<version>:<group>.configurators}
 * (RegistryDirectory's ConsumerConfigurationListener and ReferenceConfigurationListener). What RegistryDirectory
 * does with them is copied line by line: {@code overrideWithConfigurators} on the override URL of each
 * {@link DubboServiceAddressURL} (app list, then service list), the consumer URL configured the same way
 * (directoryUrl, which the chain routes with), and {@code toInvokers}' enabled check.
 *
 * <p>Registry {@code override://} URLs (the registry's {@code <interface>/configurators} node, a case's
 * {@code registry_configurators}) go through what the registry and RegistryDirectory.notify do with that category
 * ({@link #notifyRegistry}) and form the first list, before the config-center ones.
 *
 * <p>Not emulated: the interface-level ordering quirk (the first invoker list is built before the service key is
 * subscribed): cases describe the state after every rule has been delivered.
 */
final class Configurators {
    static final String SUFFIX = ".configurators";

    /** A listener that only keeps the configurators (the directory refresh is done by the oracle). */
    static final class Listener extends AbstractConfiguratorListener {
        final String key;
        boolean notified;

        Listener(ModuleModel module, String key) {
            super(module);
            this.key = key;
            initWith(key);
        }

        @Override
        protected void notifyOverrides() {
            notified = true;
        }
    }

    private final Listener app;
    private final Listener service;
    /** RegistryDirectory.configurators: the registry's configurators category (null until notified). */
    private List<Configurator> registry;
    static final String REGISTRY_KEY = "registry";

    Configurators(ModuleModel module, URL consumer) {
        this.app = new Listener(module, consumer.getApplication() + SUFFIX);
        this.service = new Listener(module, DynamicConfiguration.getRuleKey(consumer) + SUFFIX);
    }

    /** Parse-check one value as AbstractConfiguratorListener does; null when Java accepts it. */
    static String validate(String content) {
        try {
            List<URL> urls = ConfigParser.parseConfigurators(content);
            Configurator.toConfigurators(urls);
            return null;
        } catch (Throwable t) {
            return t.getClass().getSimpleName() + ": " + t.getMessage();
        }
    }

    /** NetUtils.getLocalHost() is the consumer's IP: pin it to the case's consumer host. */
    static void setLocalHost(String host) throws Exception {
        Field f = NetUtils.class.getDeclaredField("HOST_ADDRESS");
        f.setAccessible(true);
        f.set(null, host);
    }

    boolean notified() {
        return app.notified || service.notified;
    }

    /**
     * One notification of the registry's configurators category with the node's children {@code raw} (decoded
     * URLs): CacheableFailbackRegistry.toUrlsWithEmpty for a non-provider path (children holding an encoded
     * "://", parsed with URLStrParser.parseEncodedStr, kept when UrlUtils.isMatch accepts them for the
     * consumer's subscribe URL, else one empty:// URL of the category), then RegistryDirectory.notify's filters
     * (isValidCategory, isNotCompatibleFor26x, judgeCategory) and Configurator.toConfigurators, copied line by
     * line; Dubbo's own classes do the parsing, matching and configurator creation.
     */
    void notifyRegistry(URL consumer, List<String> raw) {
        URL subscribe = consumer.addParameter(CATEGORY_KEY, PROVIDERS_CATEGORY + "," + CONFIGURATORS_CATEGORY + "," + ROUTERS_CATEGORY);
        List<URL> urls = new ArrayList<>();
        for (String s : raw) {
            String node = URL.encode(s);
            if (node.contains(PROTOCOL_SEPARATOR_ENCODED)) {
                URL url = URLStrParser.parseEncodedStr(node);
                if (UrlUtils.isMatch(subscribe, url)) {
                    urls.add(url);
                }
            }
        }
        if (urls.isEmpty()) {
            urls.add(URLBuilder.from(subscribe)
                    .setProtocol(EMPTY_PROTOCOL)
                    .addParameter(CATEGORY_KEY, CONFIGURATORS_CATEGORY)
                    .build());
        }
        List<URL> configuratorURLs = new ArrayList<>();
        for (URL url : urls) {
            String category = url.getCategory(DEFAULT_CATEGORY);
            boolean valid = ROUTERS_CATEGORY.equals(category)
                    || ROUTE_PROTOCOL.equals(url.getProtocol())
                    || PROVIDERS_CATEGORY.equals(category)
                    || CONFIGURATORS_CATEGORY.equals(category)
                    || DYNAMIC_CONFIGURATORS_CATEGORY.equals(category)
                    || APP_DYNAMIC_CONFIGURATORS_CATEGORY.equals(category);
            if (valid && StringUtils.isEmpty(url.getParameter(COMPATIBLE_CONFIG_KEY)) && UrlUtils.isConfigurator(url)) {
                configuratorURLs.add(url);
            }
        }
        registry = Configurator.toConfigurators(configuratorURLs).orElse(registry);
    }

    private List<List<Configurator>> lists() {
        List<List<Configurator>> l = new ArrayList<>();
        l.add(registry);
        l.add(app.getConfigurators());
        l.add(service.getConfigurators());
        return l;
    }

    /** RegistryDirectory.overrideWithConfigurator for the consumer URL (a plain URL). */
    URL configureConsumer(URL consumer) {
        for (List<Configurator> cs : lists()) {
            if (CollectionUtils.isNotEmpty(cs)) {
                for (Configurator c : cs) {
                    consumer = c.configure(consumer);
                }
            }
        }
        return consumer;
    }

    /** The configured provider URL and the key of the last list whose configurator changed disabled/enabled. */
    static final class Result {
        URL url;
        String disabledBy;
    }

    /** RegistryDirectory.overrideWithConfigurators for one interface-level provider URL. */
    Result configureProvider(URL url) {
        Result r = new Result();
        String[] keys = {REGISTRY_KEY, app.key, service.key};
        List<List<Configurator>> ls = lists();
        for (int li = 0; li < ls.size(); li++) {
            List<Configurator> configurators = ls.get(li);
            if (CollectionUtils.isNotEmpty(configurators)) {
                if (url instanceof DubboServiceAddressURL) {
                    DubboServiceAddressURL interfaceAddressURL = (DubboServiceAddressURL) url;
                    URL overriddenURL = interfaceAddressURL.getOverrideURL();
                    if (overriddenURL == null) {
                        String appName = interfaceAddressURL.getApplication();
                        String side = interfaceAddressURL.getSide();
                        String group = interfaceAddressURL.getGroup();
                        String version = interfaceAddressURL.getVersion();
                        overriddenURL = URLBuilder.from(interfaceAddressURL)
                                .clearParameters()
                                .addParameter(APPLICATION_KEY, appName)
                                .addParameter(SIDE_KEY, side)
                                .addParameter(GROUP_KEY, group)
                                .addParameter(VERSION_KEY, version)
                                .build();
                    }
                    for (Configurator configurator : configurators) {
                        URL before = overriddenURL;
                        overriddenURL = configurator.configure(overriddenURL);
                        if (overriddenURL != before && configurator.getUrl().hasParameter(DISABLED_KEY)) {
                            r.disabledBy = keys[li];
                        }
                    }
                    url = new DubboServiceAddressURL(
                            interfaceAddressURL.getUrlAddress(),
                            interfaceAddressURL.getUrlParam(),
                            interfaceAddressURL.getConsumerURL(),
                            (ServiceConfigURL) overriddenURL);
                } else {
                    for (Configurator configurator : configurators) {
                        url = configurator.configure(url);
                    }
                }
            }
        }
        r.url = url;
        return r;
    }

    /** RegistryDirectory.toInvokers' check. */
    static boolean enabled(URL url) {
        if (url.hasParameter(DISABLED_KEY)) {
            return !url.getParameter(DISABLED_KEY, false);
        }
        return url.getParameter(ENABLED_KEY, true);
    }
}
