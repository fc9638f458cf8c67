package io.github.dubboroute.it;

import java.lang.reflect.Field;
import java.net.InetAddress;
import org.apache.dubbo.common.utils.NetUtils;

/**
 * Pins Java Dubbo's idea of "the local host" to a loopback address.
 *
 * <p>Why: a Java consumer never dials a loopback provider address as registered. {@code NettyClient} connects
 * to {@code NetUtils.filterLocalHost(url.getHost())}, which replaces 127.x/localhost by
 * {@code NetUtils.getLocalHost()} — the machine's first non-loopback address (here 192.0.2.2), which tests
 * must not target. There is no configuration for it ({@code DUBBO_IP_TO_BIND} rejects 127.x), so the cached
 * values {@code NetUtils.HOST_ADDRESS} and {@code NetUtils.LOCAL_ADDRESS} are set by reflection before Dubbo
 * starts; {@code getLocalHost()} returns the cached value from then on.
 */
final class Loopback {
    private Loopback() {}

    static void pin(String host) throws ReflectiveOperationException, java.net.UnknownHostException {
        InetAddress address = InetAddress.getByName(host);
        if (!address.isLoopbackAddress()) {
            throw new IllegalArgumentException("--local-host must be a loopback address, got " + host);
        }
        set("HOST_ADDRESS", address.getHostAddress());
        set("LOCAL_ADDRESS", address);
        if (!address.getHostAddress().equals(NetUtils.getLocalHost())) {
            throw new IllegalStateException("could not pin NetUtils.getLocalHost() to " + host);
        }
    }

    private static void set(String field, Object value) throws ReflectiveOperationException {
        Field f = NetUtils.class.getDeclaredField(field);
        f.setAccessible(true);
        f.set(null, value);
    }
}
