package io.github.dubboroute.it;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Tiny "--key value" / "--flag" command-line parser shared by the programs. Repeated keys accumulate. */
final class Args {
    private final Map<String, List<String>> values = new LinkedHashMap<>();

    Args(String[] argv, String... booleanFlags) {
        List<String> flags = List.of(booleanFlags);
        for (int i = 0; i < argv.length; i++) {
            String a = argv[i];
            if (!a.startsWith("--")) {
                throw new IllegalArgumentException("unexpected argument: " + a);
            }
            String key = a.substring(2);
            String value;
            int eq = key.indexOf('=');
            if (eq >= 0) {
                value = key.substring(eq + 1);
                key = key.substring(0, eq);
            } else if (flags.contains(key)) {
                value = "true";
            } else {
                if (i + 1 >= argv.length) {
                    throw new IllegalArgumentException("missing value for --" + key);
                }
                value = argv[++i];
            }
            values.computeIfAbsent(key, k -> new ArrayList<>()).add(value);
        }
    }

    String get(String key, String def) {
        List<String> v = values.get(key);
        return v == null || v.isEmpty() ? def : v.get(v.size() - 1);
    }

    String require(String key) {
        String v = get(key, null);
        if (v == null) {
            throw new IllegalArgumentException("missing required --" + key);
        }
        return v;
    }

    int getInt(String key, int def) {
        String v = get(key, null);
        return v == null ? def : Integer.parseInt(v);
    }

    boolean has(String key) {
        return values.containsKey(key);
    }

    List<String> all(String key) {
        return values.getOrDefault(key, List.of());
    }

    /** All "k=v" values of a repeated option as an ordered map. */
    Map<String, String> pairs(String key) {
        Map<String, String> m = new LinkedHashMap<>();
        for (String kv : all(key)) {
            int eq = kv.indexOf('=');
            if (eq <= 0) {
                throw new IllegalArgumentException("--" + key + " expects k=v, got: " + kv);
            }
            m.put(kv.substring(0, eq), kv.substring(eq + 1));
        }
        return m;
    }

    static String zkAddress(String zk) {
        return zk.startsWith("zookeeper://") ? zk : "zookeeper://" + zk;
    }

    /**
     * The registry (and config-center) address: {@code --nacos host:port} (a Nacos 2.x server; the client speaks
     * gRPC at the HTTP port + 1000) or {@code --zk host:port}, exactly one of them.
     */
    String registryAddress() {
        if (has("nacos") && has("zk")) {
            throw new IllegalArgumentException("--zk and --nacos exclude each other");
        }
        if (has("nacos")) {
            String n = require("nacos");
            Nacos.isolate();
            return n.startsWith("nacos://") ? n : "nacos://" + n;
        }
        return zkAddress(require("zk"));
    }
}
