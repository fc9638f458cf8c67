package io.github.dubboroute.it;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.dubbo.common.config.configcenter.ConfigChangeType;
import org.apache.dubbo.common.config.configcenter.ConfigChangedEvent;
import org.apache.dubbo.common.config.configcenter.ConfigurationListener;
import org.apache.dubbo.common.config.configcenter.DynamicConfiguration;

/**
 * An in-memory config center for one oracle case. Dubbo's routers read rules exactly as they would from
 * ZooKeeper: through GovernanceRuleRepository -> Environment.getDynamicConfiguration() -> getConfig/addListener,
 * group "dubbo". Keys that no router ever asks for are reported back as "unread".
 */
final class MemoryDynamicConfiguration implements DynamicConfiguration {
    private final Map<String, String> current = new HashMap<>();
    private final Map<String, List<ConfigurationListener>> listeners = new HashMap<>();
    private final Set<String> touched = new LinkedHashSet<>();

    void put(String key, String content) {
        current.put(key, content);
    }

    /** Publish a later version of a key to the routers listening on it (a ZooKeeper node update). */
    void update(String key, String content) {
        ConfigChangeType type;
        if (content == null) {
            current.remove(key);
            type = ConfigChangeType.DELETED;
        } else {
            type = current.containsKey(key) ? ConfigChangeType.MODIFIED : ConfigChangeType.ADDED;
            current.put(key, content);
        }
        for (ConfigurationListener l : new ArrayList<>(listeners.getOrDefault(key, List.of()))) {
            l.process(new ConfigChangedEvent(key, DEFAULT_GROUP, content, type));
        }
    }

    boolean wasTouched(String key) {
        return touched.contains(key);
    }

    @Override
    public void addListener(String key, String group, ConfigurationListener listener) {
        touched.add(key);
        listeners.computeIfAbsent(key, k -> new ArrayList<>()).add(listener);
    }

    @Override
    public void removeListener(String key, String group, ConfigurationListener listener) {
        List<ConfigurationListener> l = listeners.get(key);
        if (l != null) {
            l.remove(listener);
        }
    }

    @Override
    public String getConfig(String key, String group, long timeout) throws IllegalStateException {
        touched.add(key);
        return DEFAULT_GROUP.equals(group) ? current.get(key) : null;
    }

    @Override
    public Object getInternalProperty(String key) {
        return null;
    }
}
