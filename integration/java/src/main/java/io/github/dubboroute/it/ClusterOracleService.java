package io.github.dubboroute.it;

import java.util.List;
import java.util.Map;

/** The interface the cluster oracle's mock cases call; ClusterOracleServiceMock is its Java mock class. */
public interface ClusterOracleService {
    String str();

    int i32();

    long i64();

    boolean bool();

    Integer boxed();

    List<String> list();

    Map<String, Object> map();

    Item pojo();

    /** A POJO return type. */
    class Item implements java.io.Serializable {
        public String name;
        public int count;
        public List<String> tags;
    }
}
