package io.github.dubboroute.it;

import org.apache.dubbo.common.URL;
import org.apache.dubbo.registry.integration.ServiceURLCustomizer;
import org.apache.dubbo.rpc.model.ApplicationModel;

/**
 * Rewrites the host of every provider URL a Java provider registers to the value of the system property
 * {@value #PROPERTY} (set by {@code BookProvider --register-host 127.0.0.1}); without the property it does
 * nothing.
 *
 * <p>Why: Java Dubbo refuses to register a loopback address ({@code NetUtils.isInvalidLocalHost} rejects
 * 127.x in {@code --host}, {@code DUBBO_IP_TO_REGISTRY} and {@code DUBBO_IP_TO_BIND}) and registers the
 * machine's first non-loopback address instead. Tests here may only send traffic to loopback, so the
 * provider binds {@code 0.0.0.0} (reachable on 127.0.0.1) and this customizer puts 127.0.0.1 into the URL
 * written to {@code /dubbo/<interface>/providers}. {@code RegistryProtocol.customizeURL} applies every
 * {@link ServiceURLCustomizer} extension (found through {@code META-INF/dubbo/...ServiceURLCustomizer}) to
 * the URL just before it is registered; the exported server and its bind address are not touched.
 */
public final class RegisterHostCustomizer implements ServiceURLCustomizer {
    /** System property naming the host to register. */
    public static final String PROPERTY = "dubboroute.register.host";

    @Override
    public URL customize(URL url, ApplicationModel applicationModel) {
        String host = System.getProperty(PROPERTY);
        if (host == null || host.isBlank() || url == null) {
            return url;
        }
        return url.setHost(host.trim());
    }

    /** After Dubbo's DefaultServiceURLCustomizer (which only removes parameters); order does not matter. */
    @Override
    public int getPriority() {
        return MIN_PRIORITY;
    }
}
