package io.github.dubboroute.it;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** ClusterOracleService's mock class (mock=true|default): fixed values the Go side's registered mock returns too. */
public class ClusterOracleServiceMock implements ClusterOracleService {
    public String str() {
        return "mock-str";
    }

    public int i32() {
        return 7;
    }

    public long i64() {
        return 70000000000L;
    }

    public boolean bool() {
        return true;
    }

    public Integer boxed() {
        return 8;
    }

    public List<String> list() {
        List<String> l = new ArrayList<>();
        l.add("mock");
        return l;
    }

    public Map<String, Object> map() {
        Map<String, Object> m = new HashMap<>();
        m.put("mock", "yes");
        return m;
    }

    public Item pojo() {
        throw new IllegalStateException("mock pojo fails");
    }
}
