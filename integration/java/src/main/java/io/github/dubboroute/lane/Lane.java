package io.github.dubboroute.lane;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The full-link lane of the request a Java Dubbo provider thread is serving: the lane attachments it arrived
 * with. {@link LaneFilter} sets it for the duration of a served call; {@link LaneAttachmentSelector} copies it into
 * every call made from that thread before the call is routed.
 *
 * <p>Configuration (system properties, read once):
 * <ul>
 *   <li>{@code dubboroute.lane=off}: nothing is captured or carried, and {@link GrayLaneLoadBalance} writes no
 *       decisions.</li>
 *   <li>{@code dubboroute.lane.keys}: the comma-separated attachments that travel; default
 *       {@code dubbo.tag,dubbo.force.tag,dubboroute.gray,userId} (the same as the Go extension with its default
 *       gray user key).</li>
 * </ul>
 *
 * <p>Work handed to another thread loses the lane; carry it with {@link #current()} and {@link #run}.
 */
public final class Lane {
    /** The attachment carrying a gray decision made upstream: "gray" or "normal". */
    public static final String DECISION_KEY = "dubboroute.gray";

    static final boolean OFF = "off".equalsIgnoreCase(System.getProperty("dubboroute.lane", "").trim());
    static final List<String> KEYS = keys(System.getProperty(
            "dubboroute.lane.keys", "dubbo.tag,dubbo.force.tag," + DECISION_KEY + ",userId"));

    private static final ThreadLocal<Map<String, String>> CURRENT = new ThreadLocal<>();

    private Lane() {}

    private static List<String> keys(String csv) {
        List<String> out = new ArrayList<>();
        for (String k : csv.split(",")) {
            if (!k.isBlank()) {
                out.add(k.trim());
            }
        }
        return Collections.unmodifiableList(out);
    }

    /** Whether lanes are on ({@code dubboroute.lane} is not "off"). */
    public static boolean enabled() {
        return !OFF;
    }

    /** The lane keys in force. */
    public static List<String> keys() {
        return KEYS;
    }

    /** The lane of the call this thread serves (an unmodifiable map, empty outside a served call). */
    public static Map<String, String> current() {
        Map<String, String> m = CURRENT.get();
        return m == null ? Map.of() : m;
    }

    /** Runs task with lane as the current lane (for work handed to another thread). */
    public static void run(Map<String, String> lane, Runnable task) {
        Map<String, String> prev = CURRENT.get();
        CURRENT.set(Collections.unmodifiableMap(new LinkedHashMap<>(lane)));
        try {
            task.run();
        } finally {
            restore(prev);
        }
    }

    static Map<String, String> swap(Map<String, String> lane) {
        Map<String, String> prev = CURRENT.get();
        CURRENT.set(lane);
        return prev;
    }

    static void restore(Map<String, String> prev) {
        if (prev == null) {
            CURRENT.remove();
        } else {
            CURRENT.set(prev);
        }
    }
}
